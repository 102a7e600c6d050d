package org.licensemanager.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Updates for entitled licenses (DESIGN.md section 6i): {@link #checkForUpdate} asks the server
 * which newer release the machine's license may have and verifies the signed answer with the pinned
 * keys; {@link #download} fetches one of its files through the signed link into a folder and keeps
 * it only once its size, SHA-256 and the server's signature over {@code artifact/} + SHA-256 are
 * right.
 */
public final class Updates {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(15)).followRedirects(HttpClient.Redirect.NORMAL).build();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private Updates() {}

    /** A file of a release for a platform (windows, macos, linux, any) and architecture (x86_64, arm64, any), with its signed short-lived link. */
    public record Artifact(String platform, String arch, String filename, long size, String sha256, String sig, String kid, String url, Instant urlExpiresAt) {}

    /** The newest release newer than the running version that the license may have, with its files for this platform. */
    public record Latest(String version, Instant releasedAt, Map<String, String> notes, List<Artifact> artifacts) {}

    /** The newest release the license may not have, and why ({@code free-updates-ended}, {@code beta-not-allowed}, …). */
    public record Newer(String version, Instant releasedAt, String reason) {}

    /** The verified answer: {@code latest} and {@code newer} are null when there is none. */
    public record UpdateInfo(Latest latest, Newer newer, Instant issuedAt) {}

    /**
     * A refusal of the server (its code: {@code ERR_NO_LICENSE}, {@code ERR_LICENSE_REVOKED}, …, or
     * {@code HTTP_<status>}), or an answer or file that did not verify: {@code BAD_SIGNATURE},
     * {@code MALFORMED}, {@code SIZE_MISMATCH}, {@code CHECKSUM_MISMATCH}, {@code BAD_FILENAME}.
     */
    public static final class UpdateException extends Exception {
        private static final long serialVersionUID = 1L;
        private final String code;

        public UpdateException(String code, String message) {
            super(message);
            this.code = code;
        }

        public String code() {
            return code;
        }
    }

    /**
     * Asks {@code POST /api/client/v1/updates} for the machine's license and returns the verified
     * answer. {@code channel} is {@code stable} (null) or {@code beta}.
     *
     * @throws UpdateException the server's refusal, or an answer not signed by a pinned key
     * @throws IOException the server cannot be reached
     */
    public static UpdateInfo checkForUpdate(String serverUrl, String product, String version, String machineId, String platform, String arch, String channel, PublicKeys publicKeys)
            throws UpdateException, IOException, InterruptedException {
        String body = "{\"machineId\":" + Json.quote(machineId) + ",\"product\":" + Json.quote(product) + ",\"version\":" + Json.quote(version)
                + ",\"platform\":" + Json.quote(platform) + ",\"arch\":" + Json.quote(arch) + ",\"channel\":" + Json.quote(channel == null ? "stable" : channel) + "}";
        HttpRequest request = HttpRequest.newBuilder(URI.create(serverUrl.replaceAll("/+$", "") + "/api/client/v1/updates")).timeout(REQUEST_TIMEOUT)
                .header("content-type", "application/json").header("accept", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        Map<String, Object> answer;
        try {
            answer = Json.object(Json.parse(response.body()));
        } catch (IllegalArgumentException e) {
            answer = null;
        }
        if (response.statusCode() / 100 != 2) {
            String code = Json.string(answer, "error"), message = Json.string(answer, "message");
            throw new UpdateException(code != null ? code : "HTTP_" + response.statusCode(), message != null ? message : "the server answered " + response.statusCode());
        }
        String enc = Json.string(answer, "enc"), sig = Json.string(answer, "sig"), kid = Json.string(answer, "kid");
        if (enc == null || sig == null || kid == null) throw new UpdateException("MALFORMED", "the updates answer lacks enc, sig or kid");
        if (!publicKeys.verify(kid, ("updates/" + enc).getBytes(StandardCharsets.US_ASCII), sig)) {
            throw new UpdateException("BAD_SIGNATURE", "the updates answer is not signed by a pinned key");
        }
        try {
            return info(Json.object(Json.parse(LicenseFiles.utf8(LicenseFiles.base64(enc)))));
        } catch (InvalidLicenseFileException | IllegalArgumentException | NullPointerException | DateTimeParseException e) {
            throw new UpdateException("MALFORMED", "the updates answer is not valid: " + e.getMessage());
        }
    }

    /**
     * Downloads the file through its signed link into {@code directory}, as the last part of its
     * filename, and returns its path. The file streams to a temporary file in the folder while it is
     * hashed, and is moved to its name only once its size, SHA-256 and signature are right; otherwise
     * nothing is kept.
     *
     * @throws UpdateException BAD_SIGNATURE, SIZE_MISMATCH, CHECKSUM_MISMATCH, BAD_FILENAME, HTTP_&lt;status&gt;
     * @throws IOException the download or the folder failed
     */
    public static Path download(Artifact artifact, PublicKeys publicKeys, Path directory) throws UpdateException, IOException, InterruptedException {
        String sha256 = artifact.sha256() == null ? "" : artifact.sha256();
        if (!sha256.matches("[0-9a-f]{64}") || artifact.sig() == null
                || !publicKeys.verify(artifact.kid(), ("artifact/" + sha256).getBytes(StandardCharsets.US_ASCII), artifact.sig())) {
            throw new UpdateException("BAD_SIGNATURE", "the file's checksum is not signed by a pinned key");
        }
        String name = fileName(artifact.filename());
        Path target = directory.resolve(name).normalize();
        if (!directory.normalize().equals(target.getParent())) throw new UpdateException("BAD_FILENAME", "the file name " + artifact.filename() + " leaves the folder");
        URI uri;
        try {
            uri = URI.create(artifact.url());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new UpdateException("MALFORMED", "the download link is not a URL");
        }
        if (!"https".equalsIgnoreCase(uri.getScheme()) && !"http".equalsIgnoreCase(uri.getScheme())) throw new UpdateException("MALFORMED", "the download link is not http(s)");
        HttpResponse<InputStream> response = HTTP.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        Path temporary = null;
        boolean kept = false;
        try (InputStream in = response.body()) {
            if (response.statusCode() / 100 != 2) throw new UpdateException("HTTP_" + response.statusCode(), "the download answered " + response.statusCode());
            temporary = Files.createTempFile(directory, "." + name + ".", ".part");
            MessageDigest digest = sha256Digest();
            long total = 0;
            byte[] buffer = new byte[64 * 1024];
            try (OutputStream out = Files.newOutputStream(temporary)) {
                for (int read; (read = in.read(buffer)) >= 0; ) {
                    total += read;
                    if (total > artifact.size()) throw new UpdateException("SIZE_MISMATCH", "the download is longer than the " + artifact.size() + " bytes signed");
                    digest.update(buffer, 0, read);
                    out.write(buffer, 0, read);
                }
            }
            if (total != artifact.size()) throw new UpdateException("SIZE_MISMATCH", "expected " + artifact.size() + " bytes, got " + total);
            if (!HexFormat.of().formatHex(digest.digest()).equals(sha256)) throw new UpdateException("CHECKSUM_MISMATCH", "the downloaded file is not the signed one");
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
            }
            kept = true;
            return target;
        } finally {
            if (!kept && temporary != null) Files.deleteIfExists(temporary);
        }
    }

    /** The last part of a release file's name (either slash), refused when it is empty, a dot name or otherwise unsafe. */
    static String fileName(String filename) throws UpdateException {
        String name = filename == null ? "" : filename.substring(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
        if (name.isEmpty() || name.equals(".") || name.equals("..") || name.chars().anyMatch(c -> c < 0x20 || c == 0x7f || c == ':')) {
            throw new UpdateException("BAD_FILENAME", "not a usable file name: " + filename);
        }
        return name;
    }

    private static MessageDigest sha256Digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static UpdateInfo info(Map<String, Object> payload) {
        if (payload == null) throw new IllegalArgumentException("the payload is not an object");
        Map<String, Object> latest = Json.object(payload.get("latest")), newer = Json.object(payload.get("newer"));
        if (payload.get("latest") != null && latest == null || payload.get("newer") != null && newer == null) throw new IllegalArgumentException("latest or newer is not an object");
        return new UpdateInfo(latest == null ? null : latest(latest), newer == null ? null : new Newer(required(newer, "version"), instant(newer, "releasedAt"), Json.string(newer, "reason")), instant(payload, "issuedAt"));
    }

    private static Latest latest(Map<String, Object> latest) {
        Map<String, String> notes = new LinkedHashMap<>();
        Map<String, Object> rawNotes = Json.object(latest.get("notes"));
        if (rawNotes != null) rawNotes.forEach((language, text) -> {
            if (text instanceof String s) notes.put(language, s);
        });
        List<Artifact> artifacts = new ArrayList<>();
        if (latest.get("artifacts") instanceof List<?> list) {
            for (Object item : list) {
                Map<String, Object> a = Json.object(item);
                if (a == null) throw new IllegalArgumentException("an artifact is not an object");
                Double size = Json.number(a, "size");
                if (size == null || size < 0 || size != Math.rint(size)) throw new IllegalArgumentException("an artifact lacks its size");
                artifacts.add(new Artifact(Json.string(a, "platform"), Json.string(a, "arch"), required(a, "filename"), size.longValue(), required(a, "sha256"), required(a, "sig"),
                        Json.string(a, "kid"), required(a, "url"), instant(a, "urlExpiresAt")));
            }
        }
        return new Latest(required(latest, "version"), instant(latest, "releasedAt"), Collections.unmodifiableMap(notes), List.copyOf(artifacts));
    }

    private static String required(Map<String, Object> object, String key) {
        String value = Json.string(object, key);
        if (value == null) throw new IllegalArgumentException("lacks " + key);
        return value;
    }

    private static Instant instant(Map<String, Object> object, String key) {
        String value = Json.string(object, key);
        return value == null ? null : Instant.parse(value);
    }
}
