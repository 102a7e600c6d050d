/* Unit tests of the C client: formats, verification, the store, offline behaviour and trusted time.
 * Files are signed here with a key made for the run; the server is an address where nothing listens,
 * so every path that needs no answer from the server is covered (the kit covers the others). */
#include "license_client.h"
#include "../src/internal.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures = 0, checks = 0;
#define CHECK(condition)                                                              \
    do {                                                                              \
        checks++;                                                                     \
        if (!(condition)) { failures++; fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #condition); } \
    } while (0)

#define DAY 86400000LL
#define NOW 1780000000000LL /* 2026-05-28 */
#define NOWHERE "http://127.0.0.1:1"

static EVP_PKEY *signing_key, *other_key;
static char keys_json[1024];

static void base64(const unsigned char *bytes, size_t length, char *out) {
    EVP_EncodeBlock((unsigned char *)out, bytes, (int)length);
}

static void sign(EVP_PKEY *key, const char *message, char *signature_base64) {
    unsigned char signature[64];
    size_t length = sizeof signature;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    EVP_DigestSignInit(context, NULL, NULL, NULL, key);
    EVP_DigestSign(context, signature, &length, (const unsigned char *)message, strlen(message));
    EVP_MD_CTX_free(context);
    base64(signature, length, signature_base64);
}

static void public_pem(EVP_PKEY *key, char *out, size_t size) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *data;
    long length;
    PEM_write_bio_PUBKEY(bio, key);
    length = BIO_get_mem_data(bio, &data);
    snprintf(out, size, "%.*s", (int)length, data);
    BIO_free(bio);
}

static void json_escape_into(const char *in, char *out) {
    for (; *in; in++) {
        if (*in == '\n') { *out++ = '\\'; *out++ = 'n'; }
        else *out++ = *in;
    }
    *out = 0;
}

/* A license file (.json) signed with key, payload from the fields given. */
static char *license_file(EVP_PKEY *key, const char *kid, const char *machine, const char *product, long long issued, long long expires, int refetch_seconds, const char *kind) {
    char payload[2048], issued_text[48], expires_text[64], enc[4096], message[4200], signature[128], *file = malloc(8192);
    lc_format_iso(issued, issued_text);
    if (expires) { expires_text[0] = '"'; lc_format_iso(expires, expires_text + 1); strcat(expires_text, "\""); }
    else strcpy(expires_text, "null");
    snprintf(payload, sizeof payload,
             "{\"formatVersion\":1,\"licenseId\":%s,\"kind\":\"%s\",\"policyType\":\"INDEFINITE\",\"product\":{\"id\":1,\"name\":\"%s\",\"version\":\"2.0\"},"
             "\"features\":[\"export:pdf\",\"Zeichnen \\u00e4\"],\"machineId\":\"%s\",\"owner\":{\"name\":\"Ada\",\"company\":null},\"issuedAt\":\"%s\",\"expiresAt\":%s,"
             "\"licenseValidUntil\":null,\"permanent\":true,\"freeUpdatesUntil\":null,\"refetchIntervalSeconds\":%d,\"refetchBeforeExpirySeconds\":86400,"
             "\"serverCustomerId\":null,\"kid\":\"%s\"}",
             strcmp(kind, "ANYLIC") == 0 ? "null" : "42", kind, product, machine, issued_text, expires_text, refetch_seconds, kid);
    base64((unsigned char *)payload, strlen(payload), enc);
    snprintf(message, sizeof message, "license/%s", enc);
    sign(key, message, signature);
    snprintf(file, 8192, "{\"enc\":\"%s\",\"sig\":\"%s\",\"alg\":\"ed25519\",\"kid\":\"%s\"}", enc, signature, kid);
    return file;
}

static char *time_token(EVP_PKEY *key, const char *kid, long long t) {
    char json[128], enc[256], message[300], signature[128], *token = malloc(512);
    snprintf(json, sizeof json, "{\"t\":%lld,\"kid\":\"%s\"}", t / 1000, kid);
    base64((unsigned char *)json, strlen(json), enc);
    snprintf(message, sizeof message, "time/%s", enc);
    sign(key, message, signature);
    snprintf(token, 512, "%s.%s", enc, signature);
    return token;
}

