// check_license.cpp: a C++ program licensed through the License Manager's C client.
#include <license_client.h>

#include <cstdio>
#include <memory>
#include <string>

// 1. Pin the server's public keys: copy the answer of GET https://licenses.example.com/api/client/v1/keys
//    into the build. When the server rotates its key, add the new one and keep the old ones.
static const char *const PUBLIC_KEYS = R"({"keys":[{"kid":"3f9a0c1d2e4b5a69","alg":"ed25519",
  "publicKeyPem":"-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA…\n-----END PUBLIC KEY-----\n"}]})";

static const char *const PRODUCT = "Studio Pro"; // the product name as in the catalogue

// The client and a status, released automatically.
using Client = std::unique_ptr<lc_client, decltype(&lc_client_free)>;
struct Status : lc_status {
    Status() : lc_status() {}
    ~Status() { lc_status_free(this); }
};

int main(int argc, char **argv) {
    lc_global_init(); // once, before any thread starts
    char error[256];

    // 2. A stable id of this machine for this product (the raw operating-system id never leaves it).
    char machine[65];
    if (lc_machine_fingerprint(PRODUCT, machine, sizeof machine, error, sizeof error) != 0) {
        std::fprintf(stderr, "No machine id: %s\n", error);
        return 2;
    }

    // 3. The folder of license files; customers put offline files there too.
    char store[1024];
    if (lc_default_store_dir(PRODUCT, store, sizeof store) != 0) return 2;

    lc_options options{};
    options.server_url = "https://licenses.example.com";
    options.product = PRODUCT;
    options.version = "2.1"; // optional: without it the server picks the newest licensed version
    options.machine_id = machine;
    options.public_keys = PUBLIC_KEYS;
    options.store_dir = store;
    Client client(lc_client_new(&options, error, sizeof error), lc_client_free);
    if (!client) {
        std::fprintf(stderr, "%s\n", error);
        return 2;
    }

    // 4. A "Load license file…" command for machines without internet: studio --import FILE
    Status status;
    if (argc == 3 && std::string(argv[1]) == "--import") {
        std::FILE *file = std::fopen(argv[2], "rb");
        std::string text;
        for (int c; file && (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
        if (file) std::fclose(file);
        lc_import_file(client.get(), text.c_str(), &status);
    } else {
        // 5. Check at start (and again from a timer, e.g. hourly: it asks the server only when the
        //    file says a refresh is due, and works offline from the stored file until it expires).
        lc_check(client.get(), &status);
    }

    if (status.valid) {
        std::printf("Licensed to %s; file valid until %s%s\n", status.owner_name ? status.owner_name : "?",
                    status.expires_at ? status.expires_at : "forever", status.offline ? " (offline)" : "");
        std::printf("PDF export %s\n", lc_has_feature(&status, "export:pdf") ? "enabled" : "not licensed");
    } else {
        // NO_LICENSE, REVOKED, SUSPENDED, EXPIRED, UPGRADED, NO_SEAT, TOO_MANY_MACHINES, UNREACHABLE,
        // INVALID_FILE, CLOCK_TAMPERED
        std::printf("No valid license (%s): %s. Machine id: %s\n", lc_reason_name(status.reason), status.message, machine);
    }

    // 6. Floating licenses: give the seat back when the software quits.
    if (status.valid && status.policy_type && std::string(status.policy_type) == "FLOATING") lc_release(client.get(), error, sizeof error);

    int code = status.valid ? 0 : 1;
    client.reset();
    lc_global_cleanup();
    return code;
}
