/* Unit tests of desktop sign-in (DESIGN.md section 6f, RFC 8628) against a stand-in server on
 * 127.0.0.1 (a child process answering a script of responses and logging the requests): the polling
 * loop (authorization_pending, slow_down, access_denied, expired_token), the token kept with mode
 * 0600 and sent as a bearer, the server's 403 ERR_SEAT_UNASSIGNED and 401, borrow_days while signed
 * in (borrowDays on every request, the borrowed file, ERR_BORROW_NOT_ALLOWED), sign-out. The kit covers
 * the same against the real server. */
#include "test_support.h"
#include "stand_in.h"

#include <ctype.h>
#include <sys/stat.h>

static long long slept[16];
static int sleeps;
static void record_sleep(long long ms, void *context) {
    (void)context;
    if (sleeps < 16) slept[sleeps] = ms;
    sleeps++;
}

static lc_client *signin_client(int port, char *dir, int borrow_days) {
    lc_options options;
    char url[64];
    memset(&options, 0, sizeof options);
    strcpy(dir, "/tmp/lc-test-XXXXXX");
    if (!mkdtemp(dir)) abort();
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    options.server_url = url;
    options.product = "Studio";
    options.machine_id = "M1";
    options.public_keys = keys_json;
    options.store_dir = dir;
    options.request_timeout_ms = 5000;
    options.now_ms = test_clock;
    options.sleep_ms = record_sleep;
    options.borrow_days = borrow_days;
    sleeps = 0;
    return lc_client_new(&options, NULL, 0);
}

static const char *AUTHORIZED = "{\"device_code\":\"dev-1\",\"user_code\":\"ABCD-EFGH\",\"verification_uri\":\"http://srv/device\","
                                "\"verification_uri_complete\":\"http://srv/device?code=ABCD-EFGH\",\"expires_in\":600,\"interval\":2}";

static char shown[64];
static void show_code(const lc_sign_in_code *code, void *context) {
    snprintf(shown, sizeof shown, "%s %s %ld %ld", code->user_code, code->verification_uri_complete, code->expires_in, code->interval);
    (*(int *)context)++;
}

static char *token_path(const char *dir) {
    static char path[128];
    snprintf(path, sizeof path, "%s/desktop-token", dir);
    return path;
}

static void test_slow_down_then_denied(void) {
    const char *script[] = {"200 OK", AUTHORIZED, "400 Bad Request", "{\"error\":\"authorization_pending\"}", "400 Bad Request", "{\"error\":\"slow_down\"}",
                            "400 Bad Request", "{\"error\":\"authorization_pending\"}", "400 Bad Request", "{\"error\":\"access_denied\"}", NULL};
    stand_in server = start_stand_in(script);
    char dir[64], *log;
    int calls = 0;
    lc_status status;
    lc_client *client = signin_client(server.port, dir, 0);
    clock_ms = NOW;
    CHECK(lc_sign_in(client, show_code, NULL, &calls, &status) == 0 && status.reason == LC_SIGNIN_DENIED && !status.offline);
    CHECK(strcmp(lc_reason_name(status.reason), "SIGNIN_DENIED") == 0);
    CHECK(calls == 1 && strcmp(shown, "ABCD-EFGH http://srv/device?code=ABCD-EFGH 600 2") == 0);
    /* The interval, and 5 seconds more after slow_down. */
    CHECK(sleeps == 4 && slept[0] == 2000 && slept[1] == 2000 && slept[2] == 7000 && slept[3] == 7000);
    CHECK(access(token_path(dir), F_OK) != 0 && !lc_signed_in(client));
    lc_status_free(&status);
    log = stop_stand_in(&server);
    CHECK(strstr(log, "POST /api/client/v1/device/authorize ") && strstr(log, "{\"product\":\"Studio\",\"machineId\":\"M1\"}"));
    CHECK(count_of(log, "POST /api/client/v1/device/token ") == 4 && count_of(log, "{\"device_code\":\"dev-1\"}") == 4);
    free(log);
    lc_client_free(client);
    remove_dir(dir);
}

