/* The licensing client: the same behaviour as packages/sdk (client.ts), plus trusted time. */
#include "license_client.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#ifdef _WIN32
#include <windows.h>
#endif

#define FETCHED_FILE "license.json"
/* The highest server time token seen (verified again at every read, so editing it gains nothing). */
#define SERVER_TIME_FILE "server-time"
/* The stored file the server last confirmed (304) and when: refreshes count from then. */
#define CONFIRMED_FILE "confirmed.state"
/* A clock set back that the server was not told of yet: sent as clockTamperedAt with the next request. */
#define CLOCK_TAMPERED_FILE "clock-tampered"
#define HOUR_MS 3600000LL

struct lc_client {
    char *server_url, *product, *version, *machine_id, *store_dir, *install_key_id;
    lc_keys keys;
    int borrow_days;
    long timeout_ms;
    long long tolerance_ms;
    long long (*now_ms)(void *);
    void (*sleep_ms)(long long, void *);
    void *now_context;
    long long trusted;      /* the highest verified server time known, ms; 0: none */
};

typedef struct {
    lc_payload payload;
    char *name;
    int expired;
} candidate;

typedef struct {
    candidate *items;       /* usable ones first, best first; then expired ones */
    size_t count, usable;
    int invalid;            /* files that did not verify */
} stored_files;

static const struct { const char *code; lc_reason reason; } SERVER_REASONS[] = {
    {"ERR_NO_LICENSE", LC_NO_LICENSE},     {"ERR_LICENSE_REVOKED", LC_REVOKED}, {"ERR_LICENSE_SUSPENDED", LC_SUSPENDED},
    {"ERR_LICENSE_EXPIRED", LC_EXPIRED},   {"ERR_LICENSE_UPGRADED", LC_UPGRADED}, {"ERR_NO_SEAT", LC_NO_SEAT},
    {"ERR_TOO_MANY_MACHINES", LC_TOO_MANY_MACHINES}, {"ERR_SEAT_UNASSIGNED", LC_SEAT_UNASSIGNED},
};

int lc_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1; }
void lc_global_cleanup(void) { curl_global_cleanup(); }

static long long local_now(lc_client *client) {
    return client->now_ms ? client->now_ms(client->now_context) : (long long)time(NULL) * 1000;
}

/* The time files are judged against: the local clock, unless the server vouched for a later one. */
static long long effective_now(lc_client *client) {
    long long local = local_now(client);
    return client->trusted > local ? client->trusted : local;
}

lc_client *lc_client_new(const lc_options *options, char *error, size_t error_size) {
    lc_client *client;
    size_t n;
    if (!options || !options->server_url || !options->product || !options->machine_id || !options->store_dir || !options->public_keys) {
        lc_set_error(error, error_size, "server_url, product, machine_id, store_dir and public_keys are required");
        return NULL;
    }
    client = calloc(1, sizeof *client);
    if (!client) return NULL;
    if (lc_keys_parse(options->public_keys, &client->keys, error, error_size) != 0) { free(client); return NULL; }
    client->server_url = lc_copy(options->server_url);
    n = strlen(client->server_url);
    while (n > 0 && client->server_url[n - 1] == '/') client->server_url[--n] = 0;
    client->product = lc_copy(options->product);
    client->version = lc_copy(options->version);
    client->machine_id = lc_copy(options->machine_id);
    client->install_key_id = lc_copy(options->install_key_id);
    client->store_dir = lc_copy(options->store_dir);
    client->borrow_days = options->borrow_days;
    client->timeout_ms = options->request_timeout_ms > 0 ? options->request_timeout_ms : 15000;
    client->tolerance_ms = (options->clock_tolerance_hours > 0 ? options->clock_tolerance_hours : 48) * HOUR_MS;
    client->now_ms = options->now_ms;
    client->now_context = options->now_context;
    client->sleep_ms = options->sleep_ms;
    return client;
}

