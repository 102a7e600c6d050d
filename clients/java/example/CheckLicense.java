// CheckLicense.java: a Java program licensed through the License Manager's Java client.
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.licensemanager.client.LicenseClient;
import org.licensemanager.client.LicenseStatus;
import org.licensemanager.client.LicenseStore;
import org.licensemanager.client.MachineFingerprint;
import org.licensemanager.client.PublicKeys;

public class CheckLicense {
    // 1. Pin the server's public keys: copy the answer of GET https://licenses.example.com/api/client/v1/keys
    //    into the build. When the server rotates its key, add the new one and keep the old ones.
    static final String PUBLIC_KEYS = """
            {"keys":[{"kid":"3f9a0c1d2e4b5a69","alg":"ed25519",
              "publicKeyPem":"-----BEGIN PUBLIC KEY-----\\nMCowBQYDK2VwAyEA…\\n-----END PUBLIC KEY-----\\n"}]}""";

    static final String PRODUCT = "Studio Pro"; // the product name as in the catalogue

    public static void main(String[] args) throws Exception {
        LicenseClient client = LicenseClient.builder()
                .serverUrl("https://licenses.example.com")
                .product(PRODUCT)
                .version("2.1") // optional: without it the server picks the newest licensed version
                // 2. A stable id of this machine for this product (the raw operating-system id never leaves it).
                .machineId(MachineFingerprint.of(PRODUCT))
                .publicKeys(PublicKeys.fromJson(PUBLIC_KEYS))
                // 3. The folder of license files; customers put offline files there too.
                .store(LicenseStore.defaultDirectory(PRODUCT))
                .build();

        // 4. A "Load license file…" command for machines without internet: CheckLicense --import FILE
        if (args.length == 2 && args[0].equals("--import")) {
            apply(client.importFile(Files.readString(Path.of(args[1]))));
            return;
        }

        // 5. Check at start, then hourly: the client asks the server only when the file says a refresh
        //    is due, and works offline from the stored file until it expires.
        LicenseStatus status = client.check();
        apply(status);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "license-check");
            thread.setDaemon(true); // the application's own windows or work keep the process alive
            return thread;
        });
        timer.scheduleWithFixedDelay(() -> apply(client.check()), 1, 1, TimeUnit.HOURS);

        // 6. Floating licenses: give the seat back when the software quits.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                if (status.valid() && "FLOATING".equals(status.license().policyType())) client.release();
            } catch (Exception e) {
                // the seat lapses by itself at the end of its lease
            }
        }));
    }

    static String machineId() {
        try {
            return MachineFingerprint.of(PRODUCT);
        } catch (java.io.IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    static void apply(LicenseStatus status) {
        if (status.valid()) {
            var license = status.license();
            System.out.println("Licensed to " + license.ownerName() + "; file valid until " + (license.expiresAt() == null ? "forever" : license.expiresAt()) + (status.offline() ? " (offline)" : ""));
            System.out.println("PDF export " + (license.hasFeature("export:pdf") ? "enabled" : "not licensed"));
        } else {
            // NO_LICENSE, REVOKED, SUSPENDED, EXPIRED, UPGRADED, NO_SEAT, TOO_MANY_MACHINES, UNREACHABLE,
            // INVALID_FILE, CLOCK_TAMPERED
            System.out.println("No valid license (" + status.reason() + "): " + status.message() + ". Machine id: " + machineId());
        }
    }
}