static char *as_lic(const char *json) {
    char encoded[8192], *out = malloc(12000), *o = out;
    size_t i, n;
    base64((const unsigned char *)json, strlen(json), encoded);
    n = strlen(encoded);
    o += sprintf(o, "-----BEGIN LICENSE FILE-----\n");
    for (i = 0; i < n; i += 64) o += sprintf(o, "%.*s\n", 64, encoded + i);
    sprintf(o, "-----END LICENSE FILE-----\n");
    return out;
}

static long long clock_ms;
static long long test_clock(void *context) { (void)context; return clock_ms; }

static lc_client *client_in_new_store(const char *machine, char *dir) {
    lc_options options;
    memset(&options, 0, sizeof options);
    strcpy(dir, "/tmp/lc-test-XXXXXX");
    if (!mkdtemp(dir)) abort();
    options.server_url = NOWHERE;
    options.product = "Studio";
    options.machine_id = machine;
    options.public_keys = keys_json;
    options.store_dir = dir;
    options.request_timeout_ms = 5000;
    options.now_ms = test_clock;
    return lc_client_new(&options, NULL, 0);
}

static void test_json(void) {
    const char *text = " {\"a\":[1,-2.5e1,true,false,null],\"s\":\"q\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\",\"o\":{}} ";
    lc_json *root = lc_json_parse(text, strlen(text));
    const lc_json *a;
    CHECK(root != NULL);
    a = lc_json_get(root, "a");
    CHECK(a && a->type == LC_JSON_ARRAY && a->length == 5);
    CHECK(a && a->items[0]->number == 1 && a->items[1]->number == -25 && a->items[2]->boolean && a->items[4]->type == LC_JSON_NULL);
    CHECK(lc_json_string(root, "s") && strcmp(lc_json_string(root, "s"), "q\"\\/\n\xc3\xa9\xf0\x9f\x98\x80") == 0);
    lc_json_free(root);
    CHECK(lc_json_parse("{\"a\":1", 6) == NULL);
    CHECK(lc_json_parse("{\"a\":1} x", 9) == NULL);
    CHECK(lc_json_parse("\"\\ud800\"", 8) == NULL);
    CHECK(lc_json_parse("01", 2) == NULL);
}

static void test_time(void) {
    long long ms;
    char text[48];
    CHECK(lc_parse_iso("2026-05-01T10:00:00.123Z", &ms) && ms == 1777629600123LL);
    CHECK(lc_parse_iso("2026-05-01T12:00:00+02:00", &ms) && ms == 1777629600000LL);
    CHECK(lc_parse_iso("1970-01-01", &ms) && ms == 0);
    CHECK(!lc_parse_iso("2026-05-01T10:00:00", &ms));
    CHECK(!lc_parse_iso("yesterday", &ms));
    lc_format_iso(1777629600123LL, text);
    CHECK(strcmp(text, "2026-05-01T10:00:00.123Z") == 0);
    lc_format_iso(951782400000LL, text); /* a leap day */
    CHECK(strcmp(text, "2000-02-29T00:00:00.000Z") == 0);
}

static void test_verification(void) {
    char *file = license_file(signing_key, "k1", "M1", "Studio", NOW, NOW + 10 * DAY, 86400, "TAN");
    char *lic = as_lic(file), *payload = NULL, error[256], *altered, *foreign;
    lc_keys keys;
    lc_payload parsed;
    CHECK(lc_verify_license_file(file, keys_json, &payload, error, sizeof error) == 0);
    CHECK(payload && strstr(payload, "\"machineId\":\"M1\""));
    free(payload);
    CHECK(lc_verify_license_file(lic, keys_json, NULL, error, sizeof error) == 0);
    /* one byte of the payload changed */
    altered = malloc(strlen(file) + 1);
    strcpy(altered, file);
    altered[12] = altered[12] == 'A' ? 'B' : 'A';
    CHECK(lc_verify_license_file(altered, keys_json, NULL, error, sizeof error) != 0 && strstr(error, "altered"));
    free(altered);
    /* a .lic with one byte changed */
    altered = malloc(strlen(lic) + 1);
    strcpy(altered, lic);
    altered[40] = altered[40] == 'A' ? 'B' : 'A';
    CHECK(lc_verify_license_file(altered, keys_json, NULL, error, sizeof error) != 0);
    free(altered);
    /* signed by a key that is not pinned */
    foreign = license_file(other_key, "k9", "M1", "Studio", NOW, NOW + DAY, 86400, "TAN");
    CHECK(lc_verify_license_file(foreign, keys_json, NULL, error, sizeof error) != 0 && strstr(error, "unknown key k9"));
    free(foreign);
    /* another key's signature under a pinned kid */
    foreign = license_file(other_key, "k1", "M1", "Studio", NOW, NOW + DAY, 86400, "TAN");
    CHECK(lc_verify_license_file(foreign, keys_json, NULL, error, sizeof error) != 0);
    free(foreign);
    CHECK(lc_verify_license_file("not a file", keys_json, NULL, error, sizeof error) != 0);
    CHECK(lc_verify_license_file(file, "{\"keys\":[]}", NULL, error, sizeof error) != 0);
    lc_keys_parse(keys_json, &keys, NULL, 0);
    CHECK(lc_verify_file(file, &keys, &parsed, NULL, 0) == 0 && parsed.license_id == 42 && parsed.expires_at == NOW + 10 * DAY && parsed.issued_at == NOW);
    lc_payload_free(&parsed);
    lc_keys_free(&keys);
    free(file);
    free(lic);
}