void lc_client_free(lc_client *client) {
    if (!client) return;
    lc_keys_free(&client->keys);
    free(client->server_url);
    free(client->product);
    free(client->version);
    free(client->machine_id);
    free(client->install_key_id);
    free(client->store_dir);
    free(client);
}

static void raise_trusted(lc_client *client, long long ms) {
    if (ms != LC_NEVER && ms > client->trusted) client->trusted = ms;
}

/* Keeps a server time token when it verifies and is the newest seen. */
static void record_server_time(lc_client *client, const char *token) {
    long long ms;
    if (!token || lc_verify_time_token(token, &client->keys, &ms) != 0) return;
    if (ms > client->trusted) {
        client->trusted = ms;
        lc_store_write(client->store_dir, SERVER_TIME_FILE, token);
    }
}

static int fits(const lc_client *client, const lc_payload *payload) {
    /* A file bound to another installation's install key (offline activation) is not ours. */
    if (payload->install_key_id && (!client->install_key_id || strcmp(payload->install_key_id, client->install_key_id) != 0)) return 0;
    return (strcmp(payload->machine_id, client->machine_id) == 0 || lc_is_any_lic(payload)) && strcmp(payload->product, client->product) == 0 &&
           (!client->version || strcmp(payload->version, client->version) == 0);
}

static int is_expired(const lc_payload *payload, long long now) { return payload->expires_at != LC_NEVER && payload->expires_at <= now; }

/* Usable before expired; a machine's own file before ANY-Lic; the longest running; the newest. */
static int compare_candidates(const void *a, const void *b) {
    const candidate *x = a, *y = b;
    if (x->expired != y->expired) return x->expired - y->expired;
    if (lc_is_any_lic(&x->payload) != lc_is_any_lic(&y->payload)) return lc_is_any_lic(&x->payload) - lc_is_any_lic(&y->payload);
    if (x->payload.expires_at != y->payload.expires_at) return x->payload.expires_at > y->payload.expires_at ? -1 : 1;
    if (x->payload.issued_at != y->payload.issued_at) return x->payload.issued_at > y->payload.issued_at ? -1 : 1;
    return 0;
}

static void stored_free(stored_files *stored) {
    size_t i;
    for (i = 0; i < stored->count; i++) { lc_payload_free(&stored->items[i].payload); free(stored->items[i].name); }
    free(stored->items);
    memset(stored, 0, sizeof *stored);
}

/* Reads the store: the trusted time, and the files that verify and fit, sorted. */
static void load(lc_client *client, stored_files *stored) {
    lc_stored_file *files;
    size_t count, i;
    char *token = lc_store_read(client->store_dir, SERVER_TIME_FILE);
    long long now, ms;
    memset(stored, 0, sizeof *stored);
    client->trusted = 0;
    if (token && lc_verify_time_token(token, &client->keys, &ms) == 0) raise_trusted(client, ms);
    free(token);
    if (lc_store_list(client->store_dir, &files, &count) != 0) return;
    stored->items = calloc(count ? count : 1, sizeof *stored->items);
    for (i = 0; stored->items && i < count; i++) {
        candidate *c = &stored->items[stored->count];
        if (lc_verify_file(files[i].text, &client->keys, &c->payload, NULL, 0) != 0) { stored->invalid++; continue; }
        /* Any genuine file proves that its issue time has passed, whichever machine it is for. */
        raise_trusted(client, c->payload.issued_at);
        if (!fits(client, &c->payload)) { lc_payload_free(&c->payload); continue; }
        c->name = files[i].name;
        files[i].name = NULL;
        stored->count++;
    }
    lc_store_files_free(files, count);
    now = effective_now(client);
    for (i = 0; i < stored->count; i++) {
        stored->items[i].expired = is_expired(&stored->items[i].payload, now);
        if (!stored->items[i].expired) stored->usable++;
    }
    if (stored->count) qsort(stored->items, stored->count, sizeof *stored->items, compare_candidates);
}

