/* The status a check answers, and its strings. */
#include "license_client.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *lc_reason_name(lc_reason reason) {
    static const char *const names[] = {"VALID", "NO_LICENSE", "REVOKED", "SUSPENDED", "EXPIRED", "UPGRADED", "NO_SEAT", "TOO_MANY_MACHINES", "UNREACHABLE", "INVALID_FILE", "CLOCK_TAMPERED",
                                         "SEAT_UNASSIGNED", "SIGNED_OUT", "SIGNIN_DENIED", "SIGNIN_EXPIRED", "BORROW_NOT_ALLOWED"};
    return (unsigned)reason < sizeof names / sizeof *names ? names[reason] : "UNKNOWN";
}

char *lc_copy(const char *text) {
    char *out;
    if (!text) return NULL;
    out = malloc(strlen(text) + 1);
    if (out) strcpy(out, text);
    return out;
}

void lc_status_clear(lc_status *status) {
    memset(status, 0, sizeof *status);
    status->license_id = -1;
}

int lc_status_set_invalid(lc_status *status, lc_reason reason, const char *message) {
    lc_status_free(status);
    status->reason = reason;
    snprintf(status->message, sizeof status->message, "%s", message);
    return 0;
}

int lc_status_set_valid(lc_status *status, const lc_payload *p, int from_server, int offline) {
    const lc_json *owner = lc_json_get(p->root, "owner"), *features = lc_json_get(p->root, "features");
    size_t i;
    lc_status_free(status);
    status->valid = 1;
    status->reason = LC_VALID;
    status->from_server = from_server;
    status->offline = offline;
    status->license_id = p->license_id;
    status->kind = lc_copy(p->kind);
    status->policy_type = lc_copy(p->policy_type);
    status->product_name = lc_copy(p->product);
    status->product_version = lc_copy(p->version);
    status->machine_id = lc_copy(p->machine_id);
    status->owner_name = lc_copy(lc_json_string(owner, "name"));
    status->owner_company = lc_copy(lc_json_string(owner, "company"));
    status->issued_at = lc_copy(lc_json_string(p->root, "issuedAt"));
    /* The file's own text of the times (the server's), as the other clients report them. */
    if (p->expires_at != LC_NEVER) status->expires_at = lc_copy(lc_json_string(p->root, "expiresAt"));
    if (p->borrowed_until != LC_NEVER) status->borrowed_until = lc_copy(lc_json_string(p->root, "borrowedUntil"));
    if (features && features->type == LC_JSON_ARRAY && features->length) {
        status->features = calloc(features->length, sizeof *status->features);
        for (i = 0; status->features && i < features->length; i++)
            if (features->items[i]->type == LC_JSON_STRING) status->features[status->feature_count++] = lc_copy(features->items[i]->string);
    }
    status->payload_json = lc_copy(p->json);
    snprintf(status->message, sizeof status->message, "%s", offline ? "valid offline: the license server cannot be reached" : "valid");
    return 1;
}

int lc_has_feature(const lc_status *status, const char *feature) {
    size_t i;
    for (i = 0; status && feature && i < status->feature_count; i++)
        if (strcmp(status->features[i], feature) == 0) return 1;
    return 0;
}

int lc_feature_value(const lc_status *status, const char *feature, long long *number, char *text, size_t text_size) {
    lc_json *root;
    const lc_json *entitlements, *value;
    int kind = LC_FEATURE_ABSENT;
    if (!status || !status->valid || !feature || !status->payload_json) return LC_FEATURE_ABSENT;
    root = lc_json_parse(status->payload_json, strlen(status->payload_json));
    entitlements = lc_json_get(root, "entitlements");
    /* A file before entitlements: its features are flags. */
    if (!entitlements) kind = lc_has_feature(status, feature) ? LC_FEATURE_FLAG : LC_FEATURE_ABSENT;
    else if ((value = lc_json_get(entitlements, feature)) != NULL) {
        if (value->type == LC_JSON_NUMBER) {
            if (number) *number = (long long)value->number;
            kind = LC_FEATURE_INTEGER;
        } else if (value->type == LC_JSON_STRING) {
            if (text && text_size) snprintf(text, text_size, "%s", value->string);
            kind = LC_FEATURE_TEXT;
        } else {
            kind = LC_FEATURE_FLAG;
        }
    }
    lc_json_free(root);
    return kind;
}

int lc_metadata(const lc_status *status, const char *key, char *out, size_t out_size) {
    lc_json *root;
    const char *value;
    if (!status || !key || !status->payload_json) return 0;
    root = lc_json_parse(status->payload_json, strlen(status->payload_json));
    value = lc_json_string(lc_json_get(root, "metadata"), key);
    if (value && out && out_size) snprintf(out, out_size, "%s", value);
    lc_json_free(root);
    return value != NULL;
}

void lc_status_free(lc_status *status) {
    size_t i;
    if (!status) return;
    free(status->kind);
    free(status->policy_type);
    free(status->product_name);
    free(status->product_version);
    free(status->machine_id);
    free(status->owner_name);
    free(status->owner_company);
    free(status->issued_at);
    free(status->expires_at);
    free(status->borrowed_until);
    for (i = 0; i < status->feature_count; i++) free(status->features[i]);
    free(status->features);
    free(status->payload_json);
    lc_status_clear(status);
}
