/* Unit tests of borrowing and of the confirmation kept in the store, against a stand-in server
 * (stand_in.h): a held file without borrowedUntil makes a borrow ask at once, without If-None-Match;
 * the refresh of a held borrowed file sends borrowDays with its If-None-Match, and keeps the renewal;
 * the server's 422 ERR_BORROW_NOT_ALLOWED is LC_BORROW_NOT_ALLOWED and keeps the stored files; a 304
 * is written to confirmed.state ("<tag> <epoch ms>\n", the format every client reads), so a new
 * client counts its next refresh from it. The kit covers the same against the real server. */
#include "test_support.h"
#include "stand_in.h"

#define MINUTE 60000LL
#define REFUSED_BORROW "{\"error\":\"ERR_BORROW_NOT_ALLOWED\",\"message\":\"This license lets a machine borrow a seat for at most 7 days\",\"params\":{\"max\":7}}"

/* A client of the store dir (made when empty) on the stand-in's port (1: nothing listens). */
static lc_client *client_of(int port, char *dir, int borrow_days) {
    lc_options options;
    char url[64];
    memset(&options, 0, sizeof options);
    if (!*dir) {
        strcpy(dir, "/tmp/lc-test-XXXXXX");
        if (!mkdtemp(dir)) abort();
    }
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    options.server_url = url;
    options.product = "Studio";
    options.machine_id = "M1";
    options.public_keys = keys_json;
    options.store_dir = dir;
    options.borrow_days = borrow_days;
    options.request_timeout_ms = 5000;
    options.now_ms = test_clock;
    return lc_client_new(&options, NULL, 0);
}

static int stored(const char *dir, const char *name) {
    char *text = lc_store_read(dir, name);
    free(text);
    return text != NULL;
}

static void test_borrow_at_once(void) {
    /* held: refreshed hourly, so not due a minute after its issue */
    char dir[64] = "", *held = license_file(signing_key, "k1", "M1", "Studio", NOW, NOW + 2 * DAY, 3600, "TAN"), *borrowed, *log, until[48], more[96];
    const char *script[] = {"200 OK", NULL, NULL};
    stand_in server;
    lc_status status;
    lc_client *client;
    lc_format_iso(NOW + MINUTE + 3 * DAY, until);
    snprintf(more, sizeof more, ",\"borrowedUntil\":\"%s\"", until);
    borrowed = license_file_with(signing_key, "k1", "M1", "Studio", NOW + MINUTE, NOW + MINUTE + 3 * DAY, 3600, "TAN", more);
    script[1] = borrowed;
    server = start_stand_in(script);
    client = client_of(server.port, dir, 3);
    lc_store_write(dir, "license.json", held);
    clock_ms = NOW + MINUTE;
    CHECK(lc_check(client, &status) == 1 && status.from_server && status.borrowed_until && strcmp(status.borrowed_until, until) == 0);
    lc_status_free(&status);
    /* borrowed until then: no borrow pending, no refresh due, no request */
    CHECK(lc_check(client, &status) == 1 && !status.from_server && !status.offline);
    lc_status_free(&status);
    log = stop_stand_in(&server);
    CHECK(count_of(log, "POST /api/client/v1/license ") == 1 && strstr(log, "\"borrowDays\":3") && !strstr(log, "If-None-Match"));
    free(log);
    lc_client_free(client);
    remove_dir(dir);
    free(held);
    free(borrowed);
}

static void test_borrow_renewed_by_a_refresh(void) {
    /* held: borrowed for 3 days at NOW, refreshed hourly; 61 minutes on its refresh is due */
    char dir[64] = "", *held, *renewed, *log, *kept, until[48], renewed_until[48], more[96], tag[100], header[140];
    const char *script[] = {"200 OK", NULL, NULL};
    stand_in server;
    lc_status status;
    lc_client *client;
    lc_format_iso(NOW + 3 * DAY, until);
    snprintf(more, sizeof more, ",\"borrowedUntil\":\"%s\"", until);
    held = license_file_with(signing_key, "k1", "M1", "Studio", NOW, NOW + 3 * DAY, 3600, "TAN", more);
    lc_format_iso(NOW + 61 * MINUTE + 3 * DAY, renewed_until);
    snprintf(more, sizeof more, ",\"borrowedUntil\":\"%s\"", renewed_until);
    renewed = license_file_with(signing_key, "k1", "M1", "Studio", NOW + 61 * MINUTE, NOW + 61 * MINUTE + 3 * DAY, 3600, "TAN", more);
    script[1] = renewed;
    server = start_stand_in(script);
    client = client_of(server.port, dir, 3);
    lc_store_write(dir, "license.json", held);
    clock_ms = NOW + 30 * MINUTE;
    /* borrowed and not due: no request */
    CHECK(lc_check(client, &status) == 1 && !status.from_server && status.borrowed_until && strcmp(status.borrowed_until, until) == 0);
    lc_status_free(&status);
    clock_ms = NOW + 61 * MINUTE;
    CHECK(lc_check(client, &status) == 1 && status.from_server && status.borrowed_until && strcmp(status.borrowed_until, renewed_until) == 0);
    lc_status_free(&status);
    log = stop_stand_in(&server);
    /* the refresh asks for the borrow too, with the held file's ETag: the server renews it */
    CHECK(lc_license_file_tag(held, tag, sizeof tag) == 0);
    snprintf(header, sizeof header, "If-None-Match: %s", tag);
    CHECK(count_of(log, "POST /api/client/v1/license ") == 1 && strstr(log, "\"borrowDays\":3") && strstr(log, header));
    kept = lc_store_read(dir, "license.json");
    CHECK(kept && strcmp(kept, renewed) == 0);
    free(kept);
    free(log);
    lc_client_free(client);
    remove_dir(dir);
    free(held);
    free(renewed);
}

