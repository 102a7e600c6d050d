/*
 * The command-line harness of the C client (DESIGN.md section 6d), for the conformance kit and for
 * trying the client from a shell:
 *
 *   harness check --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE
 *                 [--borrow-days N] [--release] [--refresh] [--import FILE]
 *                 [--now ISO-TIME] [--clock-tolerance-hours N]
 *   harness fingerprint --product NAME
 *   harness request --product NAME [--version V] --machine ID --store DIR --out FILE
 *   harness import --file F --product NAME [--version V] --machine ID --store DIR --keys FILE
 *   harness deactivate --product NAME [--version V] --machine ID --store DIR --keys FILE --out FILE
 *   harness lease --server URL --product NAME [--version V] --key TAN --keys FILE --instance ID [--release]
 *   harness updates --server URL --product NAME --version V --machine ID --keys FILE --platform P --arch A
 *                   [--channel stable|beta] [--out DIR]
 *   harness signin --server URL --product NAME [--version V] --machine ID --store DIR --keys FILE
 *   harness signout --server URL --store DIR
 *
 * check prints one JSON line {"valid","reason","licenseId","offline","expiresAt"} (the message why
 * not on stderr) and exits 0 when valid, 1 when not, 2 on wrong usage. The local clock: --now, or
 * LICENSE_HARNESS_CLOCK_OFFSET_SECONDS (seconds added to the system clock, negative to set it back).
 * updates prints {"latest","newer","reason","file","error"} and exits 0 when done, 1 when refused or
 * not verified (clients/kit/README.md). signin prints the code line
 * {"userCode","verificationUri","verificationUriComplete","expiresIn","interval"} at once, polls until
 * the sign-in is approved (or denied, or expired) and then prints check's line; signout prints
 * {"signedOut":true|false}.
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
          "       harness fingerprint --product NAME\n"
          "       harness request --product NAME [--version V] --machine ID --store DIR --out FILE\n"
          "       harness import --file F --product NAME [--version V] --machine ID --store DIR --keys FILE\n"
          "       harness deactivate --product NAME [--version V] --machine ID --store DIR --keys FILE --out FILE\n"
          "       harness lease --server URL --product NAME [--version V] --key TAN --keys FILE --instance ID [--release]\n"
          "       harness updates --server URL --product NAME --version V --machine ID --keys FILE --platform P --arch A\n"
          "                       [--channel stable|beta] [--out DIR]\n"
          "       harness signin --server URL --product NAME [--version V] --machine ID --store DIR --keys FILE\n"
          "       harness signout --server URL --store DIR\n",
          stderr);
}

static long long fixed_now(void *context) { return *(long long *)context; }

/* Each feature's value through lc_feature_value, and the metadata through lc_metadata (DESIGN.md section 6g). */
static void append_entitlements(lc_buffer *line, const lc_status *status) {
    char text[512], number[48];
    long long value = 0;
    size_t i;
    lc_json *root = lc_json_parse(status->payload_json, strlen(status->payload_json));
    const lc_json *metadata = lc_json_get(root, "metadata");
    lc_buffer_append_str(line, ",\"entitlements\":{");
    for (i = 0; i < status->feature_count; i++) {
        int kind = lc_feature_value(status, status->features[i], &value, text, sizeof text);
        if (i) lc_buffer_append_str(line, ",");
        lc_buffer_append_json_string(line, status->features[i]);
        lc_buffer_append_str(line, ":");
        if (kind == LC_FEATURE_INTEGER) { snprintf(number, sizeof number, "%lld", value); lc_buffer_append_str(line, number); }
        else if (kind == LC_FEATURE_TEXT) lc_buffer_append_json_string(line, text);
        else lc_buffer_append_str(line, kind == LC_FEATURE_FLAG ? "true" : "null");
    }
    lc_buffer_append_str(line, "},\"metadata\":{");
    for (i = 0; metadata && metadata->type == LC_JSON_OBJECT && i < metadata->length; i++) {
        if (!lc_metadata(status, metadata->keys[i], text, sizeof text)) continue;
        if (i) lc_buffer_append_str(line, ",");
        lc_buffer_append_json_string(line, metadata->keys[i]);
        lc_buffer_append_str(line, ":");
        lc_buffer_append_json_string(line, text);
    }
    lc_buffer_append_str(line, "}");
    lc_json_free(root);
}

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
    if (status->valid) append_entitlements(&line, status);
    lc_buffer_append_str(&line, "}\n");
    fputs(line.data ? line.data : "{}\n", stdout);
    if (!status->valid) fprintf(stderr, "%s\n", status->message);
    free(line.data);
}

