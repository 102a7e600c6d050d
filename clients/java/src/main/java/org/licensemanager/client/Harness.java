package org.licensemanager.client;

import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The command-line harness of the Java client (DESIGN.md section 6d), for the conformance kit and for
 * trying the client from a shell:
 *
 * <pre>
 * harness check --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE
 *               [--borrow-days N] [--release] [--refresh] [--import FILE]
 *               [--now ISO-TIME] [--clock-tolerance-hours N]
 * harness fingerprint --product NAME
 * harness request --product NAME [--version V] --machine ID --store DIR --out FILE
 * harness import --file F --product NAME [--version V] --machine ID --store DIR --keys FILE
 * harness deactivate --product NAME [--version V] --machine ID --store DIR --keys FILE --out FILE
 * harness lease --server URL --product NAME [--version V] --key TAN --keys FILE --instance ID [--release]
 * harness updates --server URL --product NAME --version V --machine ID --keys FILE --platform P --arch A
 *                 [--channel stable|beta] [--out DIR]
 * harness signin --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE
 * harness signout --server URL --store DIR
 * </pre>
 *
 * check prints one JSON line {"valid","reason","licenseId","offline","expiresAt"} (the message why not
 * on stderr) and exits 0 when valid, 1 when not, 2 on wrong usage. The local clock: --now, or
 * LICENSE_HARNESS_CLOCK_OFFSET_SECONDS (seconds added to the system clock, negative to set it back).
 * updates prints one JSON line {"latest","newer","reason","file","error"} (DESIGN.md section 6i) and
 * exits 0 when done, 1 when refused or not verified.
 * signin (desktop sign-in, RFC 8628) prints a first line {"userCode","verificationUri",
 * "verificationUriComplete","expiresIn","interval"} at once, polls until the sign-in is decided, then
 * prints check's line (SIGNIN_DENIED, SIGNIN_EXPIRED when not approved). signout prints
 * {"signedOut":true} (exit 0), or {"signedOut":false} (exit 1) when the store held no sign-in.
 */
public final class Harness {
    private static final String USAGE = """
            usage: harness check --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE
                                 [--borrow-days N] [--release] [--refresh] [--import FILE] [--now ISO-TIME] [--clock-tolerance-hours N]
                   harness fingerprint --product NAME
                   harness request --product NAME [--version V] --machine ID --store DIR --out FILE
                   harness import --file F --product NAME [--version V] --machine ID --store DIR --keys FILE
                   harness deactivate --product NAME [--version V] --machine ID --store DIR --keys FILE --out FILE
                   harness lease --server URL --product NAME [--version V] --key TAN --keys FILE --instance ID [--release]
                   harness updates --server URL --product NAME --version V --machine ID --keys FILE --platform P --arch A [--channel stable|beta] [--out DIR]
                   harness signin --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE
                   harness signout --server URL --store DIR""";

