package org.licensemanager.client;

/**
 * The outcome of a check. When {@code valid}, {@code license} is the file's payload; when not,
 * {@code reason} says why ({@code license} is still set for {@link Reason#CLOCK_TAMPERED} when a file
 * is held).
 *
 * @param offline    the server could not be reached (or gave no usable answer) in this check; when
 *                   valid, the stored file carries on until it expires
 * @param fromServer the file was just fetched or confirmed (304) by the server
 */
public record LicenseStatus(boolean valid, Reason reason, String message, boolean offline, boolean fromServer, LicensePayload license) {

    static LicenseStatus valid(LicensePayload license, boolean fromServer, boolean offline) {
        return new LicenseStatus(true, null, offline ? "valid offline: the license server cannot be reached" : "valid", offline, fromServer, license);
    }

    static LicenseStatus invalid(Reason reason, String message) {
        return invalid(reason, message, false);
    }

    static LicenseStatus invalid(Reason reason, String message, boolean offline) {
        return new LicenseStatus(false, reason, message, offline, false, null);
    }

    /** The harness's line (DESIGN.md 6d): {"valid","reason","licenseId","offline","expiresAt"}; license fields only when valid. */
    public String toJson() {
        String licenseId = !valid || license.licenseId() == null ? "null" : license.licenseId().toString();
        // The file's own text of the time (the server's, with milliseconds), not Instant's shortest form.
        String expiresAt = !valid || license.expiresAt() == null ? "null" : Json.quote(String.valueOf(license.fields().get("expiresAt")));
        return "{\"valid\":" + valid + ",\"reason\":" + (reason == null ? "null" : Json.quote(reason.name())) + ",\"licenseId\":" + licenseId
                + ",\"offline\":" + offline + ",\"expiresAt\":" + expiresAt + (valid ? entitlementsJson() : "") + "}";
    }

    /** Each feature's value through featureValue, and the metadata (DESIGN.md section 6g), as JSON members. */
    private String entitlementsJson() {
        StringBuilder out = new StringBuilder(",\"entitlements\":{");
        String separator = "";
        for (String feature : license.features()) {
            Object value = license.featureValue(feature);
            out.append(separator).append(Json.quote(feature)).append(':').append(value instanceof String text ? Json.quote(text) : String.valueOf(value));
            separator = ",";
        }
        out.append("},\"metadata\":{");
        separator = "";
        for (var entry : license.metadata().entrySet()) {
            out.append(separator).append(Json.quote(entry.getKey())).append(':').append(Json.quote(entry.getValue()));
            separator = ",";
        }
        return out.append('}').toString();
    }
}
