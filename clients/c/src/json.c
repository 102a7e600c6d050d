#include "json.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
    const char *at;
    const char *end;
} reader;

static void skip_space(reader *r) {
    while (r->at < r->end && (*r->at == ' ' || *r->at == '\t' || *r->at == '\n' || *r->at == '\r')) r->at++;
}

static lc_json *new_value(lc_json_type type) {
    lc_json *value = calloc(1, sizeof *value);
    if (value) value->type = type;
    return value;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int read_hex4(reader *r, unsigned *out) {
    unsigned code = 0;
    int i;
    if (r->end - r->at < 4) return 0;
    for (i = 0; i < 4; i++) {
        int digit = hex_digit(r->at[i]);
        if (digit < 0) return 0;
        code = code * 16 + (unsigned)digit;
    }
    r->at += 4;
    *out = code;
    return 1;
}

static void put_utf8(lc_buffer *b, unsigned code) {
    char bytes[4];
    size_t n;
    if (code < 0x80) { bytes[0] = (char)code; n = 1; }
    else if (code < 0x800) { bytes[0] = (char)(0xC0 | (code >> 6)); bytes[1] = (char)(0x80 | (code & 0x3F)); n = 2; }
    else if (code < 0x10000) { bytes[0] = (char)(0xE0 | (code >> 12)); bytes[1] = (char)(0x80 | ((code >> 6) & 0x3F)); bytes[2] = (char)(0x80 | (code & 0x3F)); n = 3; }
    else { bytes[0] = (char)(0xF0 | (code >> 18)); bytes[1] = (char)(0x80 | ((code >> 12) & 0x3F)); bytes[2] = (char)(0x80 | ((code >> 6) & 0x3F)); bytes[3] = (char)(0x80 | (code & 0x3F)); n = 4; }
    lc_buffer_append(b, bytes, n);
}

static char *read_string(reader *r) {
    lc_buffer b = {0};
    if (r->at >= r->end || *r->at != '"') return NULL;
    r->at++;
    while (r->at < r->end && *r->at != '"') {
        unsigned char c = (unsigned char)*r->at;
        if (c < 0x20) goto fail;
        if (c != '\\') { lc_buffer_append(&b, r->at, 1); r->at++; continue; }
        r->at++;
        if (r->at >= r->end) goto fail;
        c = (unsigned char)*r->at++;
        switch (c) {
        case '"': lc_buffer_append(&b, "\"", 1); break;
        case '\\': lc_buffer_append(&b, "\\", 1); break;
        case '/': lc_buffer_append(&b, "/", 1); break;
        case 'b': lc_buffer_append(&b, "\b", 1); break;
        case 'f': lc_buffer_append(&b, "\f", 1); break;
        case 'n': lc_buffer_append(&b, "\n", 1); break;
        case 'r': lc_buffer_append(&b, "\r", 1); break;
        case 't': lc_buffer_append(&b, "\t", 1); break;
        case 'u': {
            unsigned code, low;
            if (!read_hex4(r, &code)) goto fail;
            if (code >= 0xD800 && code <= 0xDBFF) {
                if (r->end - r->at < 6 || r->at[0] != '\\' || r->at[1] != 'u') goto fail;
                r->at += 2;
                if (!read_hex4(r, &low) || low < 0xDC00 || low > 0xDFFF) goto fail;
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            } else if (code >= 0xDC00 && code <= 0xDFFF) {
                goto fail;
            }
            put_utf8(&b, code);
            break;
        }
        default: goto fail;
        }
    }
    if (r->at >= r->end) goto fail;
    r->at++;
    lc_buffer_append(&b, "", 1); /* the terminating NUL */
    if (b.failed) goto fail;
    return b.data;
fail:
    free(b.data);
    return NULL;
}

static lc_json *read_value(reader *r, int depth);

static int push(lc_json *container, lc_json *item, char *key) {
    lc_json **items = realloc(container->items, (container->length + 1) * sizeof *items);
    if (!items) return 0;
    container->items = items;
    if (container->type == LC_JSON_OBJECT) {
        char **keys = realloc(container->keys, (container->length + 1) * sizeof *keys);
        if (!keys) return 0;
        container->keys = keys;
        keys[container->length] = key;
    }
    items[container->length++] = item;
    return 1;
}

static lc_json *read_container(reader *r, int depth, int object) {
    lc_json *value = new_value(object ? LC_JSON_OBJECT : LC_JSON_ARRAY);
    char close = object ? '}' : ']';
    if (!value) return NULL;
    r->at++;
    skip_space(r);
    if (r->at < r->end && *r->at == close) { r->at++; return value; }
    for (;;) {
        char *key = NULL;
        lc_json *item;
        skip_space(r);
        if (object) {
            key = read_string(r);
            if (!key) goto fail;
            skip_space(r);
            if (r->at >= r->end || *r->at != ':') { free(key); goto fail; }
            r->at++;
        }
        item = read_value(r, depth + 1);
        if (!item || !push(value, item, key)) { free(key); lc_json_free(item); goto fail; }
        skip_space(r);
        if (r->at < r->end && *r->at == ',') { r->at++; continue; }
        if (r->at < r->end && *r->at == close) { r->at++; return value; }
        goto fail;
    }
fail:
    lc_json_free(value);
    return NULL;
}

static lc_json *read_number(reader *r) {
    double whole = 0, fraction = 0, scale = 1;
    int negative = 0, exponent = 0, exponent_negative = 0;
    lc_json *value;
    /* Parsed by hand: strtod follows the program's locale, and a C++ program may have set one with a decimal comma. */
    if (r->at < r->end && *r->at == '-') { negative = 1; r->at++; }
    if (r->at >= r->end || *r->at < '0' || *r->at > '9') return NULL;
    if (*r->at == '0') r->at++;
    else while (r->at < r->end && *r->at >= '0' && *r->at <= '9') whole = whole * 10 + (*r->at++ - '0');
    if (r->at < r->end && *r->at == '.') {
        r->at++;
        if (r->at >= r->end || *r->at < '0' || *r->at > '9') return NULL;
        while (r->at < r->end && *r->at >= '0' && *r->at <= '9') { scale /= 10; fraction += (*r->at++ - '0') * scale; }
    }
    if (r->at < r->end && (*r->at == 'e' || *r->at == 'E')) {
        r->at++;
        if (r->at < r->end && (*r->at == '+' || *r->at == '-')) exponent_negative = *r->at++ == '-';
        if (r->at >= r->end || *r->at < '0' || *r->at > '9') return NULL;
        while (r->at < r->end && *r->at >= '0' && *r->at <= '9') { if (exponent < 400) exponent = exponent * 10 + (*r->at - '0'); r->at++; }
    }
    value = new_value(LC_JSON_NUMBER);
    if (!value) return NULL;
    value->number = whole + fraction;
    while (exponent-- > 0) value->number = exponent_negative ? value->number / 10 : value->number * 10;
    if (negative) value->number = -value->number;
    return value;
}

static int read_word(reader *r, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(r->end - r->at) < n || memcmp(r->at, word, n) != 0) return 0;
    r->at += n;
    return 1;
}

