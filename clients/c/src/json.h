/* A small JSON reader and writer helper: the payloads, key lists and error bodies of the license
 * server are all this client reads. Not part of the public API. */
#ifndef LC_JSON_H
#define LC_JSON_H

#include <stddef.h>

typedef enum { LC_JSON_NULL, LC_JSON_BOOL, LC_JSON_NUMBER, LC_JSON_STRING, LC_JSON_ARRAY, LC_JSON_OBJECT } lc_json_type;

typedef struct lc_json {
    lc_json_type type;
    int boolean;
    double number;
    char *string;            /* LC_JSON_STRING: UTF-8, NUL-terminated */
    size_t length;           /* items of an array or members of an object */
    struct lc_json **items;  /* values */
    char **keys;             /* LC_JSON_OBJECT: the member names */
} lc_json;

/* NULL when the text is not exactly one JSON value (surrounding whitespace allowed). */
lc_json *lc_json_parse(const char *text, size_t length);
void lc_json_free(lc_json *value);

/* A member of an object, NULL when absent or when value is no object. */
const lc_json *lc_json_get(const lc_json *object, const char *key);
/* The member's string, or NULL when it is absent or not a string. */
const char *lc_json_string(const lc_json *object, const char *key);
/* 1 and the number in *out when the member is a number. */
int lc_json_number(const lc_json *object, const char *key, double *out);

/* Appends text as a JSON string literal (quotes included) to a growing buffer. */
typedef struct { char *data; size_t length, capacity; int failed; } lc_buffer;
void lc_buffer_append(lc_buffer *buffer, const char *bytes, size_t length);
void lc_buffer_append_str(lc_buffer *buffer, const char *text);
void lc_buffer_append_json_string(lc_buffer *buffer, const char *text);

#endif
