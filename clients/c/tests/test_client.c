/* Unit tests of the client's behaviour without a server (the address NOWHERE where nothing listens):
 * the store, offline use until expiry, altered and foreign files, imports, ANY-Lic, trusted time and
 * its tolerance, the fingerprint, options. The kit covers the paths that need the server's answers. */
#include "test_support.h"

static void test_offline_behaviour(void) {
    char dir[64];
    lc_status status;
    lc_client *client = client_in_new_store("M1", dir);
    char *file = license_file(signing_key, "k1", "M1", "Studio", NOW, NOW + 10 * DAY, 86400, "TAN");

    clock_ms = NOW;
    CHECK(lc_check(client, &status) == 0 && status.reason == LC_UNREACHABLE && status.offline);
    lc_status_free(&status);

    lc_store_write(dir, "license.json", file);
    /* within the refresh interval: the stored file, no server asked */
    clock_ms = NOW + DAY / 2;
    CHECK(lc_check(client, &status) == 1 && !status.offline && status.license_id == 42);
    CHECK(status.expires_at && strcmp(status.expires_at, "2026-06-07T20:26:40.000Z") == 0);
    CHECK(lc_has_feature(&status, "export:pdf") && !lc_has_feature(&status, "export"));
    CHECK(status.owner_name && strcmp(status.owner_name, "Ada") == 0 && status.owner_company == NULL);
    lc_status_free(&status);
    /* refresh due, server unreachable: offline until the file expires */
    clock_ms = NOW + 5 * DAY;
    CHECK(lc_check(client, &status) == 1 && status.offline);
    lc_status_free(&status);
    clock_ms = NOW + 10 * DAY;
    CHECK(lc_check(client, &status) == 0 && status.reason == LC_EXPIRED && status.offline);
    lc_status_free(&status);
    lc_client_free(client);
    remove_dir(dir);
    free(file);
}

static void test_altered_and_foreign_files(void) {
    char dir[64], *file = license_file(signing_key, "k1", "M1", "Studio", NOW, NOW + 10 * DAY, 86400, "TAN");
    char *other_machine = license_file(signing_key, "k1", "M2", "Studio", NOW, NOW + 10 * DAY, 86400, "TAN");
    char *other_product = license_file(signing_key, "k1", "M1", "Paint", NOW, NOW + 10 * DAY, 86400, "TAN");
    char *any = license_file(signing_key, "k1", "*", "Studio", NOW, NOW + 3 * DAY, 0, "ANYLIC");
    lc_status status;
    lc_client *client = client_in_new_store("M1", dir);
    clock_ms = NOW;
    file[20] = file[20] == 'A' ? 'B' : 'A';
    lc_store_write(dir, "license.json", file);
    CHECK(lc_check(client, &status) == 0 && status.reason == LC_INVALID_FILE);
    lc_status_free(&status);
    /* import: another machine's, another product's file are refused; an ANY-Lic file fits any machine */
    CHECK(lc_import_file(client, other_machine, &status) == 0 && status.reason == LC_INVALID_FILE && strstr(status.message, "M2"));
    lc_status_free(&status);
    CHECK(lc_import_file(client, other_product, &status) == 0 && status.reason == LC_INVALID_FILE);
    lc_status_free(&status);
    CHECK(lc_import_file(client, file, &status) == 0 && status.reason == LC_INVALID_FILE);
    lc_status_free(&status);
    CHECK(lc_import_file(client, any, &status) == 1 && status.license_id == -1);
    lc_status_free(&status);
    CHECK(lc_check(client, &status) == 1 && !status.offline && strcmp(status.kind, "ANYLIC") == 0);
    lc_status_free(&status);
    clock_ms = NOW + 3 * DAY;
    CHECK(lc_import_file(client, any, &status) == 0 && status.reason == LC_EXPIRED);
    lc_status_free(&status);
    lc_client_free(client);
    remove_dir(dir);
    free(file);
    free(other_machine);
    free(other_product);
    free(any);
}

static void test_imported_lic(void) {
    char dir[64], *file = license_file(signing_key, "k1", "M1", "Studio", NOW, NOW + 10 * DAY, 86400, "TAN"), *lic = as_lic(file);
    lc_status status;
    lc_client *client = client_in_new_store("M1", dir);
    clock_ms = NOW + DAY / 4;
    CHECK(lc_import_file(client, lic, &status) == 1 && status.license_id == 42);
    lc_status_free(&status);
    CHECK(lc_check(client, &status) == 1 && !status.offline);
    lc_status_free(&status);
    lc_client_free(client);
    remove_dir(dir);
    free(file);
    free(lic);
}

