package org.licensemanager.client;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code License-Server-Time} header (docs/license-files.md, "Trusted time"): {@code <enc>.<sig>},
 * enc = base64 of {@code {"t": <Unix seconds>, "kid"}}, sig = the Ed25519 signature of "time/" + enc.
 */
public final class ServerTime {
    public static final String HEADER = "License-Server-Time";

    private ServerTime() {}

    /** The time the token vouches for, when it verifies against a pinned key. */
    public static Optional<Instant> verify(String token, PublicKeys keys) {
        if (token == null) return Optional.empty();
        int dot = token.indexOf('.');
        if (dot < 0) return Optional.empty();
        String enc = token.substring(0, dot), sig = token.substring(dot + 1).strip();
        try {
            Map<String, Object> fields = Json.object(Json.parse(LicenseFiles.utf8(LicenseFiles.base64(enc))));
            String kid = Json.string(fields, "kid");
            Double t = Json.number(fields, "t");
            if (kid == null || t == null || t <= 0 || !keys.verify(kid, ("time/" + enc).getBytes(StandardCharsets.US_ASCII), sig)) return Optional.empty();
            return Optional.of(Instant.ofEpochSecond(t.longValue()));
        } catch (InvalidLicenseFileException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