    private Harness() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        if (args.length < 1 || !java.util.List.of("check", "fingerprint", "request", "import", "deactivate", "lease", "updates", "signin", "signout").contains(args[0])) return usage(null);
        String server = null, product = null, version = null, machine = null, store = null, keysFile = null, importFile = null, now = null, out = null, key = null, instance = null,
                platform = null, arch = null, channel = "stable";
        int borrowDays = 0;
        long toleranceHours = 48;
        boolean release = false, refresh = false;
        for (int i = 1; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--release")) { release = true; continue; }
            if (name.equals("--refresh")) { refresh = true; continue; }
            if (i + 1 >= args.length) return usage(name + " needs a value");
            String value = args[++i];
            try {
                switch (name) {
                    case "--server" -> server = value;
                    case "--product" -> product = value;
                    case "--version" -> version = value;
                    case "--machine" -> machine = value;
                    case "--store" -> store = value;
                    case "--keys" -> keysFile = value;
                    case "--borrow-days" -> borrowDays = Integer.parseInt(value);
                    case "--import", "--file" -> importFile = value;
                    case "--out" -> out = value;
                    case "--key" -> key = value;
                    case "--instance" -> instance = value;
                    case "--platform" -> platform = value;
                    case "--arch" -> arch = value;
                    case "--channel" -> channel = value;
                    case "--now" -> now = value;
                    case "--clock-tolerance-hours" -> toleranceHours = Long.parseLong(value);
                    default -> { return usage("unknown option " + name); }
                }
            } catch (NumberFormatException e) {
                return usage(name + " takes a number");
            }
        }
        try {
            if (args[0].equals("fingerprint")) {
                if (product == null) return usage(null);
                System.out.println(MachineFingerprint.of(product));
                return 0;
            }
            if (args[0].equals("lease")) {
                if (server == null || product == null || key == null || keysFile == null || instance == null) return usage(null);
                return Offline.lease(server, product, version, key, instance, PublicKeys.fromJson(Files.readString(Path.of(keysFile), StandardCharsets.UTF_8)), release);
            }
            if (args[0].equals("updates")) {
                if (server == null || product == null || version == null || machine == null || keysFile == null || platform == null || arch == null) return usage(null);
                if (!channel.equals("stable") && !channel.equals("beta")) return usage("--channel is stable or beta");
                return updates(server, product, version, machine, Path.of(keysFile), platform, arch, channel, out == null ? null : Path.of(out));
            }
            if (args[0].equals("request")) {
                if (product == null || machine == null || store == null || out == null) return usage(null);
                return Offline.request(product, version, machine, Path.of(store), Path.of(out));
            }
            if (args[0].equals("deactivate")) {
                if (product == null || machine == null || store == null || out == null || keysFile == null) return usage(null);
                return Offline.deactivate(product, machine, Path.of(store), PublicKeys.fromJson(Files.readString(Path.of(keysFile), StandardCharsets.UTF_8)), Path.of(out));
            }
            if (args[0].equals("signout")) {
                if (server == null || store == null) return usage(null);
                return signOut(server, Path.of(store));
            }
            if (args[0].equals("import") && importFile == null) return usage(null);
            if (server == null && args[0].equals("import")) server = "http://127.0.0.1:9";
            if (server == null || product == null || machine == null || store == null || keysFile == null) return usage(null);
            if (machine.equals("auto")) machine = MachineFingerprint.of(product);
            Clock clock = Clock.systemUTC();
            String offset = System.getenv("LICENSE_HARNESS_CLOCK_OFFSET_SECONDS");
            if (now != null) {
                Instant fixed = now.length() == 10 ? OffsetDateTime.parse(now + "T00:00:00Z").toInstant() : OffsetDateTime.parse(now).toInstant();
                clock = Clock.fixed(fixed, ZoneOffset.UTC);
            } else if (offset != null && !offset.isBlank()) {
                clock = Clock.offset(Clock.systemUTC(), Duration.ofMillis((long) (Double.parseDouble(offset) * 1000)));
            }
            LicenseClient client = LicenseClient.builder()
                    .serverUrl(server)
                    .product(product)
                    .version(version)
                    .machineId(machine)
                    .publicKeys(PublicKeys.fromJson(Files.readString(Path.of(keysFile), StandardCharsets.UTF_8)))
                    .store(Path.of(store))
                    .borrowDays(borrowDays)
                    .installKeyId(InstallKey.load(Path.of(store)).keyId)
                    .clockTolerance(Duration.ofHours(toleranceHours))
                    .clock(clock)
                    .build();
            LicenseStatus status = args[0].equals("signin") ? client.signIn(Harness::printCode)
                    : importFile != null ? client.importFile(Files.readString(Path.of(importFile), StandardCharsets.UTF_8)) : refresh ? client.refresh() : client.check();
            if (release) {
                try {
                    client.release();
                } catch (IOException e) {
                    System.err.println("release: " + e.getMessage());
                }
            }
            System.out.println(status.toJson());
            if (!status.valid()) System.err.println(status.message());
            return status.valid() ? 0 : 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 2;
        } catch (IOException | RuntimeException e) {
            System.err.println(e.getMessage());
            return 2;
        }
    }

    /** The updates command: the newest release the license may have; with out, its first file, kept only once verified. */
    private static int updates(String server, String product, String version, String machine, Path keysFile, String platform, String arch, String channel, Path out)
            throws InterruptedException {
        String latest = null, newer = null, reason = null, file = null, error = null;
        try {
            PublicKeys keys = PublicKeys.fromJson(Files.readString(keysFile, StandardCharsets.UTF_8));
            Updates.UpdateInfo info = Updates.checkForUpdate(server, product, version, machine, platform, arch, channel, keys);
            latest = info.latest() == null ? null : info.latest().version();
            newer = info.newer() == null ? null : info.newer().version();
            reason = info.newer() == null ? null : info.newer().reason();
            if (out != null && info.latest() != null && !info.latest().artifacts().isEmpty()) {
                file = Updates.download(info.latest().artifacts().get(0), keys, out).toString();
            }
        } catch (Updates.UpdateException e) {
            error = e.code();
            System.err.println(e.getMessage());
        } catch (IOException | RuntimeException e) {
            error = e instanceof IOException && !(e instanceof java.nio.file.FileSystemException) ? "UNREACHABLE" : "ERROR";
            System.err.println(e);
        }
        System.out.println("{\"latest\":" + quoted(latest) + ",\"newer\":" + quoted(newer) + ",\"reason\":" + quoted(reason) + ",\"file\":" + quoted(file) + ",\"error\":" + quoted(error) + "}");
        return error == null ? 0 : 1;
    }

    /** The first line of signin, flushed at once: the person (or the kit) approves while the harness polls. */
    private static void printCode(LicenseClient.SignInCode code) {
        System.out.println("{\"userCode\":" + quoted(code.userCode()) + ",\"verificationUri\":" + quoted(code.verificationUri())
                + ",\"verificationUriComplete\":" + quoted(code.verificationUriComplete()) + ",\"expiresIn\":" + code.expiresIn() + ",\"interval\":" + code.interval() + "}");
        System.out.flush();
        System.err.println("Open " + code.verificationUri() + " and enter the code " + code.userCode() + " (or open " + code.verificationUriComplete() + ")");
    }

    private static int signOut(String server, Path store) throws InterruptedException {
        boolean signedOut;
        try {
            signedOut = LicenseClient.signOut(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(15)).build(), server, new LicenseStore(store), Duration.ofSeconds(15));
        } catch (IOException e) {
            // Forgotten here all the same; the server still accepts the token until it is revoked under Security.
            System.err.println("signout: " + e.getMessage());
            signedOut = true;
        }
        if (!signedOut) System.err.println("not signed in: the store holds no desktop sign-in");
        System.out.println("{\"signedOut\":" + signedOut + "}");
        return signedOut ? 0 : 1;
    }

    private static String quoted(String value) {
        return value == null ? "null" : Json.quote(value);
    }

    private static int usage(String problem) {
        if (problem != null) System.err.println(problem);
        System.err.println(USAGE);
        return 2;
    }
}
