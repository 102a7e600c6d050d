/*
 * Updates for entitled licenses (DESIGN.md section 6i), the same behaviour as packages/sdk
 * (updates.ts): the signed updates answer, and downloads kept only once signature, size and SHA-256
 * are right. A download streams to a temporary file beside its final name while it is hashed, so a
 * file of several GB needs no memory, and is renamed only when everything fits.
 */
#include "license_client.h"
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <unistd.h>
#endif

#define UPDATES_PREFIX "updates/"
#define ARTIFACT_PREFIX "artifact/"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(lc_update_error *error, const char *code, const char *format, ...) {
    va_list args;
    if (!error) return -1;
    snprintf(error->code, sizeof error->code, "%s", code);
    va_start(args, format);
    vsnprintf(error->message, sizeof error->message, format, args);
    va_end(args);
    return -1;
}

/* A JSON value written back as text (the release notes). */
static void append_json(lc_buffer *out, const lc_json *value) {
    char number[48];
    size_t i;
    switch (value->type) {
    case LC_JSON_NULL: lc_buffer_append_str(out, "null"); break;
    case LC_JSON_BOOL: lc_buffer_append_str(out, value->boolean ? "true" : "false"); break;
    case LC_JSON_NUMBER: snprintf(number, sizeof number, "%.17g", value->number); lc_buffer_append_str(out, number); break;
    case LC_JSON_STRING: lc_buffer_append_json_string(out, value->string); break;
    case LC_JSON_ARRAY:
    case LC_JSON_OBJECT:
        lc_buffer_append_str(out, value->type == LC_JSON_ARRAY ? "[" : "{");
        for (i = 0; i < value->length; i++) {
            if (i) lc_buffer_append_str(out, ",");
            if (value->type == LC_JSON_OBJECT) { lc_buffer_append_json_string(out, value->keys[i]); lc_buffer_append_str(out, ":"); }
            append_json(out, value->items[i]);
        }
        lc_buffer_append_str(out, value->type == LC_JSON_ARRAY ? "]" : "}");
        break;
    }
}

static void artifact_free(lc_update_artifact *artifact) {
    free(artifact->platform);
    free(artifact->arch);
    free(artifact->filename);
    free(artifact->sha256);
    free(artifact->sig);
    free(artifact->kid);
    free(artifact->url);
    free(artifact->url_expires_at);
}

void lc_update_info_free(lc_update_info *info) {
    size_t i;
    if (!info) return;
    for (i = 0; i < info->artifact_count; i++) artifact_free(&info->artifacts[i]);
    free(info->artifacts);
    free(info->latest_version);
    free(info->latest_released_at);
    free(info->latest_notes_json);
    free(info->newer_version);
    free(info->newer_released_at);
    free(info->newer_reason);
    free(info->issued_at);
    free(info->payload_json);
    memset(info, 0, sizeof *info);
}

/* The verified payload into *info: 0, or -1 when it is not the payload of section 6i. */
static int read_payload(const lc_json *root, lc_update_info *info) {
    const lc_json *latest = lc_json_get(root, "latest"), *newer = lc_json_get(root, "newer"), *list, *notes;
    size_t i;
    if (!root || root->type != LC_JSON_OBJECT) return -1;
    info->issued_at = lc_copy(lc_json_string(root, "issuedAt"));
    if (newer && newer->type == LC_JSON_OBJECT) {
        if (!lc_json_string(newer, "version")) return -1;
        info->newer_version = lc_copy(lc_json_string(newer, "version"));
        info->newer_released_at = lc_copy(lc_json_string(newer, "releasedAt"));
        info->newer_reason = lc_copy(lc_json_string(newer, "reason"));
    } else if (newer && newer->type != LC_JSON_NULL) {
        return -1;
    }
    if (!latest || latest->type == LC_JSON_NULL) return 0;
    list = lc_json_get(latest, "artifacts");
    if (latest->type != LC_JSON_OBJECT || !lc_json_string(latest, "version") || !list || list->type != LC_JSON_ARRAY) return -1;
    info->latest_version = lc_copy(lc_json_string(latest, "version"));
    info->latest_released_at = lc_copy(lc_json_string(latest, "releasedAt"));
    if ((notes = lc_json_get(latest, "notes")) != NULL) {
        lc_buffer text = {0};
        append_json(&text, notes);
        info->latest_notes_json = text.data;
    }
    info->artifacts = calloc(list->length ? list->length : 1, sizeof *info->artifacts);
    if (!info->artifacts) return -1;
    for (i = 0; i < list->length; i++) {
        const lc_json *item = list->items[i];
        lc_update_artifact *artifact = &info->artifacts[i];
        double size;
        if (!lc_json_string(item, "filename") || !lc_json_string(item, "sha256") || !lc_json_string(item, "sig") || !lc_json_string(item, "kid") ||
            !lc_json_string(item, "url") || !lc_json_number(item, "size", &size) || size < 0)
            return -1;
        artifact->platform = lc_copy(lc_json_string(item, "platform"));
        artifact->arch = lc_copy(lc_json_string(item, "arch"));
        artifact->filename = lc_copy(lc_json_string(item, "filename"));
        artifact->size = (long long)size;
        artifact->sha256 = lc_copy(lc_json_string(item, "sha256"));
        artifact->sig = lc_copy(lc_json_string(item, "sig"));
        artifact->kid = lc_copy(lc_json_string(item, "kid"));
        artifact->url = lc_copy(lc_json_string(item, "url"));
        artifact->url_expires_at = lc_copy(lc_json_string(item, "urlExpiresAt"));
        info->artifact_count++;
    }
    return 0;
}