/* Forgets this machine's files (not ANY-Lic ones): the server's final word, or a release. */
static void forget_machine_files(lc_client *client, stored_files *stored) {
    size_t i;
    for (i = 0; i < stored->count; i++)
        if (!lc_is_any_lic(&stored->items[i].payload)) lc_store_remove(client->store_dir, stored->items[i].name);
    lc_store_remove(client->store_dir, CONFIRMED_FILE);
}

static long long refresh_due(lc_client *client, const lc_payload *p) {
    char *state = lc_store_read(client->store_dir, CONFIRMED_FILE), tag[100];
    long long at, due = lc_refresh_due_at(p);
    if (state && !lc_is_any_lic(p) && sscanf(state, "%99s %lld", tag, &at) == 2 && strcmp(tag, p->tag) == 0) due = lc_refresh_due_after_confirmation(p, at);
    free(state);
    return due;
}

/* A clock behind the trusted time beyond the tolerance, remembered (the first time) until a request reports it. */
static void note_tampering(lc_client *client) {
    char *kept, at[48];
    if (client->trusted - local_now(client) <= client->tolerance_ms) return;
    if ((kept = lc_store_read(client->store_dir, CLOCK_TAMPERED_FILE))) { free(kept); return; }
    lc_format_iso(effective_now(client), at);
    lc_store_write(client->store_dir, CLOCK_TAMPERED_FILE, at);
}

/* The last word on any status: a clock behind the server's vouched time beyond the tolerance. */
static int finish(lc_client *client, lc_status *status) {
    long long local = local_now(client);
    note_tampering(client);
    /* It spoils a valid or an expired verdict (the clock was set back to keep a file alive); the server's
       own refusals (revoked, no seat, ...) stand as they are, like the other clients report them. */
    if (client->trusted - local > client->tolerance_ms && (status->valid || status->reason == LC_EXPIRED)) {
        char trusted[48];
        lc_format_iso(client->trusted, trusted);
        status->valid = 0;
        status->reason = LC_CLOCK_TAMPERED;
        snprintf(status->message, sizeof status->message, "the clock of this computer is %lld hours behind the license server's time (%s): set it right",
                 (client->trusted - local) / HOUR_MS, trusted);
    }
    return status->valid;
}

/* Without a usable stored file: EXPIRED, INVALID_FILE, or the fallback (UNREACHABLE; INVALID_FILE when the server's own file did not verify). */
static int offline_status(lc_client *client, lc_status *status, stored_files *stored, const char *why, lc_reason fallback) {
    char message[512];
    size_t i;
    /* Judged again: the answer may have carried a later server time than the store knew. */
    for (i = 0; i < stored->usable; i++)
        if (!is_expired(&stored->items[i].payload, effective_now(client))) return lc_status_set_valid(status, &stored->items[i].payload, 0, 1);
    if (stored->count) {
        char expired[48];
        lc_format_iso(stored->items[0].payload.expires_at, expired);
        snprintf(message, sizeof message, "the license file expired at %s and %s", expired, why);
        lc_status_set_invalid(status, LC_EXPIRED, message);
    } else if (stored->invalid) {
        snprintf(message, sizeof message, "the stored license file does not verify (altered, or signed with a key not pinned) and %s", why);
        lc_status_set_invalid(status, LC_INVALID_FILE, message);
    } else {
        lc_status_set_invalid(status, fallback, why);
    }
    /* No answer the client could use: offline, unless the server answered with a file that does not verify. */
    status->offline = status->reason != LC_INVALID_FILE || fallback != LC_INVALID_FILE;
    return 0;
}

static char *license_url(lc_client *client) {
    lc_buffer url = {0};
    lc_buffer_append_str(&url, client->server_url);
    lc_buffer_append_str(&url, "/api/client/v1/license");
    return url.data;
}