/* signin's first line, flushed at once: the person approves with it while the harness polls. */
static void print_code(const lc_sign_in_code *code, void *context) {
    lc_buffer line = {0};
    char number[96];
    (void)context;
    lc_buffer_append_str(&line, "{\"userCode\":");
    lc_buffer_append_json_string(&line, code->user_code);
    lc_buffer_append_str(&line, ",\"verificationUri\":");
    lc_buffer_append_json_string(&line, code->verification_uri);
    lc_buffer_append_str(&line, ",\"verificationUriComplete\":");
    lc_buffer_append_json_string(&line, code->verification_uri_complete);
    snprintf(number, sizeof number, ",\"expiresIn\":%ld,\"interval\":%ld}\n", code->expires_in, code->interval);
    lc_buffer_append_str(&line, number);
    fputs(line.data ? line.data : "{}\n", stdout);
    fflush(stdout);
    fprintf(stderr, "Open %s and enter the code %s\n", code->verification_uri, code->user_code);
    free(line.data);
}

/* The local clock moved by LICENSE_HARNESS_CLOCK_OFFSET_SECONDS (the kit's way to set it back or ahead). */
static long long offset_now(void *context) { return (long long)time(NULL) * 1000 + *(long long *)context; }

static int write_text(const char *path, const char *text) {
    FILE *file = fopen(path, "wb");
    if (!file) return -1;
    int ok = fputs(text, file) >= 0;
    return fclose(file) == 0 && ok ? 0 : -1;
}

/* request: the request file; deactivate: the stored file of this installation retired and its proof written. */
static int run_offline(const char *command, const lc_options *options, const char *keys_file, const char *out) {
    char error[512];
    lc_install_key key;
    if (lc_install_key_load(options->store_dir, &key, error, sizeof error) != 0) { fprintf(stderr, "%s\n", error); return 2; }
    int code = 1;
    if (strcmp(command, "request") == 0) {
        char *text = lc_license_request(&key, options->product, options->version, options->machine_id);
        if (text && write_text(out, text) == 0) { printf("{\"written\":\"%s\",\"installKeyId\":\"%s\"}\n", out, key.key_id); code = 0; }
        free(text);
        lc_install_key_free(&key);
        return code;
    }
    char *keys = lc_read_file(keys_file, NULL);
    lc_keys pinned;
    lc_stored_file *files = NULL;
    size_t count = 0;
    if (!keys || lc_keys_parse(keys, &pinned, error, sizeof error) != 0) { free(keys); lc_install_key_free(&key); fprintf(stderr, "cannot read %s\n", keys_file); return 2; }
    lc_store_list(options->store_dir, &files, &count);
    for (size_t i = 0; i < count && code != 0; i++) {
        lc_payload payload;
        if (lc_verify_file(files[i].text, &pinned, &payload, error, sizeof error) != 0) continue;
        if (payload.install_key_id && strcmp(payload.install_key_id, key.key_id) == 0 && strcmp(payload.machine_id, options->machine_id) == 0 &&
            strcmp(payload.product, options->product) == 0 && payload.license_id >= 0) {
            char issued[48];
            lc_format_iso(payload.issued_at, issued);
            char *proof = lc_deactivation_proof(&key, payload.license_id, options->machine_id, issued);
            if (proof && write_text(out, proof) == 0) {
                lc_store_remove(options->store_dir, files[i].name);
                printf("{\"written\":\"%s\",\"installKeyId\":\"%s\",\"licenseId\":%lld}\n", out, key.key_id, payload.license_id);
                code = 0;
            }
            free(proof);
        }
        lc_payload_free(&payload);
    }
    if (code != 0) { fputs("no license file of this installation for this machine and product\n", stderr); printf("{\"written\":null,\"installKeyId\":\"%s\",\"licenseId\":null}\n", key.key_id); }
    lc_store_files_free(files, count);
    lc_keys_free(&pinned);
    free(keys);
    lc_install_key_free(&key);
    return code;
}

