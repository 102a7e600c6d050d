/* What the parts of the client share; not part of the public API. */
#ifndef LC_INTERNAL_H
#define LC_INTERNAL_H

#include <stddef.h>
#include "json.h"
#include "license_client.h"

#define LC_NEVER 0x7fffffffffffffffLL

void lc_set_error(char *error, size_t size, const char *format, ...);

/* Strict standard base64 (padding required); whitespace must be removed first. 0 on success; free *out. */
int lc_base64_decode(const char *in, size_t length, unsigned char **out, size_t *out_length);
int lc_sha256(const void *data, size_t length, unsigned char digest[32]);
/* ISO 8601 UTC ("2026-05-01T10:00:00.000Z", offsets accepted) in ms since 1970; 0 when not one. */
int lc_parse_iso(const char *text, long long *ms);
void lc_format_iso(long long ms, char out[48]);

/* The public keys pinned in the software. */
typedef struct { char *kid; char *pem; } lc_key;
typedef struct { lc_key *keys; size_t count; } lc_keys;
int lc_keys_parse(const char *json, lc_keys *keys, char *error, size_t size);
void lc_keys_free(lc_keys *keys);
int lc_verify_ed25519(const char *pem, const unsigned char *message, size_t message_length, const unsigned char *signature, size_t signature_length);
/* Verifies base64 sig over prefix + text with the pinned key kid: 0 when genuine, else -1 with a message. */
int lc_verify_signed(const lc_keys *keys, const char *kid, const char *prefix, const char *text, const char *sig, char *error, size_t size);

/* A verified payload and what the client decides with. */
typedef struct {
    lc_json *root;
    char *json;             /* the payload's text */
    char *file_text;        /* the whole file as stored */
    char tag[96];           /* its ETag */
    const char *kind, *policy_type, *machine_id, *product, *version;
    const char *install_key_id, *lease_mode; /* NULL when absent (section 6h) */
    long long license_id;   /* -1 when null */
    long long issued_at, expires_at, borrowed_until; /* ms; LC_NEVER when null / absent */
    double refetch_interval_seconds, refetch_before_expiry_seconds;
} lc_payload;
/* Verifies a .lic or .json file: 0 and *payload on success. */
int lc_verify_file(const char *text, const lc_keys *keys, lc_payload *payload, char *error, size_t size);
void lc_payload_free(lc_payload *payload);
int lc_is_any_lic(const lc_payload *payload);

/* License-Server-Time: 0 and the vouched time in *ms when the token verifies against a pinned key. */
int lc_verify_time_token(const char *token, const lc_keys *keys, long long *ms);

/* The store folder. */
typedef struct { char *name; char *text; } lc_stored_file;
int lc_store_list(const char *dir, lc_stored_file **files, size_t *count);
void lc_store_files_free(lc_stored_file *files, size_t count);
int lc_store_write(const char *dir, const char *name, const char *text);
/* As lc_store_write, but the file is created with mode 0600 (never readable by others, not even briefly). */
int lc_store_write_private(const char *dir, const char *name, const char *text);
char *lc_store_read(const char *dir, const char *name);
void lc_store_remove(const char *dir, const char *name);
char *lc_read_file(const char *path, size_t *length);

/* One protocol call; -1 with a message when the server could not be reached. */
typedef struct { long status; char *body; char *server_time; } lc_http_answer;
int lc_http(const char *method, const char *url, const char *body, const char *if_none_match, long timeout_ms, lc_http_answer *answer, char *error, size_t size);
/* As lc_http, with "Authorization: Bearer <bearer>" when bearer is not NULL; a NULL body sends none. */
int lc_http_auth(const char *method, const char *url, const char *body, const char *if_none_match, const char *bearer, long timeout_ms, lc_http_answer *answer,
                 char *error, size_t size);
void lc_http_answer_free(lc_http_answer *answer);
/* The desktop sign-in token kept in the store (trimmed), or NULL; free() it. */
#define LC_TOKEN_FILE "desktop-token"
char *lc_store_token(const char *store_dir);
/* Sign-out without a client (the harness's signout): 0 signed out, 1 no token, -1 not reached (token kept). */
int lc_sign_out_store(const char *server_url, const char *store_dir, long timeout_ms, char *error, size_t size);
/* A GET whose 2xx body goes to sink piece by piece (a download; other bodies are dropped); *status the
 * final HTTP status. -1 with a message when the server could not be reached or sink refused (returned
 * less than length). */
typedef size_t (*lc_http_sink)(const char *data, size_t length, void *context);
int lc_http_get_stream(const char *url, long connect_timeout_ms, lc_http_sink sink, void *context, long *status, char *error, size_t size);
/* The body of a license request (POST/DELETE /api/client/v1/license); borrow_days 0 and clock_tampered_at NULL leave them out. */
char *lc_license_request_body(const char *machine_id, const char *product, const char *version, int borrow_days, const char *clock_tampered_at);

/* The body of a 2xx updates answer verified and read (lc_check_for_update without the request). */
int lc_update_answer(const char *body, const lc_keys *keys, lc_update_info *info, lc_update_error *error);

/* Shared by the client's parts. */
char *lc_copy(const char *text); /* NULL stays NULL */
long long lc_refresh_due_at(const lc_payload *payload); /* LC_NEVER: no refresh */
long long lc_refresh_due_after_confirmation(const lc_payload *payload, long long confirmed_at);
void lc_status_clear(lc_status *status);
int lc_status_set_invalid(lc_status *status, lc_reason reason, const char *message); /* returns 0 */
int lc_status_set_valid(lc_status *status, const lc_payload *payload, int from_server, int offline); /* returns 1 */
#endif
