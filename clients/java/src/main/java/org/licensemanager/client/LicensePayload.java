package org.licensemanager.client;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The verified payload of a license file (docs/license-files.md): what the software reads to decide
 * which features to offer. {@link #fields()} holds every field, including ones added later.
 */
public record LicensePayload(
        Long licenseId,
        String kind,
        String policyType,
        long productId,
        String productName,
        String productVersion,
        List<String> features,
        String machineId,
        String ownerName,
        String ownerCompany,
        Instant issuedAt,
        /* null: the file never expires */
        Instant expiresAt,
        /* set when a floating seat is borrowed for offline use */
        Instant borrowedUntil,
        long refetchIntervalSeconds,
        long refetchBeforeExpirySeconds,
        String kid,
        Map<String, Object> fields) {

    /** An ANY-Lic file: made for any machine. */
    public boolean isAnyLic() {
        return "ANYLIC".equals(kind) && "*".equals(machineId);
    }

    /** Whether the license has the feature (DESIGN.md section 6g; files before entitlements: its features). */
    public boolean hasFeature(String feature) {
        Map<String, Object> entitlements = Json.object(fields.get("entitlements"));
        return entitlements != null ? entitlements.containsKey(feature) : features.contains(feature);
    }

    /**
     * The feature's value: a {@link Long} or a {@link String}, {@link Boolean#TRUE} for a flag, null
     * when the license lacks the feature.
     */
    public Object featureValue(String feature) {
        if (!hasFeature(feature)) return null;
        Map<String, Object> entitlements = Json.object(fields.get("entitlements"));
        Object value = entitlements == null ? Boolean.TRUE : entitlements.get(feature);
        if (value instanceof Double number && number == Math.rint(number)) return number.longValue();
        return value == null ? Boolean.TRUE : value;
    }

    /** The license's metadata: key–value pairs of the license and its TAN (empty when none). */
    public Map<String, String> metadata() {
        Map<String, Object> metadata = Json.object(fields.get("metadata"));
        if (metadata == null) return Map.of();
        Map<String, String> result = new java.util.TreeMap<>();
        metadata.forEach((key, value) -> {
            if (value instanceof String text) result.put(key, text);
        });
        return java.util.Collections.unmodifiableMap(result);
    }

    boolean isExpired(Instant now) {
        return expiresAt != null && !expiresAt.isAfter(now);
    }

    static LicensePayload from(Map<String, Object> p) {
        Map<String, Object> product = Json.object(p.get("product"));
        Map<String, Object> owner = Json.object(p.get("owner"));
        String kind = Json.string(p, "kind"), machineId = Json.string(p, "machineId"), kid = Json.string(p, "kid");
        Instant issuedAt = instant(p, "issuedAt");
        if (product == null || kind == null || machineId == null || kid == null || issuedAt == null || Json.string(product, "name") == null || Json.string(product, "version") == null) {
            throw new IllegalArgumentException("the payload lacks machineId, product, kind, kid or issuedAt");
        }
        Double licenseId = Json.number(p, "licenseId"), productId = Json.number(product, "id");
        List<String> features = p.get("features") instanceof List<?> list ? list.stream().filter(String.class::isInstance).map(String.class::cast).toList() : List.of();
        return new LicensePayload(
                licenseId == null ? null : licenseId.longValue(),
                kind,
                Json.string(p, "policyType"),
                productId == null ? 0 : productId.longValue(),
                Json.string(product, "name"),
                Json.string(product, "version"),
                features,
                machineId,
                Json.string(owner, "name"),
                Json.string(owner, "company"),
                issuedAt,
                instant(p, "expiresAt"),
                instant(p, "borrowedUntil"),
                seconds(p, "refetchIntervalSeconds"),
                seconds(p, "refetchBeforeExpirySeconds"),
                kid,
                Map.copyOf(p.entrySet().stream().filter(e -> e.getValue() != null).collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue))));
    }

    private static Instant instant(Map<String, Object> p, String key) {
        Object value = p.get(key);
        if (value == null) return null;
        if (!(value instanceof String text)) throw new IllegalArgumentException(key + " is not a time");
        try {
            return java.time.OffsetDateTime.parse(text).toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException(key + " is not an ISO 8601 time");
        }
    }

    private static long seconds(Map<String, Object> p, String key) {
        Double value = Json.number(p, key);
        return value == null ? 0 : value.longValue();
    }
}
