/*
 * license_client.h: the licensing client of the License Manager for desktop software in C and C++.
 *
 * It fetches the signed license file of this machine from the license server, verifies it against
 * public keys pinned in the software (Ed25519), keeps it in a folder, refreshes it when the file's
 * own fields say so (conditional: If-None-Match, 304), works offline from the stored file until the
 * file expires, and says why when there is no valid license. Time is judged against the later of the
 * local clock and the highest time the server has vouched for, so setting the clock back neither
 * revives an expired file nor goes unnoticed (LC_CLOCK_TAMPERED).
 *
 * Thread safety: one lc_client must not be used by two threads at once; separate clients may.
 * Call lc_global_init() once before any thread starts (it initialises libcurl).
 */
#ifndef LICENSE_CLIENT_H
#define LICENSE_CLIENT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(LICENSE_CLIENT_SHARED)
#  ifdef LICENSE_CLIENT_BUILDING
#    define LC_API __declspec(dllexport)
#  else
#    define LC_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define LC_API __attribute__((visibility("default")))
#else
#  define LC_API
#endif

#define LICENSE_CLIENT_VERSION "1.0.0"

/** Why there is no valid license (LC_VALID when there is one). */
typedef enum {
    LC_VALID = 0,
    LC_NO_LICENSE,       /* the server knows no license of this product for this machine */
    LC_REVOKED,
    LC_SUSPENDED,        /* the subscription is suspended (unpaid); reversible */
    LC_EXPIRED,
    LC_UPGRADED,         /* the license was upgraded: use the software version of the new license */
    LC_NO_SEAT,          /* every seat of the floating license is taken */
    LC_TOO_MANY_MACHINES,
    LC_UNREACHABLE,      /* no usable stored file, and the server cannot be reached */
    LC_INVALID_FILE,     /* a file that does not verify or is not for this machine and product */
    LC_CLOCK_TAMPERED,   /* the local clock is behind the server's vouched time by more than the tolerance */
    /* Desktop sign-in of named users (lc_sign_in): */
    LC_SEAT_UNASSIGNED,  /* the signed-in person has no seat for this product any more */
    LC_SIGNED_OUT,       /* the sign-in ended (signed out or revoked elsewhere): the token is deleted */
    LC_SIGNIN_DENIED,    /* the person denied the sign-in on the /device page */
    LC_SIGNIN_EXPIRED,   /* the code expired (or the wait was cancelled) before it was approved */
    /* Borrowing (lc_options.borrow_days): */
    LC_BORROW_NOT_ALLOWED /* more days than the policy allows (or none); the stored files stay and count without borrow_days */
} lc_reason;

/** "VALID", "NO_LICENSE", ... (the names the harness prints). */
LC_API const char *lc_reason_name(lc_reason reason);

typedef struct lc_client lc_client;

typedef struct {
    const char *server_url;     /* e.g. "https://licenses.example.com" */
    const char *product;        /* the product name as in the catalogue */
    const char *version;        /* optional (NULL): the server picks the newest licensed version */
    const char *machine_id;     /* this machine's id, e.g. from lc_machine_fingerprint() */
    const char *public_keys;    /* the JSON of GET /api/client/v1/keys, pinned in the software */
    const char *store_dir;      /* the folder of license files (created when needed) */
    int borrow_days;            /* > 0: borrow a floating seat for that many days, renewed with every request */
    long request_timeout_ms;    /* 0: 15000 */
    long clock_tolerance_hours; /* 0: 48; how far the local clock may lag the server's time */
    /* For tests: the local clock in milliseconds since 1970 (NULL: the system clock). */
    long long (*now_ms)(void *context);
    void *now_context;
    /* This installation's install key id (lc_install_key_load): a file bound to another key is refused. */
    const char *install_key_id;
    /* For tests: waits ms milliseconds between the polls of lc_sign_in (NULL: sleeps); gets now_context. */
    void (*sleep_ms)(long long ms, void *context);
} lc_options;

/** The outcome of a check. Release it with lc_status_free. */
typedef struct {
    int valid;                  /* 1: the software may run */
    lc_reason reason;           /* LC_VALID when valid */
    char message[512];          /* a sentence for logs or the user, in English */
    int offline;                /* the server could not be reached (or answered no usable word) in this check:
                                   when valid, the stored file carries on until it expires */
    int from_server;            /* the file was just fetched or confirmed (304) by the server */
    /* The license (when valid; also with LC_CLOCK_TAMPERED when a file is held). */
    long long license_id;       /* -1: none (an ANY-Lic file) */
    char *kind;                 /* "TAN", "TEMPORARY", "ANYLIC" */
    char *policy_type;          /* "PERPETUAL", "INDEFINITE", "FLOATING" or NULL */
    char *product_name;
    char *product_version;
    char *machine_id;
    char *owner_name;
    char *owner_company;        /* may be NULL */
    char *issued_at;            /* ISO 8601, UTC */
    char *expires_at;           /* ISO 8601, NULL: the file never expires */
    char *borrowed_until;       /* ISO 8601 when the seat is borrowed, else NULL */
    char **features;            /* feature names, feature_count of them */
    size_t feature_count;
    char *payload_json;         /* the whole verified payload, for fields not listed here */
} lc_status;