/* lease: takes or renews an instance lease with the license key (or ends it with --release). */
static int run_lease(const lc_options *options, const char *license_key, const char *instance, const char *keys_file, int release) {
    char error[512], url[2048];
    lc_buffer body = {0};
    lc_buffer_append_str(&body, "{\"key\":");
    lc_buffer_append_json_string(&body, license_key);
    lc_buffer_append_str(&body, ",\"product\":");
    lc_buffer_append_json_string(&body, options->product);
    lc_buffer_append_str(&body, ",\"instanceId\":");
    lc_buffer_append_json_string(&body, instance);
    if (options->version) { lc_buffer_append_str(&body, ",\"version\":"); lc_buffer_append_json_string(&body, options->version); }
    lc_buffer_append_str(&body, "}");
    snprintf(url, sizeof url, "%s/api/client/v1/lease", options->server_url);
    lc_http_answer answer;
    memset(&answer, 0, sizeof answer);
    lc_global_init();
    int reached = lc_http(release ? "DELETE" : "POST", url, body.data, NULL, 15000, &answer, error, sizeof error) == 0;
    free(body.data);
    const char *reason = "UNREACHABLE";
    int code = 1;
    lc_payload payload;
    memset(&payload, 0, sizeof payload);
    if (reached && release) {
        puts("{\"valid\":false,\"reason\":null,\"licenseId\":null,\"offline\":false,\"expiresAt\":null,\"released\":true}");
        lc_http_answer_free(&answer);
        lc_global_cleanup();
        return 0;
    }
    if (reached && answer.status / 100 == 2) {
        char *keys = lc_read_file(keys_file, NULL);
        lc_keys pinned;
        reason = "INVALID_FILE";
        if (keys && lc_keys_parse(keys, &pinned, error, sizeof error) == 0) {
            if (lc_verify_file(answer.body, &pinned, &payload, error, sizeof error) == 0 && strcmp(payload.machine_id, instance) == 0 && payload.lease_mode &&
                strcmp(payload.lease_mode, "INSTANCE") == 0) {
                code = 0;
            }
            lc_keys_free(&pinned);
        }
        free(keys);
    } else if (reached) {
        static const char *codes[][2] = {{"ERR_NO_SEAT", "NO_SEAT"}, {"ERR_NOT_INSTANCE_KEY", "NOT_INSTANCE_KEY"}, {"ERR_NO_LICENSE", "NO_LICENSE"},
                                         {"ERR_LICENSE_REVOKED", "REVOKED"}, {"ERR_LICENSE_SUSPENDED", "SUSPENDED"}, {"ERR_LICENSE_EXPIRED", "EXPIRED"}};
        for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) if (answer.body && strstr(answer.body, codes[i][0])) { reason = codes[i][1]; break; }
    }
    if (code == 0) {
        char expires[48];
        lc_format_iso(payload.expires_at, expires);
        printf("{\"valid\":true,\"reason\":null,\"licenseId\":null,\"offline\":false,\"expiresAt\":\"%s\"}\n", expires);
        lc_payload_free(&payload);
    } else {
        printf("{\"valid\":false,\"reason\":\"%s\",\"licenseId\":null,\"offline\":%s,\"expiresAt\":null}\n", reason, strcmp(reason, "UNREACHABLE") == 0 ? "true" : "false");
    }
    lc_http_answer_free(&answer);
    lc_global_cleanup();
    return code;
}

static void append_nullable(lc_buffer *line, const char *name, const char *value) {
    lc_buffer_append_str(line, name);
    if (value) lc_buffer_append_json_string(line, value);
    else lc_buffer_append_str(line, "null");
}

/* updates: the newest release the machine's license may have; with --out its first file for the
   platform, kept in DIR only once signature, size and SHA-256 are right (DESIGN.md section 6i). */
static int run_updates(lc_update_options *options, const char *keys_file, const char *out) {
    lc_update_info info;
    lc_update_error error;
    lc_buffer line = {0};
    char path[4096];
    const char *file = NULL;
    int failed;
    memset(&info, 0, sizeof info);
    memset(&error, 0, sizeof error);
    options->public_keys = lc_read_file(keys_file, NULL);
    if (!options->public_keys) { fprintf(stderr, "cannot read %s\n", keys_file); return 2; }
    lc_global_init();
    failed = lc_check_for_update(options, &info, &error) != 0;
    if (!failed && out && info.latest_version && info.artifact_count > 0) {
        failed = lc_download_update(&info.artifacts[0], options->public_keys, out, path, sizeof path, &error) != 0;
        if (!failed) file = path;
    }
    append_nullable(&line, "{\"latest\":", info.latest_version);
    append_nullable(&line, ",\"newer\":", info.newer_version);
    append_nullable(&line, ",\"reason\":", info.newer_reason);
    append_nullable(&line, ",\"file\":", file);
    append_nullable(&line, ",\"error\":", failed ? error.code : NULL);
    lc_buffer_append_str(&line, "}\n");
    fputs(line.data ? line.data : "{}\n", stdout);
    if (failed) fprintf(stderr, "%s\n", error.message);
    free(line.data);
    lc_update_info_free(&info);
    free((char *)options->public_keys);
    lc_global_cleanup();
    return failed ? 1 : 0;
}

