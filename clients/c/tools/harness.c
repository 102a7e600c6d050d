/*
 * The command-line harness of the C client (DESIGN.md section 6d), for the conformance kit and for
 * trying the client from a shell:
 *
 *   harness check --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE
 *                 [--borrow-days N] [--release] [--refresh] [--import FILE]
 *                 [--now ISO-TIME] [--clock-tolerance-hours N]
 *   harness fingerprint --product NAME
 *
 * check prints one JSON line {"valid","reason","licenseId","offline","expiresAt"} (the message why
 * not on stderr) and exits 0 when valid, 1 when not, 2 on wrong usage. The local clock: --now, or
 * LICENSE_HARNESS_CLOCK_OFFSET_SECONDS (seconds added to the system clock, negative to set it back).
 */
#include "license_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Internal helpers reused for the harness's own input and output. */
#include "../src/internal.h"

static void usage(void) {
    fputs("usage: harness check --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE\n"
          "                     [--borrow-days N] [--release] [--refresh] [--import FILE] [--now ISO-TIME] [--clock-tolerance-hours N]\n"
          "       harness fingerprint --product NAME\n",
          stderr);
}

static long long fixed_now(void *context) { return *(long long *)context; }

/* The one JSON line of DESIGN.md 6d on stdout; the message, for people, on stderr. */
static void print_status(const lc_status *status) {
    lc_buffer line = {0};
    char number[48];
    lc_buffer_append_str(&line, status->valid ? "{\"valid\":true,\"reason\":null" : "{\"valid\":false,\"reason\":");
    if (!status->valid) lc_buffer_append_json_string(&line, lc_reason_name(status->reason));
    lc_buffer_append_str(&line, ",\"licenseId\":");
    if (status->valid && status->license_id >= 0) { snprintf(number, sizeof number, "%lld", status->license_id); lc_buffer_append_str(&line, number); }
    else lc_buffer_append_str(&line, "null");
    lc_buffer_append_str(&line, status->offline ? ",\"offline\":true,\"expiresAt\":" : ",\"offline\":false,\"expiresAt\":");
    if (status->valid && status->expires_at) lc_buffer_append_json_string(&line, status->expires_at);
    else lc_buffer_append_str(&line, "null");
    lc_buffer_append_str(&line, "}\n");
    fputs(line.data ? line.data : "{}\n", stdout);
    if (!status->valid) fprintf(stderr, "%s\n", status->message);
    free(line.data);
}

/* The local clock moved by LICENSE_HARNESS_CLOCK_OFFSET_SECONDS (the kit's way to set it back or ahead). */
static long long offset_now(void *context) { return (long long)time(NULL) * 1000 + *(long long *)context; }

int main(int argc, char **argv) {
    lc_options options;
    const char *keys_file = NULL, *import_file = NULL, *now_text = NULL;
    int release = 0, refresh = 0, i, valid;
    long long now;
    char error[512], machine[65];
    lc_client *client;
    lc_status status;
    memset(&options, 0, sizeof options);
    if (argc < 2 || (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "fingerprint") != 0)) { usage(); return 2; }
    for (i = 2; i < argc; i++) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(name, "--release") == 0) { release = 1; continue; }
        if (strcmp(name, "--refresh") == 0) { refresh = 1; continue; }
        if (!value) { fprintf(stderr, "%s needs a value\n", name); usage(); return 2; }
        i++;
        if (strcmp(name, "--server") == 0) options.server_url = value;
        else if (strcmp(name, "--product") == 0) options.product = value;
        else if (strcmp(name, "--version") == 0) options.version = value;
        else if (strcmp(name, "--machine") == 0) options.machine_id = value;
        else if (strcmp(name, "--store") == 0) options.store_dir = value;
        else if (strcmp(name, "--keys") == 0) keys_file = value;
        else if (strcmp(name, "--borrow-days") == 0) options.borrow_days = atoi(value);
        else if (strcmp(name, "--import") == 0) import_file = value;
        else if (strcmp(name, "--now") == 0) now_text = value;
        else if (strcmp(name, "--clock-tolerance-hours") == 0) options.clock_tolerance_hours = atol(value);
        else { fprintf(stderr, "unknown option %s\n", name); usage(); return 2; }
    }
    if (strcmp(argv[1], "fingerprint") == 0) {
        if (!options.product) { usage(); return 2; }
        if (lc_machine_fingerprint(options.product, machine, sizeof machine, error, sizeof error) != 0) { fprintf(stderr, "%s\n", error); return 1; }
        puts(machine);
        return 0;
    }
    if (!options.server_url || !options.product || !options.machine_id || !options.store_dir || !keys_file) { usage(); return 2; }
    if (now_text) {
        if (!lc_parse_iso(now_text, &now)) { fprintf(stderr, "--now takes an ISO 8601 time\n"); return 2; }
        options.now_ms = fixed_now;
        options.now_context = &now;
    } else if (getenv("LICENSE_HARNESS_CLOCK_OFFSET_SECONDS")) {
        now = (long long)(atof(getenv("LICENSE_HARNESS_CLOCK_OFFSET_SECONDS")) * 1000);
        options.now_ms = offset_now;
        options.now_context = &now;
    }
    if (strcmp(options.machine_id, "auto") == 0) {
        if (lc_machine_fingerprint(options.product, machine, sizeof machine, error, sizeof error) != 0) { fprintf(stderr, "--machine auto: %s\n", error); return 2; }
        options.machine_id = machine;
    }
    options.public_keys = lc_read_file(keys_file, NULL);
    if (!options.public_keys) { fprintf(stderr, "cannot read %s\n", keys_file); return 2; }
    lc_global_init();
    client = lc_client_new(&options, error, sizeof error);
    free((char *)options.public_keys);
    if (!client) { fprintf(stderr, "%s\n", error); return 2; }
    if (import_file) {
        char *text = lc_read_file(import_file, NULL);
        if (!text) { fprintf(stderr, "cannot read %s\n", import_file); lc_client_free(client); return 2; }
        valid = lc_import_file(client, text, &status);
        free(text);
    } else {
        valid = refresh ? lc_refresh(client, &status) : lc_check(client, &status);
    }
    if (release && lc_release(client, error, sizeof error) != 0) fprintf(stderr, "release: %s\n", error);
    print_status(&status);
    lc_status_free(&status);
    lc_client_free(client);
    lc_global_cleanup();
    return valid ? 0 : 1;
}