/** Initialises libcurl; call once at program start, before threads. Returns 0 on success. */
LC_API int lc_global_init(void);
LC_API void lc_global_cleanup(void);

/** A client, or NULL with a reason in error (which may be NULL) when the options are unusable. */
LC_API lc_client *lc_client_new(const lc_options *options, char *error, size_t error_size);
LC_API void lc_client_free(lc_client *client);

/** The license now: the stored file while no refresh is due, else asks the server. Returns status->valid. */
LC_API int lc_check(lc_client *client, lc_status *status);
/** Asks the server now, whatever the stored file says. */
LC_API int lc_refresh(lc_client *client, lc_status *status);
/** A .lic or .json file a person brought (an offline machine): kept when it verifies and fits. */
LC_API int lc_import_file(lc_client *client, const char *text, lc_status *status);
/** Frees a floating seat (DELETE) and forgets this machine's stored file. 0 on success. */
LC_API int lc_release(lc_client *client, char *error, size_t error_size);
LC_API int lc_has_feature(const lc_status *status, const char *feature);

/*
 * Desktop sign-in of named users (DESIGN.md section 6f; the OAuth 2.0 Device Authorization Grant,
 * RFC 8628). lc_sign_in asks the server for a code, hands it to on_code at once (show the person
 * user_code and verification_uri, or open verification_uri_complete in the browser), then polls until
 * the person approves on the portal's /device page. The token is kept in the store folder (file
 * "desktop-token", mode 0600), and every later license request of this client carries it as
 * "Authorization: Bearer"; the seat's license file is fetched at once. Returns status->valid;
 * failures: LC_SIGNIN_DENIED, LC_SIGNIN_EXPIRED, LC_UNREACHABLE, or the server's refusal of the file.
 */
typedef struct {
    const char *user_code;                 /* "ABCD-EFGH" */
    const char *verification_uri;          /* ".../device" */
    const char *verification_uri_complete; /* ".../device?code=ABCD-EFGH" */
    long expires_in;                       /* seconds the code is good for */
    long interval;                         /* seconds between polls */
} lc_sign_in_code;
typedef void (*lc_sign_in_code_callback)(const lc_sign_in_code *code, void *context);
/* Asked about once a second while waiting: 0 stops the sign-in (LC_SIGNIN_EXPIRED). */
typedef int (*lc_sign_in_keep_waiting)(void *context);
/** on_code is required; keep_waiting may be NULL (wait until approved, denied or expired). Blocks. */
LC_API int lc_sign_in(lc_client *client, lc_sign_in_code_callback on_code, lc_sign_in_keep_waiting keep_waiting, void *context, lc_status *status);
/** 1 while the store holds a sign-in token. */
LC_API int lc_signed_in(const lc_client *client);
/**
 * Signs out: DELETE /api/client/v1/device/token with the token, then the token and the seat's fetched
 * file are deleted from the store. 0 when signed out, 1 when there was no token, -1 when the server
 * could not be told (the store forgets the sign-in all the same; revoke it under Security).
 */
LC_API int lc_sign_out(lc_client *client, char *error, size_t error_size);

/* What lc_feature_value found (DESIGN.md section 6g). */
#define LC_FEATURE_ABSENT 0
#define LC_FEATURE_FLAG 1    /* the feature, without a value */
#define LC_FEATURE_INTEGER 2 /* its value in *number */
#define LC_FEATURE_TEXT 3    /* its value copied into text (cut to text_size - 1 bytes) */
/** A feature's value in a valid status; number and text may be NULL. */
LC_API int lc_feature_value(const lc_status *status, const char *feature, long long *number, char *text, size_t text_size);
/** A metadata value of the license, copied into out: 1 when the key is there, else 0. */
LC_API int lc_metadata(const lc_status *status, const char *key, char *out, size_t out_size);
LC_API void lc_status_free(lc_status *status);

/**
 * Verifies a license file (.lic or .json text) against pinned keys (the JSON of GET
 * /api/client/v1/keys). Returns 0 and the payload JSON in *payload_json (free() it), or -1.
 */
LC_API int lc_verify_license_file(const char *text, const char *public_keys, char **payload_json, char *error, size_t error_size);

/** The ETag the server gives a file: "lm1-<issuedAt ms base 36>-<SHA-256 of enc, base64url, 22>". */
LC_API int lc_license_file_tag(const char *text, char *tag, size_t tag_size);

/**
 * A stable machine id for a product: the first 32 hex digits (upper case) of SHA-256 over
 * "<product>:<the operating system's machine id>" (Linux /etc/machine-id, Windows MachineGuid, macOS
 * IOPlatformUUID), the same id every client of the License Manager gives; the raw id never leaves
 * the machine. out must hold 33 bytes. Returns 0, or -1 when the system has no machine id.
 */
