/* Pinned keys, license files and time tokens: everything that is believed only once it verifies. */
#include "license_client.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#define BEGIN_LINE "-----BEGIN LICENSE FILE-----"
#define END_LINE "-----END LICENSE FILE-----"

static char *copy(const char *text) {
    size_t n = strlen(text) + 1;
    char *out = malloc(n);
    if (out) memcpy(out, text, n);
    return out;
}

void lc_keys_free(lc_keys *keys) {
    size_t i;
    for (i = 0; i < keys->count; i++) { free(keys->keys[i].kid); free(keys->keys[i].pem); }
    free(keys->keys);
    keys->keys = NULL;
    keys->count = 0;
}

/* Checked when the keys are pinned, so that a wrong key fails at start rather than as INVALID_FILE. */
static int is_ed25519_pem(const char *pem) {
    BIO *bio = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *key = bio ? PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL) : NULL;
    int ok = key && EVP_PKEY_get_id(key) == EVP_PKEY_ED25519;
    EVP_PKEY_free(key);
    BIO_free(bio);
    return ok;
}

int lc_keys_parse(const char *json, lc_keys *keys, char *error, size_t size) {
    lc_json *root = json ? lc_json_parse(json, strlen(json)) : NULL;
    const lc_json *list = root && root->type == LC_JSON_ARRAY ? root : lc_json_get(root, "keys");
    size_t i;
    keys->keys = NULL;
    keys->count = 0;
    if (!list || list->type != LC_JSON_ARRAY || list->length == 0) {
        lc_json_free(root);
        lc_set_error(error, size, "the public keys are not the JSON of GET /api/client/v1/keys ({\"keys\":[{\"kid\",\"publicKeyPem\"}]})");
        return -1;
    }
    keys->keys = calloc(list->length, sizeof *keys->keys);
    for (i = 0; keys->keys && i < list->length; i++) {
        const char *kid = lc_json_string(list->items[i], "kid"), *pem = lc_json_string(list->items[i], "publicKeyPem");
        if (!kid || !pem) {
            lc_set_error(error, size, "public key %u lacks kid or publicKeyPem", (unsigned)i);
            break;
        }
        if (!is_ed25519_pem(pem)) {
            lc_set_error(error, size, "public key %s is not an Ed25519 key in SPKI PEM", kid);
            break;
        }
        keys->keys[i].kid = copy(kid);
        keys->keys[i].pem = copy(pem);
        keys->count++;
    }
    i = list->length;
    lc_json_free(root);
    if (!keys->keys || keys->count != i) { lc_keys_free(keys); return -1; }
    return 0;
}

static const lc_key *find_key(const lc_keys *keys, const char *kid) {
    size_t i;
    for (i = 0; kid && i < keys->count; i++)
        if (strcmp(keys->keys[i].kid, kid) == 0) return &keys->keys[i];
    return NULL;
}

int lc_verify_ed25519(const char *pem, const unsigned char *message, size_t message_length, const unsigned char *signature, size_t signature_length) {
    BIO *bio = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *key = bio ? PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL) : NULL;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int ok = key && context && EVP_PKEY_get_id(key) == EVP_PKEY_ED25519 && signature_length == 64 &&
             EVP_DigestVerifyInit(context, NULL, NULL, NULL, key) == 1 &&
             EVP_DigestVerify(context, signature, signature_length, message, message_length) == 1;
    EVP_MD_CTX_free(context);
    EVP_PKEY_free(key);
    BIO_free(bio);
    return ok ? 0 : -1;
}

/* Verifies base64 `sig` over prefix + enc with the pinned key kid; 0 when genuine. */
int lc_verify_signed(const lc_keys *keys, const char *kid, const char *prefix, const char *enc, const char *sig, char *error, size_t size) {
    const lc_key *key = find_key(keys, kid);
    unsigned char *signature = NULL;
    size_t signature_length = 0, prefix_length = strlen(prefix), enc_length = strlen(enc);
    char *message;
    int result;
    if (!key) { lc_set_error(error, size, "signed with the unknown key %s", kid ? kid : "(none)"); return -1; }
    if (lc_base64_decode(sig, strlen(sig), &signature, &signature_length) != 0) { lc_set_error(error, size, "the signature is not base64"); return -1; }
    message = malloc(prefix_length + enc_length + 1);
    if (!message) { free(signature); return -1; }
    memcpy(message, prefix, prefix_length);
    memcpy(message + prefix_length, enc, enc_length + 1);
    result = lc_verify_ed25519(key->pem, (unsigned char *)message, prefix_length + enc_length, signature, signature_length);
    free(message);
    free(signature);
    if (result != 0) lc_set_error(error, size, "the signature does not match: the file was altered");
    return result;
}