static void test_expired(void) {
    const char *script[] = {"200 OK", AUTHORIZED, "400 Bad Request", "{\"error\":\"expired_token\"}", NULL};
    stand_in server = start_stand_in(script);
    char dir[64];
    int calls = 0;
    lc_status status;
    lc_client *client = signin_client(server.port, dir, 0);
    CHECK(lc_sign_in(client, show_code, NULL, &calls, &status) == 0 && status.reason == LC_SIGNIN_EXPIRED);
    lc_status_free(&status);
    free(stop_stand_in(&server));
    lc_client_free(client);
    remove_dir(dir);
    /* Nothing listening: UNREACHABLE, and no code shown. */
    client = signin_client(1, dir, 0);
    calls = 0;
    CHECK(lc_sign_in(client, show_code, NULL, &calls, &status) == 0 && status.reason == LC_UNREACHABLE && status.offline && calls == 0);
    lc_status_free(&status);
    lc_client_free(client);
    remove_dir(dir);
}

static int stop_after_two(void *context) { return ++*(int *)context < 3; }

static void test_cancelled(void) {
    const char *script[] = {"200 OK", AUTHORIZED, "400 Bad Request", "{\"error\":\"authorization_pending\"}", "400 Bad Request",
                            "{\"error\":\"authorization_pending\"}", NULL};
    stand_in server = start_stand_in(script);
    char dir[64];
    int calls = 0;
    lc_status status;
    lc_client *client = signin_client(server.port, dir, 0);
    CHECK(lc_sign_in(client, show_code, stop_after_two, &calls, &status) == 0 && status.reason == LC_SIGNIN_EXPIRED && strstr(status.message, "cancelled"));
    lc_status_free(&status);
    free(stop_stand_in(&server));
    lc_client_free(client);
    remove_dir(dir);
}

static void test_signed_in_requests(void) {
    char *file = license_file(signing_key, "k1", "M1", "Studio", NOW, NOW + 10 * DAY, 3600, "TAN");
    const char *script[] = {"200 OK", AUTHORIZED, "400 Bad Request", "{\"error\":\"authorization_pending\"}", "200 OK",
                            "{\"access_token\":\"lmdt_secret\",\"token_type\":\"Bearer\"}", "200 OK", file,
                            /* lc_refresh: the seat is gone */
                            "403 Forbidden", "{\"error\":\"ERR_SEAT_UNASSIGNED\",\"message\":\"You have no seat for this product any more\"}",
                            /* lc_refresh: the sign-in ended */
                            "401 Unauthorized", "{\"error\":\"ERR_UNAUTHENTICATED\",\"message\":\"no\"}", NULL};
    stand_in server = start_stand_in(script);
    char dir[64], *log, *token;
    int calls = 0;
    struct stat info;
    lc_status status;
    lc_client *client = signin_client(server.port, dir, 0);
    clock_ms = NOW;
    CHECK(lc_sign_in(client, show_code, NULL, &calls, &status) == 1 && status.license_id == 42 && status.from_server);
    lc_status_free(&status);
    CHECK(stat(token_path(dir), &info) == 0 && (info.st_mode & 0777) == 0600);
    token = lc_store_token(dir);
    CHECK(token && strcmp(token, "lmdt_secret") == 0 && lc_signed_in(client));
    free(token);
    /* No refresh due: the stored file, no request. */
    CHECK(lc_check(client, &status) == 1 && !status.from_server);
    lc_status_free(&status);
    CHECK(lc_refresh(client, &status) == 0 && status.reason == LC_SEAT_UNASSIGNED && strcmp(lc_reason_name(status.reason), "SEAT_UNASSIGNED") == 0);
    lc_status_free(&status);
    CHECK(lc_signed_in(client));
    CHECK(lc_refresh(client, &status) == 0 && status.reason == LC_SIGNED_OUT && strcmp(lc_reason_name(status.reason), "SIGNED_OUT") == 0);
    lc_status_free(&status);
    CHECK(access(token_path(dir), F_OK) != 0 && !lc_signed_in(client));
    log = stop_stand_in(&server);
    /* Every license request carried the token (the fetch after sign-in and both refreshes). */
    CHECK(count_of(log, "POST /api/client/v1/license ") == 3 && count_of(log, "Authorization: Bearer lmdt_secret") == 3);
    free(log);
    lc_client_free(client);
    remove_dir(dir);
    free(file);
}