static int fetch_fresh(lc_client *client, stored_files *stored, lc_status *status) {
    const lc_payload *held = NULL;
    lc_http_answer answer;
    char error[256], message[512], *body, *url, *tampered, *token;
    int result, borrow;
    size_t i, j;
    lc_json *error_body;
    const char *code;
    for (i = 0; i < stored->usable && !held; i++)
        if (!lc_is_any_lic(&stored->items[i].payload)) held = &stored->items[i].payload;
    /* A pending borrow asks for a new file (one that says borrowedUntil), so it sends no If-None-Match. */
    borrow = client->borrow_days > 0 && (!held || held->borrowed_until == LC_NEVER || held->borrowed_until <= effective_now(client));
    /* A clock set back goes with this request, and is forgotten once the server answered it. */
    note_tampering(client);
    if ((tampered = lc_store_read(client->store_dir, CLOCK_TAMPERED_FILE))) tampered[strcspn(tampered, "\r\n")] = 0;
    /* With borrow_days every request asks for the borrow: a refresh of a borrowed file renews it (the
     * server counts borrowedUntil from now), where one without would bring the short floating file. */
    body = lc_license_request_body(client->machine_id, client->product, client->version, client->borrow_days, tampered);
    url = license_url(client);
    /* A desktop sign-in (lc_sign_in): every license request carries its token. */
    token = lc_store_token(client->store_dir);
    result = body && url ? lc_http_auth("POST", url, body, held && !borrow ? held->tag : NULL, token, client->timeout_ms, &answer, error, sizeof error) : -1;
    free(body);
    free(url);
    if (tampered && result == 0 && answer.status < 500) lc_store_remove(client->store_dir, CLOCK_TAMPERED_FILE);
    free(tampered);
    if (token && result == 0 && answer.status == 401) {
        /* The sign-in ended (signed out, revoked under Security, the person removed): its token and file go. */
        free(token);
        lc_store_remove(client->store_dir, LC_TOKEN_FILE);
        record_server_time(client, answer.server_time);
        lc_http_answer_free(&answer);
        forget_machine_files(client, stored);
        for (j = 0; j < stored->usable; j++)
            if (lc_is_any_lic(&stored->items[j].payload)) return lc_status_set_valid(status, &stored->items[j].payload, 0, 0);
        return lc_status_set_invalid(status, LC_SIGNED_OUT, "the desktop sign-in has ended: sign in again");
    }
    free(token);
    if (result != 0) {
        snprintf(message, sizeof message, "the license server cannot be reached (%s)", error);
        return offline_status(client, status, stored, message, LC_UNREACHABLE);
    }
    record_server_time(client, answer.server_time);
    if (answer.status == 304 && held && !borrow) {
        char state[160];
        snprintf(state, sizeof state, "%s %lld\n", held->tag, effective_now(client));
        lc_store_write(client->store_dir, CONFIRMED_FILE, state);
        lc_http_answer_free(&answer);
        return lc_status_set_valid(status, held, 1, 0);
    }
    if (answer.status >= 200 && answer.status < 300 && answer.body) {
        lc_payload fresh;
        if (lc_verify_file(answer.body, &client->keys, &fresh, error, sizeof error) == 0 && fits(client, &fresh)) {
            int kept = lc_store_write(client->store_dir, FETCHED_FILE, answer.body) == 0;
            raise_trusted(client, fresh.issued_at);
            lc_store_remove(client->store_dir, CONFIRMED_FILE);
            lc_status_set_valid(status, &fresh, 1, 0);
            /* A genuine file is valid even where the store cannot keep it; the next start asks again. */
            if (!kept) snprintf(status->message, sizeof status->message, "valid, but the store folder %s cannot be written", client->store_dir);
            lc_payload_free(&fresh);
            lc_http_answer_free(&answer);
            return 1;
        }
        if (fresh.root) snprintf(error, sizeof error, "the server sent a file for another machine or product");
        lc_payload_free(&fresh);
        lc_http_answer_free(&answer);
        snprintf(message, sizeof message, "the server's license file is not valid (%s)", error);
        return offline_status(client, status, stored, message, LC_INVALID_FILE);
    }
    error_body = answer.body ? lc_json_parse(answer.body, strlen(answer.body)) : NULL;
    code = lc_json_string(error_body, "error");
    if (code && strcmp(code, "ERR_BORROW_NOT_ALLOWED") == 0) {
        /* Only the borrow is refused, not the license: the stored files stay, and count again without borrow_days. */
        lc_status_set_invalid(status, LC_BORROW_NOT_ALLOWED, lc_json_string(error_body, "message") ? lc_json_string(error_body, "message") : code);
        lc_json_free(error_body);
        lc_http_answer_free(&answer);
        return 0;
    }
    for (i = 0; code && i < sizeof SERVER_REASONS / sizeof *SERVER_REASONS; i++) {
        if (strcmp(code, SERVER_REASONS[i].code) != 0) continue;
        /* The server's final word: this machine's files no longer count; an ANY-Lic file still does. */
        forget_machine_files(client, stored);
        for (j = 0; j < stored->usable; j++)
            if (lc_is_any_lic(&stored->items[j].payload)) {
                lc_status_set_valid(status, &stored->items[j].payload, 0, 0);
                lc_json_free(error_body);
                lc_http_answer_free(&answer);
                return 1;
            }
        lc_status_set_invalid(status, SERVER_REASONS[i].reason, lc_json_string(error_body, "message") ? lc_json_string(error_body, "message") : code);
        lc_json_free(error_body);
        lc_http_answer_free(&answer);
        return 0;
    }
    snprintf(message, sizeof message, "the license server answered %ld", answer.status);
    lc_json_free(error_body);
    lc_http_answer_free(&answer);
    return offline_status(client, status, stored, message, LC_UNREACHABLE);
}