/* The JSON of a .json file, or of a .lic file unwrapped; NULL when it is neither. */
static char *file_json(const char *text) {
    const char *start = text, *end;
    unsigned char *decoded = NULL;
    size_t decoded_length, n = 0;
    char *compact;
    while (*start == ' ' || *start == '\t' || *start == '\r' || *start == '\n' || (unsigned char)*start == 0xEF || (unsigned char)*start == 0xBB || (unsigned char)*start == 0xBF) start++;
    if (strncmp(start, BEGIN_LINE, strlen(BEGIN_LINE)) != 0) return copy(start);
    start += strlen(BEGIN_LINE);
    end = strstr(start, END_LINE);
    if (!end) return NULL;
    compact = malloc((size_t)(end - start) + 1);
    if (!compact) return NULL;
    for (; start < end; start++)
        if (*start != ' ' && *start != '\t' && *start != '\r' && *start != '\n') compact[n++] = *start;
    compact[n] = 0;
    if (lc_base64_decode(compact, n, &decoded, &decoded_length) != 0 || strlen((char *)decoded) != decoded_length) { free(compact); free(decoded); return NULL; }
    free(compact);
    return (char *)decoded;
}

static long long time_member(const lc_json *root, const char *key, int *ok) {
    const lc_json *value = lc_json_get(root, key);
    long long ms;
    if (!value || value->type == LC_JSON_NULL) return LC_NEVER;
    if (value->type != LC_JSON_STRING || !lc_parse_iso(value->string, &ms)) { *ok = 0; return LC_NEVER; }
    return ms;
}