static lc_json *read_value(reader *r, int depth) {
    lc_json *value;
    if (depth > MAX_DEPTH) return NULL;
    skip_space(r);
    if (r->at >= r->end) return NULL;
    switch (*r->at) {
    case '{': return read_container(r, depth, 1);
    case '[': return read_container(r, depth, 0);
    case '"': {
        char *s = read_string(r);
        if (!s) return NULL;
        value = new_value(LC_JSON_STRING);
        if (!value) { free(s); return NULL; }
        value->string = s;
        return value;
    }
    case 't':
        if (!read_word(r, "true")) return NULL;
        value = new_value(LC_JSON_BOOL);
        if (value) value->boolean = 1;
        return value;
    case 'f':
        if (!read_word(r, "false")) return NULL;
        return new_value(LC_JSON_BOOL);
    case 'n':
        if (!read_word(r, "null")) return NULL;
        return new_value(LC_JSON_NULL);
    default:
        return read_number(r);
    }
}

lc_json *lc_json_parse(const char *text, size_t length) {
    reader r;
    lc_json *value;
    if (!text) return NULL;
    r.at = text;
    r.end = text + length;
    value = read_value(&r, 0);
    if (!value) return NULL;
    skip_space(&r);
    if (r.at != r.end) { lc_json_free(value); return NULL; }
    return value;
}

void lc_json_free(lc_json *value) {
    size_t i;
    if (!value) return;
    for (i = 0; i < value->length; i++) {
        lc_json_free(value->items[i]);
        if (value->keys) free(value->keys[i]);
    }
    free(value->items);
    free(value->keys);
    free(value->string);
    free(value);
}

const lc_json *lc_json_get(const lc_json *object, const char *key) {
    size_t i;
    if (!object || object->type != LC_JSON_OBJECT) return NULL;
    for (i = 0; i < object->length; i++)
        if (strcmp(object->keys[i], key) == 0) return object->items[i];
    return NULL;
}

const char *lc_json_string(const lc_json *object, const char *key) {
    const lc_json *value = lc_json_get(object, key);
    return value && value->type == LC_JSON_STRING ? value->string : NULL;
}

int lc_json_number(const lc_json *object, const char *key, double *out) {
    const lc_json *value = lc_json_get(object, key);
    if (!value || value->type != LC_JSON_NUMBER) return 0;
    *out = value->number;
    return 1;
}

void lc_buffer_append(lc_buffer *buffer, const char *bytes, size_t length) {
    if (buffer->failed) return;
    if (buffer->length + length + 1 > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 64;
        char *data;
        while (capacity < buffer->length + length + 1) capacity *= 2;
        data = realloc(buffer->data, capacity);
        if (!data) { buffer->failed = 1; return; }
        buffer->data = data;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, bytes, length);
    buffer->length += length;
    buffer->data[buffer->length] = '\0';
}

void lc_buffer_append_str(lc_buffer *buffer, const char *text) {
    lc_buffer_append(buffer, text, strlen(text));
}

void lc_buffer_append_json_string(lc_buffer *buffer, const char *text) {
    static const char hex[] = "0123456789abcdef";
    lc_buffer_append(buffer, "\"", 1);
    for (; *text; text++) {
        unsigned char c = (unsigned char)*text;
        if (c == '"' || c == '\\') { char escaped[2] = {'\\', (char)c}; lc_buffer_append(buffer, escaped, 2); }
        else if (c < 0x20) { char escaped[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]}; lc_buffer_append(buffer, escaped, 6); }
        else lc_buffer_append(buffer, (const char *)&c, 1);
    }
    lc_buffer_append(buffer, "\"", 1);
}
