/*
 * Air-gapped sites and containers (DESIGN.md section 6h): the install key (an Ed25519 key pair made
 * on first use in the store folder, file "install-key", mode 0600), request files, deactivation
 * proofs, and instance leases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include "internal.h"

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#endif

static char *base64_of(const unsigned char *data, size_t length) {
    char *out = malloc(4 * ((length + 2) / 3) + 1);
    if (out) EVP_EncodeBlock((unsigned char *)out, data, (int)length);
    return out;
}

static int fill_public(lc_install_key *key) {
    unsigned char *spki = NULL;
    int length = i2d_PUBKEY((EVP_PKEY *)key->pkey, &spki);
    if (length <= 0) return -1;
    char *text = base64_of(spki, (size_t)length);
    unsigned char digest[32];
    lc_sha256(spki, (size_t)length, digest);
    OPENSSL_free(spki);
    if (!text || strlen(text) >= sizeof key->public_key) { free(text); return -1; }
    strcpy(key->public_key, text);
    free(text);
    for (int i = 0; i < 32; i++) snprintf(key->key_id + 2 * i, 3, "%02x", digest[i]);
    return 0;
}

int lc_install_key_load(const char *store_dir, lc_install_key *key, char *error, size_t error_size) {
    memset(key, 0, sizeof *key);
    char path[4096];
    snprintf(path, sizeof path, "%s/install-key", store_dir);
    FILE *file = fopen(path, "rb");
    if (file) {
        key->pkey = PEM_read_PrivateKey(file, NULL, NULL, NULL);
        fclose(file);
        if (!key->pkey || fill_public(key) != 0) { lc_install_key_free(key); lc_set_error(error, error_size, "the install key in %s cannot be read", path); return -1; }
        return 0;
    }
    lc_store_write(store_dir, ".install-key-probe", ""); /* creates the folder */
    lc_store_remove(store_dir, ".install-key-probe");
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
    EVP_PKEY *pkey = NULL;
    if (!context || EVP_PKEY_keygen_init(context) <= 0 || EVP_PKEY_keygen(context, &pkey) <= 0) {
        EVP_PKEY_CTX_free(context);
        lc_set_error(error, error_size, "no Ed25519 key could be made");
        return -1;
    }
    EVP_PKEY_CTX_free(context);
#ifndef _WIN32
    int descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (descriptor < 0) { EVP_PKEY_free(pkey); return lc_install_key_load(store_dir, key, error, error_size); }
    file = fdopen(descriptor, "wb");
#else
    file = fopen(path, "wb");
#endif
    if (!file || !PEM_write_PrivateKey(file, pkey, NULL, NULL, 0, NULL, NULL)) {
        if (file) fclose(file);
        EVP_PKEY_free(pkey);
        lc_set_error(error, error_size, "the install key cannot be written to %s", path);
        return -1;
    }
    fclose(file);
    key->pkey = pkey;
    return fill_public(key);
}

void lc_install_key_free(lc_install_key *key) {
    EVP_PKEY_free((EVP_PKEY *)key->pkey);
    key->pkey = NULL;
}

static char *sign_base64(const lc_install_key *key, const char *message) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    unsigned char signature[64];
    size_t length = sizeof signature;
    int ok = context && EVP_DigestSignInit(context, NULL, NULL, NULL, (EVP_PKEY *)key->pkey) > 0 &&
             EVP_DigestSign(context, signature, &length, (const unsigned char *)message, strlen(message)) > 0;
    EVP_MD_CTX_free(context);
    return ok ? base64_of(signature, length) : NULL;
}

static char *armored(const lc_install_key *key, const char *label, const char *prefix, const char *json) {
    char *enc = base64_of((const unsigned char *)json, strlen(json));
    char *message = malloc(strlen(prefix) + strlen(enc) + 1);
    sprintf(message, "%s%s", prefix, enc);
    char *sig = sign_base64(key, message);
    free(message);
    if (!sig) { free(enc); return NULL; }
    lc_buffer out = {0};
    lc_buffer_append_str(&out, "-----BEGIN ");
    lc_buffer_append_str(&out, label);
    lc_buffer_append_str(&out, "-----\n");
    lc_buffer_append_str(&out, enc);
    lc_buffer_append_str(&out, ".");
    lc_buffer_append_str(&out, sig);
    lc_buffer_append_str(&out, "\n-----END ");
    lc_buffer_append_str(&out, label);
    lc_buffer_append_str(&out, "-----\n");
    free(enc);
    free(sig);
    return out.data;
}

static void nonce_hex(char out[33]) {
    unsigned char bytes[16];
    RAND_bytes(bytes, sizeof bytes);
    for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

/* Now, to the millisecond: a proof made in the second its file was issued is not older than it. */
static void now_iso(char out[48]) {
#ifdef _WIN32
    lc_format_iso((long long)time(NULL) * 1000 + 999, out); /* to the second: never before the file's issue */
#else
    struct timeval now;
    gettimeofday(&now, NULL);
    lc_format_iso((long long)now.tv_sec * 1000 + now.tv_usec / 1000, out);
#endif
}

char *lc_license_request(const lc_install_key *key, const char *product, const char *version, const char *machine_id) {
    char created[48], nonce[33];
    now_iso(created);
    nonce_hex(nonce);
    lc_buffer json = {0};
    lc_buffer_append_str(&json, "{\"v\":1,\"product\":");
    lc_buffer_append_json_string(&json, product);
    lc_buffer_append_str(&json, ",\"version\":");
    if (version) lc_buffer_append_json_string(&json, version); else lc_buffer_append_str(&json, "null");
    lc_buffer_append_str(&json, ",\"machineId\":");
    lc_buffer_append_json_string(&json, machine_id);
    lc_buffer_append_str(&json, ",\"installKey\":");
    lc_buffer_append_json_string(&json, key->public_key);
    lc_buffer_append_str(&json, ",\"createdAt\":");
    lc_buffer_append_json_string(&json, created);
    lc_buffer_append_str(&json, ",\"nonce\":");
    lc_buffer_append_json_string(&json, nonce);
    lc_buffer_append_str(&json, "}");
    char *text = json.data ? armored(key, "LICENSE REQUEST", "request/", json.data) : NULL;
    free(json.data);
    return text;
}

char *lc_deactivation_proof(const lc_install_key *key, long long license_id, const char *machine_id, const char *file_issued_at) {
    char at[48], nonce[33], number[32];
    now_iso(at);
    nonce_hex(nonce);
    snprintf(number, sizeof number, "%lld", license_id);
    lc_buffer json = {0};
    lc_buffer_append_str(&json, "{\"v\":1,\"licenseId\":");
    lc_buffer_append_str(&json, number);
    lc_buffer_append_str(&json, ",\"machineId\":");
    lc_buffer_append_json_string(&json, machine_id);
    lc_buffer_append_str(&json, ",\"installKeyId\":");
    lc_buffer_append_json_string(&json, key->key_id);
    lc_buffer_append_str(&json, ",\"fileIssuedAt\":");
    lc_buffer_append_json_string(&json, file_issued_at);
    lc_buffer_append_str(&json, ",\"deactivatedAt\":");
    lc_buffer_append_json_string(&json, at);
    lc_buffer_append_str(&json, ",\"nonce\":");
    lc_buffer_append_json_string(&json, nonce);
    lc_buffer_append_str(&json, "}");
    char *text = json.data ? armored(key, "DEACTIVATION PROOF", "deactivation/", json.data) : NULL;
    free(json.data);
    return text;
}