static void test_borrow_not_allowed(void) {
    char dir[64] = "", fresh[64] = "", *held = license_file(signing_key, "k1", "M1", "Studio", NOW, NOW + 2 * DAY, 3600, "TAN"), *log;
    const char *script[] = {"422 Unprocessable Entity", REFUSED_BORROW, "422 Unprocessable Entity", REFUSED_BORROW, NULL};
    stand_in server = start_stand_in(script);
    lc_status status;
    lc_client *client = client_of(server.port, dir, 30), *without_borrow;
    lc_store_write(dir, "license.json", held);
    clock_ms = NOW + MINUTE;
    CHECK(lc_check(client, &status) == 0 && status.reason == LC_BORROW_NOT_ALLOWED && !status.offline);
    CHECK(strcmp(status.message, "This license lets a machine borrow a seat for at most 7 days") == 0 && strcmp(lc_reason_name(status.reason), "BORROW_NOT_ALLOWED") == 0);
    lc_status_free(&status);
    /* only the borrow was refused: the file stays and counts without borrow_days */
    CHECK(stored(dir, "license.json"));
    without_borrow = client_of(1, dir, 0);
    CHECK(lc_check(without_borrow, &status) == 1 && status.license_id == 42 && !status.offline);
    lc_status_free(&status);
    lc_client_free(without_borrow);
    lc_client_free(client);
    /* nothing held: the same refusal, not taken for an unreachable server */
    client = client_of(server.port, fresh, 30);
    CHECK(lc_check(client, &status) == 0 && status.reason == LC_BORROW_NOT_ALLOWED && !status.offline);
    lc_status_free(&status);
    log = stop_stand_in(&server);
    CHECK(count_of(log, "\"borrowDays\":30") == 2);
    free(log);
    lc_client_free(client);
    remove_dir(dir);
    remove_dir(fresh);
    free(held);
}

static void test_confirmation_kept(void) {
    char dir[64] = "", *held = license_file(signing_key, "k1", "M1", "Studio", NOW, NOW + 10 * DAY, 3600, "TAN"), tag[100], expected[160], *state, *log;
    const char *script[] = {"304 Not Modified", "", NULL};
    stand_in server = start_stand_in(script);
    lc_status status;
    lc_client *client = client_of(server.port, dir, 0), *next_process;
    lc_store_write(dir, "license.json", held);
    clock_ms = NOW + 120 * MINUTE;
    CHECK(lc_check(client, &status) == 1 && status.from_server);
    lc_status_free(&status);
    log = stop_stand_in(&server);
    CHECK(lc_license_file_tag(held, tag, sizeof tag) == 0 && strstr(log, "If-None-Match: ") && strstr(log, tag));
    free(log);
    snprintf(expected, sizeof expected, "%s %lld\n", tag, NOW + 120 * MINUTE);
    state = lc_store_read(dir, "confirmed.state");
    CHECK(state && strcmp(state, expected) == 0);
    free(state);
    /* another process: not due until an interval after the confirmation (nothing listens at port 1) */
    next_process = client_of(1, dir, 0);
    clock_ms = NOW + 150 * MINUTE;
    CHECK(lc_check(next_process, &status) == 1 && !status.offline);
    lc_status_free(&status);
    clock_ms = NOW + 181 * MINUTE;
    CHECK(lc_check(next_process, &status) == 1 && status.offline);
    lc_status_free(&status);
    lc_client_free(next_process);
    lc_client_free(client);
    remove_dir(dir);
    free(held);
}

int main(void) {
    setup_keys();
    test_borrow_at_once();
    test_borrow_renewed_by_a_refresh();
    test_borrow_not_allowed();
    test_confirmation_kept();
    return finish_tests();
}
