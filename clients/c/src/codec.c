#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

void lc_set_error(char *error, size_t size, const char *format, ...) {
    va_list args;
    if (!error || size == 0) return;
    va_start(args, format);
    vsnprintf(error, size, format, args);
    va_end(args);
}

static int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

int lc_base64_decode(const char *in, size_t length, unsigned char **out, size_t *out_length) {
    size_t i, o = 0, padding = 0;
    unsigned char *bytes;
    if (length % 4 != 0) return -1;
    if (length > 0 && in[length - 1] == '=') padding++;
    if (length > 1 && in[length - 2] == '=') padding++;
    bytes = malloc(length / 4 * 3 + 1);
    if (!bytes) return -1;
    for (i = 0; i < length; i += 4) {
        int v[4], k;
        for (k = 0; k < 4; k++) {
            int last_group = i + 4 == length;
            if (in[i + k] == '=' && last_group && k >= 4 - (int)padding) v[k] = 0;
            else if ((v[k] = base64_value(in[i + k])) < 0) { free(bytes); return -1; }
        }
        bytes[o++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
        if (!(i + 4 == length && padding == 2)) bytes[o++] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
        if (!(i + 4 == length && padding >= 1)) bytes[o++] = (unsigned char)((v[2] & 3) << 6 | v[3]);
    }
    bytes[o] = 0;
    *out = bytes;
    *out_length = o;
    return 0;
}

int lc_sha256(const void *data, size_t length, unsigned char digest[32]) {
    unsigned int size = 32;
    return EVP_Digest(data, length, digest, &size, EVP_sha256(), NULL) == 1 ? 0 : -1;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static long long days_from_civil(long long y, unsigned m, unsigned d) {
    long long era;
    unsigned yoe, doy, doe;
    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

static int digits(const char **p, int count, int *out) {
    int value = 0, i;
    for (i = 0; i < count; i++) {
        if ((*p)[i] < '0' || (*p)[i] > '9') return 0;
        value = value * 10 + ((*p)[i] - '0');
    }
    *p += count;
    *out = value;
    return 1;
}

int lc_parse_iso(const char *text, long long *ms) {
    const char *p = text;
    int year, month, day, hour = 0, minute = 0, second = 0, millis = 0, offset = 0;
    if (!text) return 0;
    if (!digits(&p, 4, &year) || *p++ != '-' || !digits(&p, 2, &month) || *p++ != '-' || !digits(&p, 2, &day)) return 0;
    if (month < 1 || month > 12 || day < 1 || day > 31) return 0;
    if (*p == 'T' || *p == 't' || *p == ' ') {
        p++;
        if (!digits(&p, 2, &hour) || *p++ != ':' || !digits(&p, 2, &minute)) return 0;
        if (*p == ':') { p++; if (!digits(&p, 2, &second)) return 0; }
        if (*p == '.') {
            int scale = 100;
            p++;
            if (*p < '0' || *p > '9') return 0;
            while (*p >= '0' && *p <= '9') { millis += (*p - '0') * scale; scale /= 10; p++; }
        }
        if (*p == 'Z' || *p == 'z') p++;
        else if (*p == '+' || *p == '-') {
            int sign = *p++ == '-' ? -1 : 1, oh, om;
            if (!digits(&p, 2, &oh)) return 0;
            if (*p == ':') p++;
            if (!digits(&p, 2, &om)) return 0;
            offset = sign * (oh * 60 + om);
        } else return 0;
    }
    if (*p) return 0;
    *ms = ((days_from_civil(year, (unsigned)month, (unsigned)day) * 24 + hour) * 60 + minute - offset) * 60000LL + second * 1000LL + millis;
    return 1;
}

void lc_format_iso(long long ms, char out[48]) {
    long long days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
    long long rest = ms - days * 86400000;
    long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long y = (long long)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned d = doy - (153 * mp + 2) / 5 + 1;
    unsigned m = mp < 10 ? mp + 3 : mp - 9;
    y += m <= 2;
    snprintf(out, 48, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ", y, m, d, (int)(rest / 3600000), (int)(rest / 60000 % 60), (int)(rest / 1000 % 60), (int)(rest % 1000));
}