/* The body of POST /api/client/v1/updates. */
static char *request_body(const lc_update_options *options) {
    lc_buffer body = {0};
    lc_buffer_append_str(&body, "{\"machineId\":");
    lc_buffer_append_json_string(&body, options->machine_id);
    lc_buffer_append_str(&body, ",\"product\":");
    lc_buffer_append_json_string(&body, options->product);
    lc_buffer_append_str(&body, ",\"version\":");
    lc_buffer_append_json_string(&body, options->version);
    lc_buffer_append_str(&body, ",\"platform\":");
    lc_buffer_append_json_string(&body, options->platform);
    lc_buffer_append_str(&body, ",\"arch\":");
    lc_buffer_append_json_string(&body, options->arch);
    lc_buffer_append_str(&body, ",\"channel\":");
    lc_buffer_append_json_string(&body, options->channel ? options->channel : "stable");
    lc_buffer_append_str(&body, "}");
    return body.failed ? (free(body.data), NULL) : body.data;
}

int lc_update_answer(const char *body, const lc_keys *keys, lc_update_info *info, lc_update_error *error) {
    lc_json *file = body ? lc_json_parse(body, strlen(body)) : NULL, *payload = NULL;
    const char *enc = lc_json_string(file, "enc"), *sig = lc_json_string(file, "sig"), *kid = lc_json_string(file, "kid"), *alg = lc_json_string(file, "alg");
    unsigned char *decoded = NULL;
    size_t decoded_length = 0;
    char message[256];
    int result = -1;
    memset(info, 0, sizeof *info);
    if (!enc || !sig || !kid || (alg && strcmp(alg, "ed25519") != 0)) {
        fail(error, "MALFORMED", "the updates answer lacks enc, sig or kid");
    } else if (lc_verify_signed(keys, kid, UPDATES_PREFIX, enc, sig, message, sizeof message) != 0) {
        fail(error, "BAD_SIGNATURE", "the updates answer is not signed by a pinned key (%s)", message);
    } else if (lc_base64_decode(enc, strlen(enc), &decoded, &decoded_length) != 0 || !(payload = lc_json_parse((char *)decoded, decoded_length)) ||
               read_payload(payload, info) != 0 || !(info->payload_json = malloc(decoded_length + 1))) {
        lc_update_info_free(info);
        fail(error, "MALFORMED", "the updates answer's payload is not the one of DESIGN.md section 6i");
    } else {
        memcpy(info->payload_json, decoded, decoded_length);
        info->payload_json[decoded_length] = 0;
        result = 0;
    }
    free(decoded);
    lc_json_free(payload);
    lc_json_free(file);
    return result;
}

