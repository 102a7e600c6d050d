package org.licensemanager.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;

/**
 * The install key (DESIGN.md section 6h): an Ed25519 key pair made on first use and kept in the
 * store folder ({@code install-key}, mode 0600), the identity of this installation. Only its public
 * key leaves the machine, inside request files; it signs requests and deactivation proofs.
 */
public final class InstallKey {
    public static final String FILE_NAME = "install-key";
    private final PrivateKey privateKey;
    /** The public key, SPKI DER in base64. */
    public final String publicKey;
    /** SHA-256 (hex) of the SPKI bytes: what a bound license file names as installKeyId. */
    public final String keyId;

    private InstallKey(PrivateKey privateKey, PublicKey publicKey) throws GeneralSecurityException {
        this.privateKey = privateKey;
        byte[] spki = publicKey.getEncoded();
        this.publicKey = Base64.getEncoder().encodeToString(spki);
        this.keyId = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(spki));
    }

    /** The key kept in {@code directory}, made (mode 0600) on first use. */
    public static InstallKey load(Path directory) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        try {
            if (Files.exists(file)) return fromFile(Files.readString(file));
            Files.createDirectories(directory);
            KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (FileAlreadyExistsException e) {
                return load(directory);
            } catch (UnsupportedOperationException e) {
                Files.createFile(file);
            }
            Files.writeString(file, Base64.getEncoder().encodeToString(pair.getPrivate().getEncoded()) + "\n" + Base64.getEncoder().encodeToString(pair.getPublic().getEncoded()) + "\n");
            return new InstallKey(pair.getPrivate(), pair.getPublic());
        } catch (GeneralSecurityException e) {
            throw new IOException("the install key cannot be used: " + e.getMessage(), e);
        }
    }

    /** The file: the private key (PKCS#8) and the public key (SPKI), each base64 on a line of its own. */
    private static InstallKey fromFile(String text) throws GeneralSecurityException {
        String[] lines = text.trim().split("\\s+");
        if (lines.length != 2) throw new GeneralSecurityException("the install-key file is not whole");
        KeyFactory factory = KeyFactory.getInstance("Ed25519");
        return new InstallKey(
                factory.generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(lines[0]))),
                factory.generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(lines[1]))));
    }

    public String sign(String message) throws IOException {
        try {
            Signature signature = Signature.getInstance("Ed25519");
            signature.initSign(privateKey);
            signature.update(message.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(signature.sign());
        } catch (GeneralSecurityException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private String armored(String label, String prefix, String json) throws IOException {
        String enc = Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
        String body = enc + "." + sign(prefix + enc);
        StringBuilder text = new StringBuilder("-----BEGIN ").append(label).append("-----\n");
        for (int i = 0; i < body.length(); i += 64) text.append(body, i, Math.min(body.length(), i + 64)).append('\n');
        return text.append("-----END ").append(label).append("-----\n").toString();
    }

    private static String nonce() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** The request file an offline machine hands to the portal. */
    public String licenseRequest(String product, String version, String machineId, Instant now) throws IOException {
        String json = "{\"v\":1,\"product\":" + Json.quote(product) + ",\"version\":" + (version == null ? "null" : Json.quote(version)) + ",\"machineId\":" + Json.quote(machineId)
                + ",\"installKey\":" + Json.quote(publicKey) + ",\"createdAt\":" + Json.quote(now.toString()) + ",\"nonce\":" + Json.quote(nonce()) + "}";
        return armored("LICENSE REQUEST", "request/", json);
    }

    /** The proof that this installation retired the file of {@code licenseId}. */
    public String deactivationProof(long licenseId, String machineId, Instant fileIssuedAt, Instant now) throws IOException {
        String json = "{\"v\":1,\"licenseId\":" + licenseId + ",\"machineId\":" + Json.quote(machineId) + ",\"installKeyId\":" + Json.quote(keyId)
                + ",\"fileIssuedAt\":" + Json.quote(fileIssuedAt.toString()) + ",\"deactivatedAt\":" + Json.quote(now.toString()) + ",\"nonce\":" + Json.quote(nonce()) + "}";
        return armored("DEACTIVATION PROOF", "deactivation/", json);
    }
}
