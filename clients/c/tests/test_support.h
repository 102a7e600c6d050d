/* What both test programs share: checks, a signing key made for the run, files and time tokens
 * signed as the server signs them, a clock, a store. Static: each program includes it once. */
#ifndef LC_TEST_SUPPORT_H
#define LC_TEST_SUPPORT_H

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

/* A license file (.json) signed with key, payload from the fields given; `more` adds members (",\"name\":value"). */
static char *license_file_with(EVP_PKEY *key, const char *kid, const char *machine, const char *product, long long issued, long long expires, int refetch_seconds, const char *kind,
                               const char *more) {
    char payload[2048], issued_text[48], expires_text[64], enc[4096], message[4200], signature[128], *file = malloc(8192);
    lc_format_iso(issued, issued_text);
    if (expires) { expires_text[0] = '"'; lc_format_iso(expires, expires_text + 1); strcat(expires_text, "\""); }
    else strcpy(expires_text, "null");
    snprintf(payload, sizeof payload,
             "{\"formatVersion\":1,\"licenseId\":%s,\"kind\":\"%s\",\"policyType\":\"INDEFINITE\",\"product\":{\"id\":1,\"name\":\"%s\",\"version\":\"2.0\"},"
             "\"features\":[\"export:pdf\",\"Zeichnen \\u00e4\"],\"machineId\":\"%s\",\"owner\":{\"name\":\"Ada\",\"company\":null},\"issuedAt\":\"%s\",\"expiresAt\":%s,"
             "\"licenseValidUntil\":null,\"permanent\":true,\"freeUpdatesUntil\":null,\"refetchIntervalSeconds\":%d,\"refetchBeforeExpirySeconds\":86400,"
             "\"serverCustomerId\":null,\"kid\":\"%s\"%s}",
             strcmp(kind, "ANYLIC") == 0 ? "null" : "42", kind, product, machine, issued_text, expires_text, refetch_seconds, kid, more);
    base64((unsigned char *)payload, strlen(payload), enc);
    snprintf(message, sizeof message, "license/%s", enc);
    sign(key, message, signature);
    snprintf(file, 8192, "{\"enc\":\"%s\",\"sig\":\"%s\",\"alg\":\"ed25519\",\"kid\":\"%s\"}", enc, signature, kid);
    return file;
}

static char *license_file(EVP_PKEY *key, const char *kid, const char *machine, const char *product, long long issued, long long expires, int refetch_seconds, const char *kind) {
    return license_file_with(key, kid, machine, product, issued, expires, refetch_seconds, kind, "");
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

static void remove_dir(const char *dir) {
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* The run's keys: signing_key pinned as k1 in keys_json, other_key pinned nowhere. */
static void setup_keys(void) {
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
}

static int finish_tests(void) {
    lc_global_cleanup();
    EVP_PKEY_free(signing_key);
    EVP_PKEY_free(other_key);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}

#endif
