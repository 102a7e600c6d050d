package org.licensemanager.client;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server's public keys pinned in the software: the JSON of {@code GET /api/client/v1/keys}
 * ({@code {"keys":[{"kid","publicKeyPem",...}]}}), copied into the build. When the server rotates
 * its key, add the new one and keep the old ones.
 */
public final class PublicKeys {
    private final Map<String, PublicKey> byKid;

    private PublicKeys(Map<String, PublicKey> byKid) {
        this.byKid = byKid;
    }

    /** Reads the JSON of GET /api/client/v1/keys (or a bare array of its keys). */
    public static PublicKeys fromJson(String json) {
        Object root;
        try {
            root = Json.parse(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the public keys are not JSON", e);
        }
        Object list = root instanceof List<?> ? root : Json.object(root) != null ? Json.object(root).get("keys") : null;
        if (!(list instanceof List<?> keys) || keys.isEmpty()) {
            throw new IllegalArgumentException("the public keys are not the JSON of GET /api/client/v1/keys ({\"keys\":[{\"kid\",\"publicKeyPem\"}]})");
        }
        Map<String, PublicKey> byKid = new LinkedHashMap<>();
        for (Object item : keys) {
            Map<String, Object> key = Json.object(item);
            String kid = Json.string(key, "kid"), pem = Json.string(key, "publicKeyPem");
            if (kid == null || pem == null) throw new IllegalArgumentException("a public key lacks kid or publicKeyPem");
            byKid.put(kid, fromPem(pem));
        }
        return new PublicKeys(byKid);
    }

    /** An Ed25519 public key from SPKI PEM ("-----BEGIN PUBLIC KEY-----"). */
    public static PublicKey fromPem(String pem) {
        String base64 = pem.replaceAll("-----(BEGIN|END)[^-]*-----", "").replaceAll("\\s+", "");
        try {
            return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(base64)));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not an Ed25519 public key in SPKI PEM", e);
        }
    }

    PublicKey find(String kid) {
        return kid == null ? null : byKid.get(kid);
    }

    /** Whether signature (base64) is the Ed25519 signature of message by the pinned key kid. */
    boolean verify(String kid, byte[] message, String signatureBase64) {
        PublicKey key = find(kid);
        if (key == null) return false;
        try {
            byte[] signature = Base64.getDecoder().decode(signatureBase64);
            Signature verifier = Signature.getInstance("Ed25519");
            verifier.initVerify(key);
            verifier.update(message);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }
}