static int check(lc_client *client, lc_status *status, int force) {
    stored_files stored;
    lc_status_clear(status);
    load(client, &stored);
    if (!force && stored.usable) {
        const lc_payload *best = &stored.items[0].payload;
        long long due = lc_is_any_lic(best) ? LC_NEVER : refresh_due(client, best);
        int borrow_pending = client->borrow_days > 0 && !lc_is_any_lic(best) && (best->borrowed_until == LC_NEVER || best->borrowed_until <= effective_now(client));
        if (!borrow_pending && (due == LC_NEVER || due > effective_now(client))) {
            lc_status_set_valid(status, best, 0, 0);
            stored_free(&stored);
            return finish(client, status);
        }
    }
    fetch_fresh(client, &stored, status);
    stored_free(&stored);
    return finish(client, status);
}

int lc_check(lc_client *client, lc_status *status) { return check(client, status, 0); }
int lc_refresh(lc_client *client, lc_status *status) { return check(client, status, 1); }

int lc_import_file(lc_client *client, const char *text, lc_status *status) {
    stored_files stored;
    lc_payload payload;
    char error[256], message[512];
    lc_status_clear(status);
    load(client, &stored);
    stored_free(&stored);
    if (!text || lc_verify_file(text, &client->keys, &payload, error, sizeof error) != 0) return lc_status_set_invalid(status, LC_INVALID_FILE, text ? error : "no file");
    if (!fits(client, &payload)) {
        snprintf(message, sizeof message, "the file is for %s %s on machine %s", payload.product, payload.version, payload.machine_id);
        lc_payload_free(&payload);
        return lc_status_set_invalid(status, LC_INVALID_FILE, message);
    }
    raise_trusted(client, payload.issued_at);
    if (is_expired(&payload, effective_now(client))) {
        snprintf(message, sizeof message, "the file expired at %s", lc_json_string(payload.root, "expiresAt"));
        lc_payload_free(&payload);
        lc_status_set_invalid(status, LC_EXPIRED, message);
        return finish(client, status);
    }
    if (lc_store_write(client->store_dir, FETCHED_FILE, text) != 0) {
        lc_payload_free(&payload);
        return lc_status_set_invalid(status, LC_INVALID_FILE, "the file could not be written to the store folder");
    }
    lc_store_remove(client->store_dir, CONFIRMED_FILE);
    lc_status_set_valid(status, &payload, 0, 0);
    lc_payload_free(&payload);
    return finish(client, status);
}

