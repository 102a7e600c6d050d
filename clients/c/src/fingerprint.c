/* A stable machine id per product, from the operating system's own machine id. */
#include "license_client.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#endif

/* The raw id, trimmed, into out; 0 on success. */
static int system_machine_id(char *out, size_t size, char *error, size_t error_size) {
#if defined(_WIN32)
    DWORD length = (DWORD)size;
    if (RegGetValueA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft\\Cryptography", "MachineGuid", RRF_RT_REG_SZ | RRF_SUBKEY_WOW6464KEY, NULL, out, &length) == ERROR_SUCCESS) return 0;
    lc_set_error(error, error_size, "the registry has no MachineGuid");
    return -1;
#elif defined(__APPLE__)
    FILE *pipe = popen("/usr/sbin/ioreg -rd1 -c IOPlatformExpertDevice", "r");
    char line[512];
    int found = -1;
    while (pipe && fgets(line, sizeof line, pipe)) {
        char *key = strstr(line, "\"IOPlatformUUID\""), *start, *end;
        if (!key || !(start = strchr(key + 16, '"')) || !(end = strchr(start + 1, '"'))) continue;
        if ((size_t)(end - start - 1) >= size) break;
        memcpy(out, start + 1, (size_t)(end - start - 1));
        out[end - start - 1] = 0;
        found = 0;
        break;
    }
    if (pipe) pclose(pipe);
    if (found != 0) lc_set_error(error, error_size, "ioreg gave no IOPlatformUUID");
    return found;
#else
    static const char *const paths[] = {"/etc/machine-id", "/var/lib/dbus/machine-id"};
    size_t i;
    for (i = 0; i < sizeof paths / sizeof *paths; i++) {
        char *text = lc_read_file(paths[i], NULL), *start = text, *end;
        if (!text) continue;
        while (*start == ' ' || *start == '\n' || *start == '\r' || *start == '\t') start++;
        end = start + strlen(start);
        while (end > start && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\r' || end[-1] == '\t')) end--;
        if (end > start && (size_t)(end - start) < size) {
            memcpy(out, start, (size_t)(end - start));
            out[end - start] = 0;
            free(text);
            return 0;
        }
        free(text);
    }
    lc_set_error(error, error_size, "neither /etc/machine-id nor /var/lib/dbus/machine-id holds an id");
    return -1;
#endif
}

int lc_machine_fingerprint(const char *product, char *out, size_t out_size, char *error, size_t error_size) {
    static const char hex[] = "0123456789ABCDEF";
    char raw[256], *text;
    unsigned char digest[32];
    size_t n, i;
    if (!product || !out || out_size < 33) { lc_set_error(error, error_size, "a product name and 33 bytes for the id are needed"); return -1; }
    if (system_machine_id(raw, sizeof raw, error, error_size) != 0) return -1;
    /* The same id as every other client gives: SHA-256 of "<product>:<raw id>", 32 hex digits, upper case. */
    n = strlen(product) + 1 + strlen(raw);
    text = malloc(n + 1);
    if (!text) return -1;
    snprintf(text, n + 1, "%s:%s", product, raw);
    i = lc_sha256(text, n, digest);
    free(text);
    if (i != 0) return -1;
    for (i = 0; i < 16; i++) { out[2 * i] = hex[digest[i] >> 4]; out[2 * i + 1] = hex[digest[i] & 15]; }
    out[32] = 0;
    return 0;
}
