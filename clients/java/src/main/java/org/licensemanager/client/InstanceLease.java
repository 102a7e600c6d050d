package org.licensemanager.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * An instance lease (DESIGN.md section 6h) for containers, CI runners and virtual machines: the
 * license key (an INSTANCE policy's TAN) leases one seat for this process; {@link #renew()} takes or
 * renews it (every refetchIntervalSeconds), {@link #release()} frees it on a clean exit, and a
 * killed process's seat comes free when its lease's time to live runs out.
 */
public final class InstanceLease {
    /** valid; reason (NO_SEAT, NOT_INSTANCE_KEY, …) when not; the file's payload when valid. */
    public record Status(boolean valid, String reason, LicensePayload license) {}

    private static final Map<String, String> REASONS = Map.of(
            "ERR_NO_LICENSE", "NO_LICENSE", "ERR_LICENSE_REVOKED", "REVOKED", "ERR_LICENSE_SUSPENDED", "SUSPENDED",
            "ERR_LICENSE_EXPIRED", "EXPIRED", "ERR_NO_SEAT", "NO_SEAT", "ERR_NOT_INSTANCE_KEY", "NOT_INSTANCE_KEY");
    private final String serverUrl, licenseKey, product, version;
    public final String instanceId;
    private final PublicKeys keys;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(15)).build();
    private LicensePayload held;
    private String heldTag;

    public InstanceLease(String serverUrl, String licenseKey, String product, String version, String instanceId, PublicKeys keys) {
        this.serverUrl = serverUrl.replaceAll("/+$", "");
        this.licenseKey = licenseKey;
        this.product = product;
        this.version = version;
        this.instanceId = instanceId != null ? instanceId : "i-" + UUID.randomUUID();
        this.keys = keys;
    }

    private HttpResponse<String> call(String method, String ifNoneMatch) throws IOException, InterruptedException {
        String body = "{\"key\":" + Json.quote(licenseKey) + ",\"product\":" + Json.quote(product) + ",\"instanceId\":" + Json.quote(instanceId)
                + (version == null ? "" : ",\"version\":" + Json.quote(version)) + "}";
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(serverUrl + "/api/client/v1/lease")).timeout(Duration.ofSeconds(15))
                .header("content-type", "application/json").header("accept", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        if (ifNoneMatch != null) request.header("if-none-match", ifNoneMatch);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    public Status renew() throws InterruptedException {
        HttpResponse<String> response;
        try {
            response = call("POST", heldTag);
        } catch (IOException e) {
            return new Status(false, "UNREACHABLE", null);
        }
        if (response.statusCode() == 304 && held != null) return new Status(true, null, held);
        if (response.statusCode() / 100 == 2) {
            try {
                LicensePayload payload = LicenseFiles.verify(response.body(), keys);
                if (!instanceId.equals(payload.machineId()) || !"INSTANCE".equals(payload.fields().get("leaseMode")) || !product.equals(payload.productName())) {
                    return new Status(false, "INVALID_FILE", null);
                }
                held = payload;
                heldTag = LicenseFiles.tag(response.body());
                return new Status(true, null, payload);
            } catch (InvalidLicenseFileException e) {
                return new Status(false, "INVALID_FILE", null);
            }
        }
        held = null;
        heldTag = null;
        String error = null;
        try {
            error = Json.string(Json.object(Json.parse(response.body())), "error");
        } catch (RuntimeException ignored) {
            // not an error body of the license server
        }
        return new Status(false, REASONS.getOrDefault(error == null ? "" : error, "UNREACHABLE"), null);
    }

    public void release() throws IOException, InterruptedException {
        held = null;
        heldTag = null;
        call("DELETE", null);
    }
}