static void test_trusted_time(void) {
    char dir[64], *file = license_file(signing_key, "k1", "M1", "Studio", NOW, NOW + 10 * DAY, 0, "TAN");
    char *token = time_token(signing_key, "k1", NOW + 9 * DAY), *forged = time_token(other_key, "k1", NOW + 100 * DAY);
    lc_status status;
    lc_client *client = client_in_new_store("M1", dir);
    lc_store_write(dir, "license.json", file);

    /* the clock set back before the file's own issue time, beyond the tolerance */
    clock_ms = NOW - 3 * DAY;
    CHECK(lc_check(client, &status) == 0 && status.reason == LC_CLOCK_TAMPERED && status.license_id == 42);
    lc_status_free(&status);
    /* remembered for the next license request, the first time it was seen */
    {
        char *noted = lc_store_read(dir, "clock-tampered");
        CHECK(noted && strcmp(noted, "2026-05-28T20:26:40.000Z") == 0);
        free(noted);
    }
    /* within the tolerance: valid */
    clock_ms = NOW - DAY;
    CHECK(lc_check(client, &status) == 1);
    lc_status_free(&status);

    /* the server vouched for day 9: a clock at day 8 is within the tolerance, yet the refresh window
       (one day before expiry) is judged by day 9; at day 6 the clock is 3 days behind */
    lc_store_write(dir, "server-time", token);
    clock_ms = NOW + 8 * DAY;
    CHECK(lc_check(client, &status) == 1 && status.offline);
    lc_status_free(&status);
    clock_ms = NOW + 6 * DAY;
    CHECK(lc_check(client, &status) == 0 && status.reason == LC_CLOCK_TAMPERED);
    lc_status_free(&status);

    /* a token signed by a key not pinned counts for nothing */
    lc_store_write(dir, "server-time", forged);
    clock_ms = NOW + 6 * DAY;
    CHECK(lc_check(client, &status) == 1);
    lc_status_free(&status);
    lc_client_free(client);
    remove_dir(dir);
    free(file);
    free(token);
    free(forged);
}

static void test_tolerance_option(void) {
    char dir[64], *file = license_file(signing_key, "k1", "M1", "Studio", NOW, NOW + 10 * DAY, 0, "TAN");
    lc_options options;
    lc_status status;
    lc_client *client;
    memset(&options, 0, sizeof options);
    strcpy(dir, "/tmp/lc-test-XXXXXX");
    if (!mkdtemp(dir)) abort();
    options.server_url = NOWHERE;
    options.product = "Studio";
    options.machine_id = "M1";
    options.public_keys = keys_json;
    options.store_dir = dir;
    options.now_ms = test_clock;
    options.clock_tolerance_hours = 2;
    client = lc_client_new(&options, NULL, 0);
    lc_store_write(dir, "license.json", file);
    clock_ms = NOW - 3 * 3600000LL;
    CHECK(lc_check(client, &status) == 0 && status.reason == LC_CLOCK_TAMPERED);
    lc_status_free(&status);
    lc_client_free(client);
    remove_dir(dir);
    free(file);
}

static void test_fingerprint(void) {
    char a[65], b[65], again[65], error[256];
    size_t i;
    if (lc_machine_fingerprint("Studio", a, sizeof a, error, sizeof error) != 0) {
        fprintf(stderr, "fingerprint skipped: %s\n", error);
        return;
    }
    CHECK(strlen(a) == 32);
    for (i = 0; i < 32; i++) CHECK((a[i] >= '0' && a[i] <= '9') || (a[i] >= 'A' && a[i] <= 'F'));
    CHECK(lc_machine_fingerprint("Studio", again, sizeof again, NULL, 0) == 0 && strcmp(a, again) == 0);
    CHECK(lc_machine_fingerprint("Paint", b, sizeof b, NULL, 0) == 0 && strcmp(a, b) != 0);
    CHECK(lc_machine_fingerprint("Studio", a, 32, NULL, 0) != 0);
}

/* The shared test vectors (clients/test-vectors, see its README): every client agrees on them. */

static void test_default_store_dir(void) {
    char dir[512], tiny[8];
    setenv("XDG_CONFIG_HOME", "/home/ada/.cfg", 1);
    CHECK(lc_default_store_dir("Studio Pro", dir, sizeof dir) == 0 && strcmp(dir, "/home/ada/.cfg/Studio Pro/licenses") == 0);
    unsetenv("XDG_CONFIG_HOME");
    setenv("HOME", "/home/ada", 1);
    CHECK(lc_default_store_dir("Studio Pro", dir, sizeof dir) == 0 && strcmp(dir, "/home/ada/.config/Studio Pro/licenses") == 0);
    CHECK(lc_default_store_dir("Studio Pro", tiny, sizeof tiny) != 0);
}

static void test_options(void) {
    lc_options options;
    char error[256] = "";
    memset(&options, 0, sizeof options);
    options.server_url = NOWHERE;
    CHECK(lc_client_new(&options, error, sizeof error) == NULL && strstr(error, "required"));
    options.product = "Studio";
    options.machine_id = "M1";
    options.store_dir = "/tmp";
    options.public_keys = "[]";
    CHECK(lc_client_new(&options, error, sizeof error) == NULL && strstr(error, "public keys"));
    options.public_keys = "{\"keys\":[{\"kid\":\"k7\",\"publicKeyPem\":\"-----BEGIN PUBLIC KEY-----\\nMCowBQYDK2VwAyEA\\n-----END PUBLIC KEY-----\\n\"}]}";
    CHECK(lc_client_new(&options, error, sizeof error) == NULL && strstr(error, "k7 is not an Ed25519 key"));
    CHECK(strcmp(lc_reason_name(LC_CLOCK_TAMPERED), "CLOCK_TAMPERED") == 0 && strcmp(lc_reason_name(LC_NO_SEAT), "NO_SEAT") == 0);
}

int main(void) {
    setup_keys();
    test_offline_behaviour();
    test_altered_and_foreign_files();
    test_imported_lic();
    test_trusted_time();
    test_tolerance_option();
    test_fingerprint();
    test_options();
    test_default_store_dir();
    return finish_tests();
}