int lc_check_for_update(const lc_update_options *options, lc_update_info *info, lc_update_error *error) {
    lc_keys keys;
    lc_http_answer answer;
    lc_buffer url = {0};
    char message[256], *body;
    size_t n;
    int result = -1;
    if (error) memset(error, 0, sizeof *error);
    if (info) memset(info, 0, sizeof *info);
    if (!options || !info || !options->server_url || !options->product || !options->version || !options->machine_id || !options->public_keys ||
        !options->platform || !options->arch)
        return fail(error, "INVALID_OPTIONS", "server_url, product, version, machine_id, public_keys, platform and arch are required");
    if (lc_keys_parse(options->public_keys, &keys, message, sizeof message) != 0) return fail(error, "INVALID_KEYS", "%s", message);
    n = strlen(options->server_url);
    while (n > 0 && options->server_url[n - 1] == '/') n--;
    lc_buffer_append(&url, options->server_url, n);
    lc_buffer_append_str(&url, "/api/client/v1/updates");
    body = request_body(options);
    if (url.failed || !body || lc_http("POST", url.data, body, NULL, options->request_timeout_ms > 0 ? options->request_timeout_ms : 15000, &answer, message, sizeof message) != 0) {
        free(url.data);
        free(body);
        lc_keys_free(&keys);
        return fail(error, "UNREACHABLE", "the license server cannot be reached (%s)", message);
    }
    free(url.data);
    free(body);
    if (answer.status >= 200 && answer.status <= 299) {
        result = lc_update_answer(answer.body, &keys, info, error);
    } else {
        lc_json *refusal = answer.body ? lc_json_parse(answer.body, strlen(answer.body)) : NULL;
        const char *code = lc_json_string(refusal, "error"), *text = lc_json_string(refusal, "message");
        char fallback[32];
        snprintf(fallback, sizeof fallback, "HTTP_%ld", answer.status);
        fail(error, code ? code : fallback, "%s", text ? text : "the server refused the updates request");
        lc_json_free(refusal);
    }
    lc_http_answer_free(&answer);
    lc_keys_free(&keys);
    return result;
}

/* The last part of a path ("a/b\\c.zip" gives "c.zip"); NULL when nothing usable is left. */
static const char *safe_name(const char *filename) {
    const char *name = filename, *p;
    if (!filename) return NULL;
    for (p = filename; *p; p++)
        if (*p == '/' || *p == '\\') name = p + 1;
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return NULL;
    for (p = name; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == ':') return NULL; /* control characters; a Windows drive or stream */
    return name;
}

typedef struct {
    FILE *file;
    EVP_MD_CTX *hash;
    long long received, expected;
    int failed; /* 1: too many bytes, 2: not written */
} download;

static size_t on_data(const char *data, size_t length, void *context) {
    download *d = context;
    d->received += (long long)length;
    /* More than the signed size: stop at once rather than fill the disk. */
    if (d->received > d->expected) { d->failed = 1; return 0; }
    if (EVP_DigestUpdate(d->hash, data, length) != 1 || fwrite(data, 1, length, d->file) != length) { d->failed = 2; return 0; }
    return length;
}

static char *join_path(const char *dir, const char *name) {
    size_t n = strlen(dir), m = strlen(name);
    char *path = malloc(n + m + 2);
    if (!path) return NULL;
    memcpy(path, dir, n);
    if (n == 0 || (dir[n - 1] != '/' && dir[n - 1] != '\\')) path[n++] = '/';
    memcpy(path + n, name, m + 1);
    return path;
}

/* A new temporary file in dir (its name in *path), opened for writing. */
static FILE *temporary_file(const char *dir, const char *name, char **path) {
    lc_buffer pattern = {0};
    FILE *file = NULL;
    char *base = join_path(dir, ".");
    if (!base) return NULL;
    lc_buffer_append_str(&pattern, base);
    lc_buffer_append_str(&pattern, name);
    lc_buffer_append_str(&pattern, ".XXXXXX");
    free(base);
    if (pattern.failed || !pattern.data) { free(pattern.data); return NULL; }
#ifdef _WIN32
    if (_mktemp_s(pattern.data, pattern.length + 1) == 0) file = fopen(pattern.data, "wb");
#else
    {
        int descriptor = mkstemp(pattern.data);
        if (descriptor >= 0 && !(file = fdopen(descriptor, "wb"))) { close(descriptor); remove(pattern.data); }
    }
#endif
    if (!file) { free(pattern.data); return NULL; }
    *path = pattern.data;
    return file;
}

static int rename_over(const char *from, const char *to) {
#ifdef _WIN32
    return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING) ? 0 : -1;
#else
    return rename(from, to);