static void tag_of(const char *enc, long long issued_at, char tag[96]) {
    static const char url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    static const char base36[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    unsigned char digest[33] = {0};
    char hash[23], stamp[24];
    int i, n = 0;
    unsigned long long value = issued_at < 0 ? 0 : (unsigned long long)issued_at;
    lc_sha256(enc, strlen(enc), digest);
    for (i = 0; i < 22; i++) {
        /* the first 22 base64url characters are bits 0..131 of the digest */
        int bit = i * 6, byte = bit / 8, shift = bit % 8;
        unsigned word = (unsigned)digest[byte] << 8 | digest[byte + 1];
        hash[i] = url[(word >> (10 - shift)) & 63];
    }
    hash[22] = 0;
    do { stamp[n++] = base36[value % 36]; value /= 36; } while (value);
    for (i = 0; i < n / 2; i++) { char c = stamp[i]; stamp[i] = stamp[n - 1 - i]; stamp[n - 1 - i] = c; }
    stamp[n] = 0;
    strcpy(tag, "\"lm1-");
    strcat(tag, stamp);
    strcat(tag, "-");
    strcat(tag, hash);
    strcat(tag, "\"");
}

void lc_payload_free(lc_payload *payload) {
    lc_json_free(payload->root);
    free(payload->json);
    free(payload->file_text);
    memset(payload, 0, sizeof *payload);
}

int lc_verify_file(const char *text, const lc_keys *keys, lc_payload *payload, char *error, size_t size) {
    char *json = file_json(text);
    lc_json *file = json ? lc_json_parse(json, strlen(json)) : NULL;
    const char *enc = lc_json_string(file, "enc"), *sig = lc_json_string(file, "sig"), *kid = lc_json_string(file, "kid"), *alg = lc_json_string(file, "alg");
    unsigned char *decoded = NULL;
    size_t decoded_length = 0;
    const lc_json *product, *id;
    int ok = 1;
    memset(payload, 0, sizeof *payload);
    free(json);
    if (!enc || !sig || !kid || !alg || strcmp(alg, "ed25519") != 0) {
        lc_set_error(error, size, "not a license file: it lacks enc, sig, alg \"ed25519\" or kid");
        goto fail;
    }
    if (lc_verify_signed(keys, kid, "license/", enc, sig, error, size) != 0) goto fail;
    if (lc_base64_decode(enc, strlen(enc), &decoded, &decoded_length) != 0 || strlen((char *)decoded) != decoded_length ||
        !(payload->root = lc_json_parse((char *)decoded, decoded_length)) || payload->root->type != LC_JSON_OBJECT) {
        lc_set_error(error, size, "the payload is not JSON");
        goto fail;
    }
    payload->json = (char *)decoded;
    decoded = NULL;
    if (!lc_json_string(payload->root, "kid") || strcmp(lc_json_string(payload->root, "kid"), kid) != 0) {
        lc_set_error(error, size, "the payload names another key");
        goto fail;
    }
    product = lc_json_get(payload->root, "product");
    payload->kind = lc_json_string(payload->root, "kind");
    payload->policy_type = lc_json_string(payload->root, "policyType");
    payload->machine_id = lc_json_string(payload->root, "machineId");
    payload->install_key_id = lc_json_string(payload->root, "installKeyId");
    payload->lease_mode = lc_json_string(payload->root, "leaseMode");
    payload->product = lc_json_string(product, "name");
    payload->version = lc_json_string(product, "version");
    id = lc_json_get(payload->root, "licenseId");
    payload->license_id = id && id->type == LC_JSON_NUMBER ? (long long)id->number : -1;
    payload->issued_at = time_member(payload->root, "issuedAt", &ok);
    payload->expires_at = time_member(payload->root, "expiresAt", &ok);
    payload->borrowed_until = time_member(payload->root, "borrowedUntil", &ok);
    if (!lc_json_number(payload->root, "refetchIntervalSeconds", &payload->refetch_interval_seconds)) payload->refetch_interval_seconds = 0;
    if (!lc_json_number(payload->root, "refetchBeforeExpirySeconds", &payload->refetch_before_expiry_seconds)) payload->refetch_before_expiry_seconds = 0;
    if (!ok || payload->issued_at == LC_NEVER || !payload->kind || !payload->machine_id || !payload->product || !payload->version) {
        lc_set_error(error, size, "the payload lacks machineId, product, kind or issuedAt");
        goto fail;
    }
    tag_of(enc, payload->issued_at, payload->tag);
    payload->file_text = copy(text);
    lc_json_free(file);
    return 0;
fail:
    free(decoded);
    lc_json_free(file);
    lc_payload_free(payload);
    return -1;
}

int lc_is_any_lic(const lc_payload *payload) {
    return strcmp(payload->kind, "ANYLIC") == 0 && strcmp(payload->machine_id, "*") == 0;
}

/*
 * License-Server-Time: "<enc>.<sig>", enc = base64 of the JSON {"t": Unix seconds, "kid"}, sig =
 * base64 Ed25519 signature of "time/" + enc (docs/license-files.md, "Trusted time").
 */
int lc_verify_time_token(const char *token, const lc_keys *keys, long long *ms) {
    const char *dot = token ? strchr(token, '.') : NULL;
    char *enc;
    unsigned char *decoded = NULL;
    size_t decoded_length;
    lc_json *root = NULL;
    const lc_json *t;
    int result = -1;
    if (!dot) return -1;
    enc = malloc((size_t)(dot - token) + 1);
    if (!enc) return -1;
    memcpy(enc, token, (size_t)(dot - token));
    enc[dot - token] = 0;
    if (lc_base64_decode(enc, strlen(enc), &decoded, &decoded_length) != 0) goto done;
    root = lc_json_parse((char *)decoded, decoded_length);
    if (!lc_json_string(root, "kid") || lc_verify_signed(keys, lc_json_string(root, "kid"), "time/", enc, dot + 1, NULL, 0) != 0) goto done;
    t = lc_json_get(root, "t");
    if (t && t->type == LC_JSON_NUMBER && t->number > 0) { *ms = (long long)t->number * 1000; result = 0; }
done:
    lc_json_free(root);
    free(decoded);
    free(enc);
    return result;
}

int lc_verify_license_file(const char *text, const char *public_keys, char **payload_json, char *error, size_t error_size) {
    lc_keys keys;
    lc_payload payload;
    int result;
    if (!text || lc_keys_parse(public_keys, &keys, error, error_size) != 0) return -1;
    result = lc_verify_file(text, &keys, &payload, error, error_size);
    lc_keys_free(&keys);
    if (result != 0) return -1;
    if (payload_json) { *payload_json = payload.json; payload.json = NULL; }
    lc_payload_free(&payload);
    return 0;
}

int lc_license_file_tag(const char *text, char *tag, size_t tag_size) {
    /* The tag needs no key: only enc and issuedAt are read (the file is not verified here). */
    char *json = text ? file_json(text) : NULL;
    lc_json *file = json ? lc_json_parse(json, strlen(json)) : NULL, *payload = NULL;
    const char *enc = lc_json_string(file, "enc");
    unsigned char *decoded = NULL;
    size_t decoded_length;
    long long issued_at;
    char result[96];
    int ok = -1;
    free(json);
    if (enc && lc_base64_decode(enc, strlen(enc), &decoded, &decoded_length) == 0 && (payload = lc_json_parse((char *)decoded, decoded_length)) &&
        lc_parse_iso(lc_json_string(payload, "issuedAt"), &issued_at)) {
        tag_of(enc, issued_at, result);
        if (strlen(result) < tag_size) { strcpy(tag, result); ok = 0; }
    }
    lc_json_free(payload);
    lc_json_free(file);
    free(decoded);
    return ok;
}