int lc_release(lc_client *client, char *error, size_t error_size) {
    stored_files stored;
    lc_http_answer answer;
    char *body = lc_license_request_body(client->machine_id, client->product, client->version, 0, NULL), *url = license_url(client), message[256];
    char *token = lc_store_token(client->store_dir);
    int result = body && url ? lc_http_auth("DELETE", url, body, NULL, token, client->timeout_ms, &answer, message, sizeof message) : -1;
    free(token);
    free(body);
    free(url);
    if (result != 0) { lc_set_error(error, error_size, "the license server cannot be reached (%s)", message); return -1; }
    load(client, &stored);
    record_server_time(client, answer.server_time);
    if ((answer.status >= 200 && answer.status < 300) || answer.status == 404) forget_machine_files(client, &stored);
    else { lc_set_error(error, error_size, "the license server answered %ld", answer.status); result = -1; }
    stored_free(&stored);
    lc_http_answer_free(&answer);
    return result;
}

/* Desktop sign-in (DESIGN.md section 6f, RFC 8628). */

static char *device_url(const char *server_url, const char *path) {
    lc_buffer url = {0};
    size_t n = strlen(server_url);
    while (n > 0 && server_url[n - 1] == '/') n--;
    lc_buffer_append(&url, server_url, n);
    lc_buffer_append_str(&url, path);
    return url.data;
}

/* Waits ms, asking keep_waiting about once a second: 0 when it said stop. */
static int wait_ms(lc_client *client, long long ms, lc_sign_in_keep_waiting keep_waiting, void *context) {
    if (client->sleep_ms) {
        client->sleep_ms(ms, client->now_context);
        return !keep_waiting || keep_waiting(context);
    }
    while (ms > 0) {
        long long step = ms > 1000 ? 1000 : ms;
#ifdef _WIN32
        Sleep((DWORD)step);
#else
        struct timespec pause;
        pause.tv_sec = (time_t)(step / 1000);
        pause.tv_nsec = (long)(step % 1000) * 1000000L;
        while (nanosleep(&pause, &pause) != 0) {}
#endif
        ms -= step;
        if (keep_waiting && !keep_waiting(context)) return 0;
    }
    return 1;
}

static int sign_in_failed(lc_status *status, lc_reason reason, const char *message, int offline) {
    lc_status_set_invalid(status, reason, message);
    status->offline = offline;
    return 0;
}

static void server_refusal(const lc_http_answer *answer, char *message, size_t size, lc_reason *reason) {
    lc_json *body = answer->body ? lc_json_parse(answer->body, strlen(answer->body)) : NULL;
    const char *code = lc_json_string(body, "error"), *text = lc_json_string(body, "message");
    size_t i;
    *reason = LC_UNREACHABLE;
    for (i = 0; code && i < sizeof SERVER_REASONS / sizeof *SERVER_REASONS; i++)
        if (strcmp(code, SERVER_REASONS[i].code) == 0) *reason = SERVER_REASONS[i].reason;
    if (text) snprintf(message, size, "%s", text);
    else snprintf(message, size, "the license server answered %ld", answer->status);
    lc_json_free(body);
}