int main(int argc, char **argv) {
    lc_options options;
    const char *keys_file = NULL, *import_file = NULL, *now_text = NULL, *out = NULL, *license_key = NULL, *instance = NULL;
    lc_update_options update;
    lc_install_key install_key;
    int release = 0, refresh = 0, i, valid;
    long long now;
    char error[512], machine[65];
    lc_client *client;
    lc_status status;
    memset(&options, 0, sizeof options);
    memset(&update, 0, sizeof update);
    static const char *commands[] = {"check", "fingerprint", "request", "import", "deactivate", "lease", "updates", "signin", "signout"};
    int known = 0;
    /* Line by line, so that signin's first line reaches a reader while it polls. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 0; argc >= 2 && i < (int)(sizeof commands / sizeof *commands); i++) known |= strcmp(argv[1], commands[i]) == 0;
    if (!known) { usage(); return 2; }
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
        else if (strcmp(name, "--import") == 0 || strcmp(name, "--file") == 0) import_file = value;
        else if (strcmp(name, "--out") == 0) out = value;
        else if (strcmp(name, "--key") == 0) license_key = value;
        else if (strcmp(name, "--instance") == 0) instance = value;
        else if (strcmp(name, "--now") == 0) now_text = value;
        else if (strcmp(name, "--clock-tolerance-hours") == 0) options.clock_tolerance_hours = atol(value);
        else if (strcmp(name, "--platform") == 0) update.platform = value;
        else if (strcmp(name, "--arch") == 0) update.arch = value;
        else if (strcmp(name, "--channel") == 0) update.channel = value;
        else { fprintf(stderr, "unknown option %s\n", name); usage(); return 2; }
    }
    if (strcmp(argv[1], "fingerprint") == 0) {
        if (!options.product) { usage(); return 2; }
        if (lc_machine_fingerprint(options.product, machine, sizeof machine, error, sizeof error) != 0) { fprintf(stderr, "%s\n", error); return 1; }
        puts(machine);
        return 0;
    }
    if (strcmp(argv[1], "updates") == 0) {
        if (!options.server_url || !options.product || !options.version || !options.machine_id || !keys_file || !update.platform || !update.arch ||
            (update.channel && strcmp(update.channel, "stable") != 0 && strcmp(update.channel, "beta") != 0)) { usage(); return 2; }
        update.server_url = options.server_url;
        update.product = options.product;
        update.version = options.version;
        update.machine_id = options.machine_id;
        return run_updates(&update, keys_file, out);
    }
    if (strcmp(argv[1], "signout") == 0) {
        if (!options.server_url || !options.store_dir) { usage(); return 2; }
        lc_global_init();
        valid = lc_sign_out_store(options.server_url, options.store_dir, 15000, error, sizeof error);
        lc_global_cleanup();
        if (valid != 0) fprintf(stderr, "%s\n", error);
        /* -1: signed out here all the same, the server not told (said on stderr), as in the other clients. */
        puts(valid != 1 ? "{\"signedOut\":true}" : "{\"signedOut\":false}");
        return valid != 1 ? 0 : 1;
    }
    if (strcmp(argv[1], "lease") == 0) {
        if (!options.server_url || !options.product || !license_key || !keys_file || !instance) { usage(); return 2; }
        return run_lease(&options, license_key, instance, keys_file, release);
    }
    if (strcmp(argv[1], "request") == 0 || strcmp(argv[1], "deactivate") == 0) {
        if (!options.product || !options.machine_id || !options.store_dir || !out || (argv[1][0] == 'd' && !keys_file)) { usage(); return 2; }
        return run_offline(argv[1], &options, keys_file, out);
    }
    if (strcmp(argv[1], "import") == 0 && !options.server_url) options.server_url = "http://127.0.0.1:9";
    if (strcmp(argv[1], "import") == 0 && !import_file) { usage(); return 2; }
    if (!options.server_url || !options.product || !options.machine_id || !options.store_dir || !keys_file) { usage(); return 2; }
    if (lc_install_key_load(options.store_dir, &install_key, error, sizeof error) != 0) { fprintf(stderr, "%s\n", error); return 2; }
    options.install_key_id = install_key.key_id;
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
    } else if (strcmp(argv[1], "signin") == 0) {
        valid = lc_sign_in(client, print_code, NULL, NULL, &status);
    } else {
        valid = refresh ? lc_refresh(client, &status) : lc_check(client, &status);
    }
    if (release && lc_release(client, error, sizeof error) != 0) fprintf(stderr, "release: %s\n", error);
    print_status(&status);
    lc_status_free(&status);
    lc_client_free(client);
    lc_install_key_free(&install_key);
    lc_global_cleanup();
    return valid ? 0 : 1;
}