/* Signed in with borrow_days: every license request carries borrowDays as an anonymous one does; the
 * borrowed file is kept; ERR_BORROW_NOT_ALLOWED keeps the token and the file. */
static void test_signed_in_borrow(void) {
    char until[48], more[96], dir[64], path[128], *file, *log;
    const char *script[] = {"200 OK", AUTHORIZED, "200 OK", "{\"access_token\":\"lmdt_secret\",\"token_type\":\"Bearer\"}", "200 OK", NULL,
                            /* the refresh 2 hours on: more days than allowed */
                            "422 Unprocessable Entity", "{\"error\":\"ERR_BORROW_NOT_ALLOWED\",\"message\":\"at most 0 days\"}", NULL};
    stand_in server;
    int calls = 0;
    lc_status status;
    lc_client *client;
    lc_format_iso(NOW + 3 * DAY, until);
    snprintf(more, sizeof more, ",\"borrowedUntil\":\"%s\"", until);
    file = license_file_with(signing_key, "k1", "M1", "Studio", NOW, NOW + 3 * DAY, 3600, "TAN", more);
    script[5] = file;
    server = start_stand_in(script);
    client = signin_client(server.port, dir, 3);
    clock_ms = NOW;
    CHECK(lc_sign_in(client, show_code, NULL, &calls, &status) == 1 && status.from_server && status.borrowed_until && strcmp(status.borrowed_until, until) == 0);
    lc_status_free(&status);
    clock_ms = NOW + 2 * 3600000LL;
    CHECK(lc_check(client, &status) == 0 && status.reason == LC_BORROW_NOT_ALLOWED && !status.offline && strcmp(status.message, "at most 0 days") == 0);
    lc_status_free(&status);
    snprintf(path, sizeof path, "%s/license.json", dir);
    CHECK(lc_signed_in(client) && access(path, F_OK) == 0);
    log = stop_stand_in(&server);
    CHECK(count_of(log, "POST /api/client/v1/license ") == 2 && count_of(log, "\"borrowDays\":3") == 2 && count_of(log, "Authorization: Bearer lmdt_secret") == 2);
    CHECK(count_of(log, "If-None-Match") == 1);
    free(log);
    lc_client_free(client);
    remove_dir(dir);
    free(file);
}

static void test_sign_out(void) {
    const char *script[] = {"204 No Content", "", NULL};
    stand_in server = start_stand_in(script);
    char dir[64], error[256], *log;
    lc_client *client = signin_client(server.port, dir, 0);
    CHECK(lc_sign_out(client, error, sizeof error) == 1);
    CHECK(lc_store_write_private(dir, "desktop-token", "lmdt_out\n") == 0);
    CHECK(lc_store_write(dir, "license.json", "{}") == 0);
    CHECK(lc_sign_out(client, error, sizeof error) == 0);
    CHECK(access(token_path(dir), F_OK) != 0 && !lc_signed_in(client));
    log = stop_stand_in(&server);
    CHECK(strstr(log, "DELETE /api/client/v1/device/token ") && strstr(log, "Authorization: Bearer lmdt_out\r\n") && !strstr(log, "Content-Type"));
    free(log);
    /* The server not reached: signed out here all the same (-1 says the server was not told). */
    lc_client_free(client);
    remove_dir(dir);
    client = signin_client(1, dir, 0);
    lc_store_write_private(dir, "desktop-token", "lmdt_kept");
    CHECK(lc_sign_out(client, error, sizeof error) == -1 && !lc_signed_in(client));
    lc_client_free(client);
    remove_dir(dir);
}

int main(void) {
    setup_keys();
    test_slow_down_then_denied();
    test_expired();
    test_cancelled();
    test_signed_in_requests();
    test_signed_in_borrow();
    test_sign_out();
    return finish_tests();
}