int lc_sign_in(lc_client *client, lc_sign_in_code_callback on_code, lc_sign_in_keep_waiting keep_waiting, void *context, lc_status *status) {
    lc_buffer body = {0};
    lc_http_answer answer;
    lc_json *grant;
    lc_sign_in_code code;
    char error[256], message[512], *url, *device_code = NULL;
    double number;
    long long interval_ms, expires_ms, waited = 0;
    int result;
    lc_status_clear(status);
    if (!on_code) return sign_in_failed(status, LC_SIGNIN_EXPIRED, "lc_sign_in needs on_code to show the code", 0);
    lc_buffer_append_str(&body, "{\"product\":");
    lc_buffer_append_json_string(&body, client->product);
    lc_buffer_append_str(&body, ",\"machineId\":");
    lc_buffer_append_json_string(&body, client->machine_id);
    if (client->version) {
        lc_buffer_append_str(&body, ",\"version\":");
        lc_buffer_append_json_string(&body, client->version);
    }
    lc_buffer_append_str(&body, "}");
    url = device_url(client->server_url, "/api/client/v1/device/authorize");
    result = body.data && url ? lc_http("POST", url, body.data, NULL, client->timeout_ms, &answer, error, sizeof error) : -1;
    free(body.data);
    free(url);
    if (result != 0) {
        snprintf(message, sizeof message, "the license server cannot be reached (%s)", error);
        return sign_in_failed(status, LC_UNREACHABLE, message, 1);
    }
    if (answer.status < 200 || answer.status > 299) {
        lc_reason reason;
        server_refusal(&answer, message, sizeof message, &reason);
        lc_http_answer_free(&answer);
        return sign_in_failed(status, reason, message, reason == LC_UNREACHABLE);
    }
    grant = answer.body ? lc_json_parse(answer.body, strlen(answer.body)) : NULL;
    memset(&code, 0, sizeof code);
    code.user_code = lc_json_string(grant, "user_code");
    code.verification_uri = lc_json_string(grant, "verification_uri");
    code.verification_uri_complete = lc_json_string(grant, "verification_uri_complete");
    device_code = lc_copy(lc_json_string(grant, "device_code"));
    if (lc_json_number(grant, "expires_in", &number)) code.expires_in = (long)number;
    code.interval = lc_json_number(grant, "interval", &number) && number >= 1 ? (long)number : 5; /* RFC 8628: 5 when absent */
    if (!device_code || !code.user_code || !code.verification_uri || code.expires_in <= 0) {
        free(device_code);
        lc_json_free(grant);
        lc_http_answer_free(&answer);
        return sign_in_failed(status, LC_UNREACHABLE, "the license server's answer is no device authorization", 1);
    }
    if (!code.verification_uri_complete) code.verification_uri_complete = code.verification_uri;
    on_code(&code, context);
    interval_ms = code.interval * 1000LL;
    expires_ms = code.expires_in * 1000LL;
    lc_json_free(grant);
    lc_http_answer_free(&answer);

    memset(&body, 0, sizeof body);
    lc_buffer_append_str(&body, "{\"device_code\":");
    lc_buffer_append_json_string(&body, device_code);
    lc_buffer_append_str(&body, "}");
    free(device_code);
    url = device_url(client->server_url, "/api/client/v1/device/token");
    for (;;) {
        lc_json *reply;
        const char *grant_error, *token;
        if (!wait_ms(client, interval_ms, keep_waiting, context)) { result = sign_in_failed(status, LC_SIGNIN_EXPIRED, "the sign-in was cancelled", 0); break; }
        waited += interval_ms;
        if (!body.data || !url) { result = sign_in_failed(status, LC_UNREACHABLE, "out of memory", 0); break; }
        /* Not reached, or a server error: the code is good until it expires, so poll on. */
        if (lc_http("POST", url, body.data, NULL, client->timeout_ms, &answer, error, sizeof error) != 0 || answer.status >= 500) {
            lc_http_answer_free(&answer);
            if (waited >= expires_ms) { result = sign_in_failed(status, LC_SIGNIN_EXPIRED, "the sign-in code expired before the server could be reached", 1); break; }
            continue;
        }
        reply = answer.body ? lc_json_parse(answer.body, strlen(answer.body)) : NULL;
        token = lc_json_string(reply, "access_token");
        grant_error = lc_json_string(reply, "error");
        if (answer.status >= 200 && answer.status < 300 && token) {
            int kept = lc_store_write_private(client->store_dir, LC_TOKEN_FILE, token) == 0;
            lc_json_free(reply);
            lc_http_answer_free(&answer);
            if (!kept) {
                snprintf(message, sizeof message, "signed in, but the token cannot be kept in the store folder %s", client->store_dir);
                result = sign_in_failed(status, LC_INVALID_FILE, message, 0);
                break;
            }
            /* Signed in: the seat's file at once, with the token. */
            result = lc_refresh(client, status);
            break;
        }
        if (answer.status == 429 || (grant_error && strcmp(grant_error, "slow_down") == 0)) {
            interval_ms += 5000; /* RFC 8628 section 3.5 */
        } else if (grant_error && strcmp(grant_error, "access_denied") == 0) {
            result = sign_in_failed(status, LC_SIGNIN_DENIED, "the sign-in was denied", 0);
        } else if (grant_error && strcmp(grant_error, "expired_token") == 0) {
            result = sign_in_failed(status, LC_SIGNIN_EXPIRED, "the sign-in code expired before it was approved: sign in again", 0);
        } else if (!grant_error || strcmp(grant_error, "authorization_pending") != 0) {
            snprintf(message, sizeof message, "the sign-in failed (the license server answered %ld%s%s)", answer.status, grant_error ? " " : "", grant_error ? grant_error : "");
            result = sign_in_failed(status, LC_SIGNIN_EXPIRED, message, 0);
        } else if (waited >= expires_ms) {
            result = sign_in_failed(status, LC_SIGNIN_EXPIRED, "the sign-in code expired before it was approved: sign in again", 0);
        } else {
            result = -1;
        }
        lc_json_free(reply);
        lc_http_answer_free(&answer);
        if (result != -1) break;
    }
    free(body.data);
    free(url);
    return result;
}