LC_API int lc_machine_fingerprint(const char *product, char *out, size_t out_size, char *error, size_t error_size);

/**
 * Where desktop software keeps its license files: the "licenses" folder in the application's data
 * folder (Windows %APPDATA%\<app>\licenses, macOS ~/Library/Application Support/<app>/licenses,
 * Linux $XDG_CONFIG_HOME/<app>/licenses or ~/.config/<app>/licenses). Returns 0, or -1 when out is
 * too small or no home folder is known.
 */
LC_API int lc_default_store_dir(const char *app_name, char *out, size_t out_size);

/*
 * The install key (DESIGN.md section 6h): an Ed25519 key pair made on first use in the store folder
 * (file "install-key", mode 0600), the identity of this installation; only its public key leaves the
 * machine, inside request files. Request files and deactivation proofs are returned malloc'd.
 */
typedef struct {
    char public_key[128]; /* SPKI DER, base64 */
    char key_id[65];      /* SHA-256 hex of the SPKI bytes: a bound file's installKeyId */
    void *pkey;
} lc_install_key;

LC_API int lc_install_key_load(const char *store_dir, lc_install_key *key, char *error, size_t error_size);
LC_API void lc_install_key_free(lc_install_key *key);
LC_API char *lc_license_request(const lc_install_key *key, const char *product, const char *version, const char *machine_id);
LC_API char *lc_deactivation_proof(const lc_install_key *key, long long license_id, const char *machine_id, const char *file_issued_at);

/*
 * Updates (DESIGN.md section 6i): lc_check_for_update asks the server (POST /api/client/v1/updates)
 * which newer release this machine's license may have and believes the answer only when it is signed
 * by a pinned key; lc_download_update fetches one of its files through the signed link and keeps it
 * only once its size, SHA-256 and the server's signature over "artifact/" + SHA-256 are right.
 */
typedef struct {
    const char *server_url;
    const char *product;
    const char *version;        /* the running version (semver), required */
    const char *machine_id;
    const char *public_keys;    /* the JSON of GET /api/client/v1/keys, pinned in the software */
    const char *platform;       /* "windows", "macos", "linux" or "any" */
    const char *arch;           /* "x86_64", "arm64" or "any" */
    const char *channel;        /* "stable" (NULL) or "beta" */
    long request_timeout_ms;    /* 0: 15000 (for the download: to connect) */
} lc_update_options;

/** One file of a release (all strings as the server sent them). */
typedef struct {
    char *platform, *arch;
    char *filename;             /* kept as its last path component */
    long long size;             /* bytes */
    char *sha256;               /* hex */
    char *sig;                  /* base64 Ed25519 over "artifact/" + sha256, by the key kid */
    char *kid;
    char *url;                  /* the signed, short-lived download link */
    char *url_expires_at;       /* ISO 8601 */
} lc_update_artifact;

/** A verified updates answer. Release it with lc_update_info_free. */
typedef struct {
    /* The newest release newer than the running version that the license may have, with its files
       for this platform: latest_version NULL when there is none. */
    char *latest_version;
    char *latest_released_at;
    char *latest_notes_json;    /* the release notes, {"en":"Markdown",...} */
    lc_update_artifact *artifacts;
    size_t artifact_count;
    /* The newest release the license may not have, and why: newer_version NULL when there is none. */
    char *newer_version;
    char *newer_released_at;
    char *newer_reason;         /* "free-updates-ended", "beta-not-allowed", ... */
    char *issued_at;
    char *payload_json;         /* the whole verified payload */
} lc_update_info;

/** Why an updates call failed: the server's code ("ERR_NO_LICENSE", ...), "BAD_SIGNATURE",
    "SIZE_MISMATCH", "CHECKSUM_MISMATCH", "UNREACHABLE", "HTTP_<status>", "MALFORMED",
    "BAD_FILENAME", "INVALID_KEYS", "WRITE_FAILED" or "INVALID_OPTIONS"; and a sentence. */
typedef struct {
    char code[64];
    char message[512];
} lc_update_error;

/** Asks the server for updates. 0 and *info (free it), or -1 with *error (error may be NULL). */
LC_API int lc_check_for_update(const lc_update_options *options, lc_update_info *info, lc_update_error *error);
LC_API void lc_update_info_free(lc_update_info *info);
/**
 * Downloads one file of an update into target_dir (which must exist), streamed to a temporary file
 * there while hashed, and renamed to the last part of its filename only when its signature, size
 * and SHA-256 are right; nothing is kept otherwise. 0 and the file's path in path (may be NULL), or
 * -1 with *error.
 */
LC_API int lc_download_update(const lc_update_artifact *artifact, const char *public_keys, const char *target_dir, char *path, size_t path_size,
                              lc_update_error *error);

#ifdef __cplusplus
}
#endif

#endif