#endif
}

int lc_download_update(const lc_update_artifact *artifact, const char *public_keys, const char *target_dir, char *path, size_t path_size,
                       lc_update_error *error) {
    static const char hex[] = "0123456789abcdef";
    lc_keys keys;
    download d;
    char message[256], digest_hex[65], *temporary = NULL, *final_path = NULL;
    unsigned char digest[32];
    unsigned digest_length = 0, i;
    const char *name;
    long status = 0;
    int reached, result = -1;
    if (error) memset(error, 0, sizeof *error);
    if (path && path_size) path[0] = 0;
    if (!artifact || !public_keys || !target_dir || !artifact->url || !artifact->sha256 || !artifact->sig || artifact->size < 0)
        return fail(error, "INVALID_OPTIONS", "an artifact of lc_check_for_update, the public keys and a target folder are required");
    if (!(name = safe_name(artifact->filename))) return fail(error, "BAD_FILENAME", "the file name %s cannot be kept", artifact->filename ? artifact->filename : "(none)");
    if (lc_keys_parse(public_keys, &keys, message, sizeof message) != 0) return fail(error, "INVALID_KEYS", "%s", message);
    /* Before a byte is fetched: the checksum must be one the server signed. */
    if (lc_verify_signed(&keys, artifact->kid, ARTIFACT_PREFIX, artifact->sha256, artifact->sig, message, sizeof message) != 0) {
        lc_keys_free(&keys);
        return fail(error, "BAD_SIGNATURE", "the file's checksum is not signed by a pinned key (%s)", message);
    }
    lc_keys_free(&keys);
    if (!(final_path = join_path(target_dir, name))) return fail(error, "WRITE_FAILED", "out of memory");
    memset(&d, 0, sizeof d);
    d.expected = artifact->size;
    if (!(d.file = temporary_file(target_dir, name, &temporary))) {
        fail(error, "WRITE_FAILED", "no file can be written in %s", target_dir);
        free(final_path);
        return -1;
    }
    if (!(d.hash = EVP_MD_CTX_new()) || EVP_DigestInit_ex(d.hash, EVP_sha256(), NULL) != 1) {
        fail(error, "WRITE_FAILED", "SHA-256 is not available");
        goto done;
    }
    reached = lc_http_get_stream(artifact->url, 15000, on_data, &d, &status, message, sizeof message) == 0;
    if (fclose(d.file) != 0 && !d.failed) d.failed = 2;
    d.file = NULL;
    if (d.failed == 1) { fail(error, "SIZE_MISMATCH", "the download is larger than the signed size"); goto done; }
    if (d.failed == 2) { fail(error, "WRITE_FAILED", "the file cannot be written in %s", target_dir); goto done; }
    if (!reached) { fail(error, "UNREACHABLE", "the download failed (%s)", message); goto done; }
    if (status < 200 || status > 299) {
        char code[32];
        snprintf(code, sizeof code, "HTTP_%ld", status);
        fail(error, code, "the download link answered %s (ask for updates again when it expired)", code + 5);
        goto done;
    }
    if (d.received != d.expected) { fail(error, "SIZE_MISMATCH", "the download is not of the signed size"); goto done; }
    if (EVP_DigestFinal_ex(d.hash, digest, &digest_length) != 1 || digest_length != 32) { fail(error, "WRITE_FAILED", "SHA-256 failed"); goto done; }
    for (i = 0; i < 32; i++) { digest_hex[2 * i] = hex[digest[i] >> 4]; digest_hex[2 * i + 1] = hex[digest[i] & 15]; }
    digest_hex[64] = 0;
    if (strcmp(digest_hex, artifact->sha256) != 0) { fail(error, "CHECKSUM_MISMATCH", "the downloaded file is not the signed one"); goto done; }
    if (path && strlen(final_path) >= path_size) { fail(error, "WRITE_FAILED", "the path %s does not fit the buffer", final_path); goto done; }
    if (rename_over(temporary, final_path) != 0) { fail(error, "WRITE_FAILED", "the file cannot be renamed to %s", final_path); goto done; }
    if (path) strcpy(path, final_path);
    result = 0;
done:
    if (d.file) fclose(d.file);
    if (result != 0) remove(temporary);
    EVP_MD_CTX_free(d.hash);
    free(temporary);
    free(final_path);
    return result;
}