static void test_tag(void) {
    /* The same tag as the server and the Node SDK derive (docs/license-files.md). */
    const char *file = "{\"enc\":\"eyJpc3N1ZWRBdCI6IjIwMjYtMDUtMDFUMTA6MDA6MDAuMTIzWiIsIngiOiLDqSJ9\",\"sig\":\"\",\"alg\":\"ed25519\",\"kid\":\"k\"}";
    char tag[96];
    CHECK(lc_license_file_tag(file, tag, sizeof tag) == 0 && strcmp(tag, "\"lm1-momqrlvf-bD8eLxSZUP00Krl6tz6527\"") == 0);
}

static void test_time_token(void) {
    char *token = time_token(signing_key, "k1", NOW), *forged = time_token(other_key, "k1", NOW);
    lc_keys keys;
    long long ms = 0;
    lc_keys_parse(keys_json, &keys, NULL, 0);
    CHECK(lc_verify_time_token(token, &keys, &ms) == 0 && ms == NOW);
    CHECK(lc_verify_time_token(forged, &keys, &ms) != 0);
    CHECK(lc_verify_time_token("garbage", &keys, &ms) != 0);
    lc_keys_free(&keys);
    free(token);
    free(forged);
}

static void remove_dir(const char *dir) {
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

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
static char *vector_text(const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lc_read_file(path, NULL);
}

static void test_shared_vectors(void) {
    const char *dir = getenv("TEST_VECTORS");
    char *keys_text, *expected_text, *pem, store[64], error[256];
    lc_json *expected;
    const lc_json *files, *tokens, *clock_cases;
    lc_keys keys;
    size_t i;
    double tolerance = 48;
    EVP_PKEY *vector_key;
    BIO *bio;
    if (!dir || !(expected_text = vector_text(dir, "expected.json"))) {
        fprintf(stderr, "shared test vectors skipped: no %s/expected.json\n", dir ? dir : "TEST_VECTORS");
        return;
    }
    keys_text = vector_text(dir, "keys.json");
    expected = lc_json_parse(expected_text, strlen(expected_text));
    CHECK(keys_text && expected && lc_keys_parse(keys_text, &keys, NULL, 0) == 0);
    if (!keys_text || !expected) return;
    lc_json_number(expected, "toleranceHours", &tolerance);

    files = lc_json_get(expected, "files");
    for (i = 0; files && i < files->length; i++) {
        const lc_json *c = files->items[i];
        const lc_json *valid = lc_json_get(c, "valid");
        char *text = vector_text(dir, lc_json_string(c, "name")), tag[96];
        lc_payload payload;
        int verified = text && lc_verify_file(text, &keys, &payload, error, sizeof error) == 0;
        CHECK(valid && verified == valid->boolean);
        if (!valid || valid->boolean != verified) fprintf(stderr, "  vector %s: %s\n", lc_json_string(c, "name"), verified ? "verified" : error);
        if (verified) {
            const lc_json *want = lc_json_get(c, "payload");
            const char *expires = lc_json_string(want, "expiresAt");
            long long expires_ms = LC_NEVER;
            if (expires) lc_parse_iso(expires, &expires_ms);
            CHECK(strcmp(payload.tag, lc_json_string(c, "etag")) == 0);
            CHECK(lc_license_file_tag(text, tag, sizeof tag) == 0 && strcmp(tag, lc_json_string(c, "etag")) == 0);
            CHECK(strcmp(payload.machine_id, lc_json_string(want, "machineId")) == 0 && strcmp(payload.kind, lc_json_string(want, "kind")) == 0);
            CHECK(payload.expires_at == expires_ms);
            lc_payload_free(&payload);
        }
        free(text);
    }

    tokens = lc_json_get(expected, "timeTokens");
    for (i = 0; tokens && i < tokens->length; i++) {
        const lc_json *c = tokens->items[i];
        long long ms = 0;
        double t = 0;
        int verified = lc_verify_time_token(lc_json_string(c, "value"), &keys, &ms) == 0;
        CHECK(verified == lc_json_get(c, "valid")->boolean);
        if (verified) CHECK(lc_json_number(c, "t", &t) && ms == (long long)t * 1000);
    }

    /* the clock cases: files/license.json in a store, the trusted time from a token signed with the test key */
    pem = vector_text(dir, "test-private-key.pem");
    bio = pem ? BIO_new_mem_buf(pem, -1) : NULL;
    vector_key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    free(pem);
    CHECK(vector_key != NULL);
    clock_cases = lc_json_get(expected, "clock");
    for (i = 0; vector_key && clock_cases && i < clock_cases->length; i++) {
        const lc_json *c = clock_cases->items[i];
        long long local, trusted;
        char *file = vector_text(dir, "files/license.json"), *token, json[128], enc[256], message[300], signature[128];
        lc_options options;
        lc_status status;
        lc_client *client;
        const char *expect = lc_json_string(c, "expect");
        lc_parse_iso(lc_json_string(c, "local"), &local);
        lc_parse_iso(lc_json_string(c, "trusted"), &trusted);
        snprintf(json, sizeof json, "{\"t\":%lld,\"kid\":\"%s\"}", trusted / 1000, lc_json_string(expected, "kid"));
        base64((unsigned char *)json, strlen(json), enc);
        snprintf(message, sizeof message, "time/%s", enc);
        sign(vector_key, message, signature);
        token = malloc(strlen(enc) + strlen(signature) + 2);
        sprintf(token, "%s.%s", enc, signature);
        strcpy(store, "/tmp/lc-test-XXXXXX");
        if (!mkdtemp(store)) abort();
        lc_store_write(store, "license.json", file);
        lc_store_write(store, "server-time", token);
        memset(&options, 0, sizeof options);
        options.server_url = NOWHERE;
        options.product = "Studio";
        options.machine_id = "VECTOR-MACHINE-1";
        options.public_keys = keys_text;
        options.store_dir = store;
        options.clock_tolerance_hours = (long)tolerance;
        options.now_ms = test_clock;
        clock_ms = local;
        client = lc_client_new(&options, NULL, 0);
        lc_check(client, &status);
        CHECK(strcmp(lc_reason_name(status.reason), expect) == 0);
        if (strcmp(lc_reason_name(status.reason), expect) != 0) fprintf(stderr, "  clock case %u: %s, expected %s\n", (unsigned)i, lc_reason_name(status.reason), expect);
        lc_status_free(&status);
        lc_client_free(client);
        remove_dir(store);
        free(file);
        free(token);
    }
    EVP_PKEY_free(vector_key);
    lc_keys_free(&keys);
    lc_json_free(expected);
    free(expected_text);
    free(keys_text);
}

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
    CHECK(strcmp(lc_reason_name(LC_CLOCK_TAMPERED), "CLOCK_TAMPERED") == 0 && strcmp(lc_reason_name(LC_NO_SEAT), "NO_SEAT") == 0);
}

int main(void) {
    char pem[512], escaped[600];
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
    EVP_PKEY_keygen_init(context);
    EVP_PKEY_keygen(context, &signing_key);
    EVP_PKEY_keygen(context, &other_key);
    EVP_PKEY_CTX_free(context);
    public_pem(signing_key, pem, sizeof pem);
    json_escape_into(pem, escaped);
    snprintf(keys_json, sizeof keys_json, "{\"keys\":[{\"kid\":\"k1\",\"alg\":\"ed25519\",\"publicKeyPem\":\"%s\",\"createdAt\":\"2026-01-01T00:00:00.000Z\"}]}", escaped);
    lc_global_init();

    test_json();
    test_time();
    test_verification();
    test_tag();
    test_time_token();
    test_offline_behaviour();
    test_altered_and_foreign_files();
    test_imported_lic();
    test_trusted_time();
    test_tolerance_option();
    test_fingerprint();
    test_options();
    test_default_store_dir();
    test_shared_vectors();

    lc_global_cleanup();
    EVP_PKEY_free(signing_key);
    EVP_PKEY_free(other_key);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
