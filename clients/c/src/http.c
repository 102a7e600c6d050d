/* One call of the desktop protocol over libcurl. */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    lc_buffer *body = context;
    lc_buffer_append(body, data, size * count);
    return body->failed ? 0 : size * count;
}

static size_t on_header(char *data, size_t size, size_t count, void *context) {
    static const char name[] = "license-server-time:";
    char **server_time = context;
    size_t length = size * count, i, n = sizeof name - 1;
    if (length > n) {
        for (i = 0; i < n; i++) if (tolower((unsigned char)data[i]) != name[i]) return length;
        data += n;
        length -= n;
        while (length && (*data == ' ' || *data == '\t')) { data++; length--; }
        while (length && (data[length - 1] == '\r' || data[length - 1] == '\n' || data[length - 1] == ' ')) length--;
        free(*server_time);
        *server_time = malloc(length + 1);
        if (*server_time) { memcpy(*server_time, data, length); (*server_time)[length] = 0; }
    }
    return size * count;
}

int lc_http(const char *method, const char *url, const char *body, const char *if_none_match, long timeout_ms, lc_http_answer *answer, char *error, size_t size) {
    return lc_http_auth(method, url, body, if_none_match, NULL, timeout_ms, answer, error, size);
}

int lc_http_auth(const char *method, const char *url, const char *body, const char *if_none_match, const char *bearer, long timeout_ms, lc_http_answer *answer,
                 char *error, size_t size) {
    CURL *curl = curl_easy_init();
    struct curl_slist *headers = NULL;
    lc_buffer received = {0};
    char condition[160], authorization[300];
    CURLcode code;
    memset(answer, 0, sizeof *answer);
    if (!curl) { lc_set_error(error, size, "libcurl could not start"); return -1; }
    /* A request without a body says no Content-Type (the server refuses an empty JSON body). */
    if (body) headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Accept: application/json");
    if (if_none_match && strlen(if_none_match) < 120) {
        strcpy(condition, "If-None-Match: ");
        strcat(condition, if_none_match);
        headers = curl_slist_append(headers, condition);
    }
    if (bearer && strlen(bearer) < 256) {
        snprintf(authorization, sizeof authorization, "Authorization: Bearer %s", bearer);
        headers = curl_slist_append(headers, authorization);
    }
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    if (body) curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &received);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &answer->server_time);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "license-client-c/" "1.0.0");
    code = curl_easy_perform(curl);
    if (code == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer->status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (code != CURLE_OK) {
        free(received.data);
        free(answer->server_time);
        answer->server_time = NULL;
        lc_set_error(error, size, "%s", curl_easy_strerror(code));
        return -1;
    }
    answer->body = received.data;
    return 0;
}

/* A download: only a 2xx body reaches the sink (a redirect's or an error page's body is dropped). */
typedef struct { CURL *curl; lc_http_sink sink; void *context; } stream;

static size_t on_stream(char *data, size_t size, size_t count, void *context) {
    stream *target = context;
    long status = 0;
    curl_easy_getinfo(target->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299) return size * count;
    return target->sink(data, size * count, target->context);
}

int lc_http_get_stream(const char *url, long connect_timeout_ms, lc_http_sink sink, void *context, long *status, char *error, size_t size) {
    stream target;
    CURLcode code;
    *status = 0;
    target.curl = curl_easy_init();
    target.sink = sink;
    target.context = context;
    if (!target.curl) { lc_set_error(error, size, "libcurl could not start"); return -1; }
    curl_easy_setopt(target.curl, CURLOPT_URL, url);
    curl_easy_setopt(target.curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(target.curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(target.curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(target.curl, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(target.curl, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
    /* No limit on the whole (a file may take long), but a transfer stalled for a minute ends. */
    curl_easy_setopt(target.curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(target.curl, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(target.curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(target.curl, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(target.curl, CURLOPT_WRITEDATA, &target);
    curl_easy_setopt(target.curl, CURLOPT_USERAGENT, "license-client-c/" "1.0.0");
    code = curl_easy_perform(target.curl);
    curl_easy_getinfo(target.curl, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(target.curl);
    if (code != CURLE_OK) { lc_set_error(error, size, "%s", curl_easy_strerror(code)); return -1; }
    return 0;
}

void lc_http_answer_free(lc_http_answer *answer) {
    free(answer->body);
    free(answer->server_time);
    memset(answer, 0, sizeof *answer);
}

char *lc_license_request_body(const char *machine_id, const char *product, const char *version, int borrow_days, const char *clock_tampered_at) {
    lc_buffer body = {0};
    char number[48];
    lc_buffer_append_str(&body, "{\"machineId\":");
    lc_buffer_append_json_string(&body, machine_id);
    lc_buffer_append_str(&body, ",\"product\":");
    lc_buffer_append_json_string(&body, product);
    if (version) {
        lc_buffer_append_str(&body, ",\"version\":");
        lc_buffer_append_json_string(&body, version);
    }
    if (borrow_days > 0) {
        snprintf(number, sizeof number, ",\"borrowDays\":%d", borrow_days);
        lc_buffer_append_str(&body, number);
    }
    if (clock_tampered_at) {
        lc_buffer_append_str(&body, ",\"clockTamperedAt\":");
        lc_buffer_append_json_string(&body, clock_tampered_at);
    }
    lc_buffer_append_str(&body, "}");
    return body.data;
}
