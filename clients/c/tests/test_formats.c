/* Unit tests of the formats: the JSON reader, ISO times, verification of .json and .lic files and of
 * altered or foreign ones, the ETag, time tokens, and the shared test vectors (clients/test-vectors). */
#include "test_support.h"

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

static char *vector_text(const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lc_read_file(path, NULL);
}

static void test_shared_vectors(void) {
    const char *dir = getenv("TEST_VECTORS");
    char *keys_text, *expected_text, *pem, store[64], error[256];
    lc_json *expected;
    const lc_json *files, *tokens, *clock_cases, *cases;
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

    cases = lc_json_get(expected, "entitlements");
    for (i = 0; cases && i < cases->length; i++) {
        const lc_json *c = cases->items[i], *has = lc_json_get(c, "hasFeature"), *values = lc_json_get(c, "featureValue"), *meta = lc_json_get(c, "metadata");
        char *text = vector_text(dir, lc_json_string(c, "name")), out[128];
        lc_payload payload;
        lc_status status;
        size_t k;
        lc_status_clear(&status);
        CHECK(text && lc_verify_file(text, &keys, &payload, error, sizeof error) == 0);
        if (!text) continue;
        lc_status_set_valid(&status, &payload, 0, 0);
        for (k = 0; has && k < has->length; k++) CHECK(lc_has_feature(&status, has->keys[k]) == has->items[k]->boolean);
        for (k = 0; values && k < values->length; k++) {
            const lc_json *want = values->items[k];
            long long number = 0;
            int kind = lc_feature_value(&status, values->keys[k], &number, out, sizeof out);
            if (want->type == LC_JSON_NUMBER) CHECK(kind == LC_FEATURE_INTEGER && number == (long long)want->number);
            else if (want->type == LC_JSON_STRING) CHECK(kind == LC_FEATURE_TEXT && strcmp(out, want->string) == 0);
            else if (want->type == LC_JSON_NULL) CHECK(kind == LC_FEATURE_ABSENT);
            else CHECK(kind == LC_FEATURE_FLAG);
        }
        for (k = 0; meta && k < meta->length; k++) CHECK(lc_metadata(&status, meta->keys[k], out, sizeof out) && strcmp(out, meta->items[k]->string) == 0);
        CHECK(!lc_metadata(&status, "no-such-key", out, sizeof out));
        lc_status_free(&status);
        lc_payload_free(&payload);
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

/* Section 6i: an updates answer is believed only with a pinned key's signature over "updates/" + enc,
 * and an artifact's file only with one over "artifact/" + its SHA-256; nothing is kept otherwise. */
static char *signed_answer(EVP_PKEY *key, const char *kid, const char *prefix, const char *payload) {
    char enc[4096], message[4200], signature[128], *answer = malloc(8192);
    base64((const unsigned char *)payload, strlen(payload), enc);
    snprintf(message, sizeof message, "%s%s", prefix, enc);
    sign(key, message, signature);
    snprintf(answer, 8192, "{\"enc\":\"%s\",\"sig\":\"%s\",\"alg\":\"ed25519\",\"kid\":\"%s\"}", enc, signature, kid);
    return answer;
}

static int entries_in(const char *dir) {
    char command[128];
    FILE *listing;
    int count = 0, c;
    snprintf(command, sizeof command, "ls -A '%s'", dir);
    if (!(listing = popen(command, "r"))) return -1;
    while ((c = fgetc(listing)) != EOF) count += c == '\n';
    pclose(listing);
    return count;
}

static void test_updates(void) {
    static const char sha[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"; /* SHA-256 of "test" */
    char payload[2048], message[128], artifact_sig[128], dir[64], path[256] = "unchanged", *answer, *altered;
    lc_keys keys;
    lc_update_info info;
    lc_update_error error;
    lc_update_artifact artifact;
    snprintf(message, sizeof message, "artifact/%s", sha);
    sign(signing_key, message, artifact_sig);
    snprintf(payload, sizeof payload,
             "{\"latest\":{\"version\":\"2.1.0\",\"releasedAt\":\"2026-05-01T00:00:00.000Z\",\"notes\":{\"en\":\"Faster \\\"export\\\"\"},"
             "\"artifacts\":[{\"platform\":\"linux\",\"arch\":\"x86_64\",\"filename\":\"dist/studio-2.1.0.tar.gz\",\"size\":4,\"sha256\":\"%s\",\"sig\":\"%s\","
             "\"kid\":\"k1\",\"url\":\"" NOWHERE "/file\",\"urlExpiresAt\":\"2026-05-01T01:00:00.000Z\"}]},"
             "\"newer\":{\"version\":\"3.0.0\",\"releasedAt\":\"2026-05-20T00:00:00.000Z\",\"reason\":\"free-updates-ended\"},\"issuedAt\":\"2026-05-28T00:00:00.000Z\"}",
             sha, artifact_sig);
    lc_keys_parse(keys_json, &keys, NULL, 0);

    answer = signed_answer(signing_key, "k1", "updates/", payload);
    CHECK(lc_update_answer(answer, &keys, &info, &error) == 0);
    CHECK(info.latest_version && strcmp(info.latest_version, "2.1.0") == 0 && info.artifact_count == 1 && info.artifacts[0].size == 4);
    CHECK(info.newer_version && strcmp(info.newer_version, "3.0.0") == 0 && strcmp(info.newer_reason, "free-updates-ended") == 0);
    CHECK(info.latest_notes_json && strcmp(info.latest_notes_json, "{\"en\":\"Faster \\\"export\\\"\"}") == 0);
    /* one byte of enc changed */
    altered = malloc(strlen(answer) + 1);
    strcpy(altered, answer);
    altered[12] = altered[12] == 'A' ? 'B' : 'A';
    lc_update_info tampered;
    CHECK(lc_update_answer(altered, &keys, &tampered, &error) != 0 && strcmp(error.code, "BAD_SIGNATURE") == 0 && !tampered.latest_version);
    free(altered);
    free(answer);
    /* another key under the pinned kid, a key not pinned, and a license file's signature reused */
    answer = signed_answer(other_key, "k1", "updates/", payload);
    CHECK(lc_update_answer(answer, &keys, &tampered, &error) != 0 && strcmp(error.code, "BAD_SIGNATURE") == 0);
    free(answer);
    answer = signed_answer(other_key, "k9", "updates/", payload);
    CHECK(lc_update_answer(answer, &keys, &tampered, &error) != 0 && strcmp(error.code, "BAD_SIGNATURE") == 0);
    free(answer);
    answer = signed_answer(signing_key, "k1", "license/", payload);
    CHECK(lc_update_answer(answer, &keys, &tampered, &error) != 0 && strcmp(error.code, "BAD_SIGNATURE") == 0);
    free(answer);
    CHECK(lc_update_answer("{\"error\":\"x\"}", &keys, &tampered, &error) != 0 && strcmp(error.code, "MALFORMED") == 0);

    /* The artifact: its checksum must be the signed one before anything is fetched or kept. */
    strcpy(dir, "/tmp/lc-updates-XXXXXX");
    if (!mkdtemp(dir)) abort();
    artifact = info.artifacts[0];
    artifact.sha256 = "0f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    CHECK(lc_download_update(&artifact, keys_json, dir, path, sizeof path, &error) != 0 && strcmp(error.code, "BAD_SIGNATURE") == 0 && path[0] == 0);
    artifact = info.artifacts[0];
    artifact.kid = "k9";
    CHECK(lc_download_update(&artifact, keys_json, dir, path, sizeof path, &error) != 0 && strcmp(error.code, "BAD_SIGNATURE") == 0);
    artifact = info.artifacts[0];
    artifact.filename = "../..";
    CHECK(lc_download_update(&artifact, keys_json, dir, path, sizeof path, &error) != 0 && strcmp(error.code, "BAD_FILENAME") == 0);
    artifact.filename = "dist\\";
    CHECK(lc_download_update(&artifact, keys_json, dir, path, sizeof path, &error) != 0 && strcmp(error.code, "BAD_FILENAME") == 0);
    /* signed, but the link leads nowhere: the temporary file is gone again */
    CHECK(lc_download_update(&info.artifacts[0], keys_json, dir, path, sizeof path, &error) != 0 && strcmp(error.code, "UNREACHABLE") == 0);
    CHECK(entries_in(dir) == 0);
    remove_dir(dir);
    lc_update_info_free(&info);
    lc_keys_free(&keys);
}

int main(void) {
    setup_keys();
    test_json();
    test_time();
    test_verification();
    test_tag();
    test_time_token();
    test_shared_vectors();
    test_updates();
    return finish_tests();
}