int lc_signed_in(const lc_client *client) {
    char *token = lc_store_token(client->store_dir);
    free(token);
    return token != NULL;
}

int lc_sign_out_store(const char *server_url, const char *store_dir, long timeout_ms, char *error, size_t size) {
    lc_http_answer answer;
    char message[256], *url, *token = lc_store_token(store_dir);
    int result;
    if (!token) { lc_set_error(error, size, "not signed in"); return 1; }
    url = device_url(server_url, "/api/client/v1/device/token");
    result = url ? lc_http_auth("DELETE", url, NULL, NULL, token, timeout_ms > 0 ? timeout_ms : 15000, &answer, message, sizeof message) : -1;
    free(url);
    free(token);
    /* The token, and the file the sign-in fetched, go in any case (as in the other clients): the person
     * asked to be signed out here. When the server was not told, -1 says so. */
    lc_store_remove(store_dir, LC_TOKEN_FILE);
    lc_store_remove(store_dir, FETCHED_FILE);
    lc_store_remove(store_dir, CONFIRMED_FILE);
    if (result != 0) {
        lc_set_error(error, size, "signed out here, but the license server cannot be reached (%s): revoke the sign-in under Security", message);
        return -1;
    }
    /* 401: the token no longer works anyway (revoked elsewhere). */
    if ((answer.status < 200 || answer.status > 299) && answer.status != 401) {
        lc_set_error(error, size, "signed out here, but the license server answered %ld: revoke the sign-in under Security", answer.status);
        lc_http_answer_free(&answer);
        return -1;
    }
    lc_http_answer_free(&answer);
    return 0;
}

int lc_sign_out(lc_client *client, char *error, size_t error_size) {
    return lc_sign_out_store(client->server_url, client->store_dir, client->timeout_ms, error, error_size);
}
