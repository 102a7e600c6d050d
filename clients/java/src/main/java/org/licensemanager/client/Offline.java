package org.licensemanager.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/** The harness's air-gapped commands (DESIGN.md section 6h): request, deactivate and lease. */
final class Offline {
    private Offline() {}

    static int request(String product, String version, String machine, Path store, Path out) throws IOException {
        InstallKey key = InstallKey.load(store);
        Files.writeString(out, key.licenseRequest(product, version, machine, Instant.now()));
        System.out.println("{\"written\":" + Json.quote(out.toString()) + ",\"installKeyId\":" + Json.quote(key.keyId) + "}");
        return 0;
    }

    /** Retires the stored file of this installation for the machine and product, and writes the proof. */
    static int deactivate(String product, String machine, Path store, PublicKeys keys, Path out) throws IOException {
        InstallKey key = InstallKey.load(store);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(store, "*.{json,lic}")) {
            for (Path file : files) {
                LicensePayload payload;
                try {
                    payload = LicenseFiles.verify(Files.readString(file, StandardCharsets.UTF_8), keys);
                } catch (InvalidLicenseFileException e) {
                    continue;
                }
                if (!key.keyId.equals(payload.fields().get("installKeyId")) || !machine.equals(payload.machineId()) || !product.equals(payload.productName()) || payload.licenseId() == null) continue;
                Files.writeString(out, key.deactivationProof(payload.licenseId(), machine, payload.issuedAt(), Instant.now()));
                Files.delete(file);
                System.out.println("{\"written\":" + Json.quote(out.toString()) + ",\"installKeyId\":" + Json.quote(key.keyId) + ",\"licenseId\":" + payload.licenseId() + "}");
                return 0;
            }
        }
        System.err.println("no license file of this installation for this machine and product");
        System.out.println("{\"written\":null,\"installKeyId\":" + Json.quote(key.keyId) + ",\"licenseId\":null}");
        return 1;
    }

    static int lease(String server, String product, String version, String licenseKey, String instance, PublicKeys keys, boolean release) throws IOException, InterruptedException {
        InstanceLease lease = new InstanceLease(server, licenseKey, product, version, instance, keys);
        if (release) {
            lease.release();
            System.out.println("{\"valid\":false,\"reason\":null,\"licenseId\":null,\"offline\":false,\"expiresAt\":null,\"released\":true}");
            return 0;
        }
        InstanceLease.Status status = lease.renew();
        String expires = status.valid() && status.license().expiresAt() != null ? Json.quote(status.license().expiresAt().toString()) : "null";
        System.out.println("{\"valid\":" + status.valid() + ",\"reason\":" + (status.reason() == null ? "null" : Json.quote(status.reason())) + ",\"licenseId\":null,\"offline\":"
                + "UNREACHABLE".equals(status.reason()) + ",\"expiresAt\":" + expires + "}");
        return status.valid() ? 0 : 1;
    }
}
