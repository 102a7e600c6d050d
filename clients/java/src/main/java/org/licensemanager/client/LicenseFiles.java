package org.licensemanager.client;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Map;

/**
 * Reading and verifying license files (docs/license-files.md): a {@code .json} file is
 * {@code {"enc","sig","alg":"ed25519","kid"}}, a {@code .lic} file that JSON in base64 between
 * BEGIN/END LICENSE FILE lines; sig is the Ed25519 signature of "license/" + enc.
 */
public final class LicenseFiles {
    private static final String BEGIN = "-----BEGIN LICENSE FILE-----";
    private static final String END = "-----END LICENSE FILE-----";

    private LicenseFiles() {}

    /** The fields of a license file: enc, sig, kid. */
    record Signed(String enc, String sig, String kid) {}

    static Signed parse(String text) throws InvalidLicenseFileException {
        String json = text.strip();
        if (json.startsWith("\uFEFF")) json = json.substring(1);
        if (json.startsWith(BEGIN)) {
            int end = json.indexOf(END);
            if (end < 0) throw new InvalidLicenseFileException(InvalidLicenseFileException.Problem.MALFORMED, "the END LICENSE FILE line is missing");
            json = utf8(base64(json.substring(BEGIN.length(), end).replaceAll("\\s+", "")));
        }
        Map<String, Object> file;
        try {
            file = Json.object(Json.parse(json));
        } catch (IllegalArgumentException e) {
            file = null;
        }
        String enc = Json.string(file, "enc"), sig = Json.string(file, "sig"), kid = Json.string(file, "kid");
        if (enc == null || sig == null || kid == null || !"ed25519".equals(Json.string(file, "alg"))) {
            throw new InvalidLicenseFileException(InvalidLicenseFileException.Problem.MALFORMED, "not a license file: it lacks enc, sig, alg \"ed25519\" or kid");
        }
        return new Signed(enc, sig, kid);
    }

    /** Verifies a .lic or .json file against the pinned keys and returns its payload. */
    public static LicensePayload verify(String text, PublicKeys keys) throws InvalidLicenseFileException {
        Signed file = parse(text);
        if (keys.find(file.kid()) == null) throw new InvalidLicenseFileException(InvalidLicenseFileException.Problem.UNKNOWN_KEY, "signed with the unknown key " + file.kid());
        if (!keys.verify(file.kid(), ("license/" + file.enc()).getBytes(StandardCharsets.US_ASCII), file.sig())) {
            throw new InvalidLicenseFileException(InvalidLicenseFileException.Problem.BAD_SIGNATURE, "the signature does not match: the file was altered");
        }
        LicensePayload payload;
        try {
            payload = LicensePayload.from(Json.object(Json.parse(utf8(base64(file.enc())))));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidLicenseFileException(InvalidLicenseFileException.Problem.MALFORMED, "the payload is not valid: " + e.getMessage());
        }
        if (!file.kid().equals(payload.kid())) throw new InvalidLicenseFileException(InvalidLicenseFileException.Problem.BAD_SIGNATURE, "the payload names another key");
        return payload;
    }

    /**
     * The file's ETag as the server writes it: {@code "lm1-<issuedAt ms, base 36>-<SHA-256 of enc,
     * base64url, first 22 characters>"}. Sent as If-None-Match; derived from the file itself.
     */
    public static String tag(String text) throws InvalidLicenseFileException {
        Signed file = parse(text);
        LicensePayload payload;
        try {
            payload = LicensePayload.from(Json.object(Json.parse(utf8(base64(file.enc())))));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidLicenseFileException(InvalidLicenseFileException.Problem.MALFORMED, "the payload is not valid");
        }
        return tag(file.enc(), payload);
    }

    static String tag(String enc, LicensePayload payload) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(enc.getBytes(StandardCharsets.US_ASCII));
            String hash = Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 22);
            return "\"lm1-" + Long.toString(payload.issuedAt().toEpochMilli(), 36) + "-" + hash + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] base64(String text) throws InvalidLicenseFileException {
        if (text.length() % 4 != 0 || !text.matches("[A-Za-z0-9+/]*={0,2}")) throw new InvalidLicenseFileException(InvalidLicenseFileException.Problem.MALFORMED, "not valid base64");
        return Base64.getDecoder().decode(text);
    }

    static String utf8(byte[] bytes) throws InvalidLicenseFileException {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new InvalidLicenseFileException(InvalidLicenseFileException.Problem.MALFORMED, "not UTF-8 text");
        }
    }
}
