package org.licensemanager.client;

import static org.licensemanager.client.TestSupport.*;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/** Updates (DESIGN.md section 6i) against a stand-in server: the signed answer, refusals, and downloads kept only when size, SHA-256 and signature are right. */
final class UpdatesTests {
    private UpdatesTests() {}

    /** A stand-in for the updates call and the signed download link. */
    static final class UpdatesServer implements AutoCloseable {
        final HttpServer server;
        final AtomicReference<Integer> status = new AtomicReference<>(200);
        final AtomicReference<String> answer = new AtomicReference<>("{}");
        final AtomicReference<byte[]> file = new AtomicReference<>(new byte[0]);
        final List<String> bodies = new ArrayList<>();
        int downloads;

        UpdatesServer() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/api/client/v1/updates", exchange -> {
                try (InputStream in = exchange.getRequestBody()) {
                    synchronized (bodies) {
                        bodies.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    }
                }
                byte[] bytes = answer.get().getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(status.get(), bytes.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            });
            server.createContext("/files/", exchange -> {
                synchronized (bodies) {
                    downloads++;
                }
                byte[] bytes = file.get();
                exchange.sendResponseHeaders(200, bytes.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    /** An updates answer as the server signs it: {enc, sig, alg, kid}, sig over "updates/" + enc. */
    static String answer(KeyPair key, String kid, String payload) throws Exception {
        String enc = Base64.getEncoder().encodeToString(payload.getBytes(StandardCharsets.UTF_8));
        return "{\"enc\":\"" + enc + "\",\"sig\":\"" + sign(key.getPrivate(), "updates/" + enc) + "\",\"alg\":\"ed25519\",\"kid\":\"" + kid + "\"}";
    }

    static Updates.Artifact artifact(String url, String filename, byte[] bytes, String kid, KeyPair key) throws Exception {
        String hash = sha256(bytes);
        return new Updates.Artifact("linux", "x86_64", filename, bytes.length, hash, sign(key.getPrivate(), "artifact/" + hash), kid, url, NOW.plusSeconds(600));
    }

    static String code(ThrowingRunnable action) throws Exception {
        try {
            action.run();
            return null;
        } catch (Updates.UpdateException e) {
            return e.code();
        }
    }

    static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(path -> path.getFileName().toString()).toList();
        }
    }

    static void checkForUpdate() throws Exception {
        try (UpdatesServer server = new UpdatesServer()) {
            byte[] bytes = "the release".getBytes(StandardCharsets.UTF_8);
            Updates.Artifact a = artifact(server.url() + "/files/1", "studio-2.1.0.zip", bytes, "k1", signing);
            String payload = "{\"latest\":{\"version\":\"2.1.0\",\"releasedAt\":\"2026-05-01T00:00:00.000Z\",\"notes\":{\"en\":\"Faster\"},\"artifacts\":[{\"platform\":\"linux\",\"arch\":\"x86_64\","
                    + "\"filename\":\"studio-2.1.0.zip\",\"size\":" + bytes.length + ",\"sha256\":\"" + a.sha256() + "\",\"sig\":\"" + a.sig() + "\",\"kid\":\"k1\",\"url\":\"" + a.url()
                    + "\",\"urlExpiresAt\":\"2026-05-28T20:36:40.000Z\"}]},\"newer\":{\"version\":\"3.0.0\",\"releasedAt\":\"2026-05-20T00:00:00.000Z\",\"reason\":\"free-updates-ended\"},"
                    + "\"issuedAt\":\"2026-05-28T20:26:40.000Z\"}";
            server.answer.set(answer(signing, "k1", payload));
            Updates.UpdateInfo info = Updates.checkForUpdate(server.url() + "/", "Studio", "2.0.0", "M1", "linux", "x86_64", null, keys);
            check(info.latest() != null && info.latest().version().equals("2.1.0") && info.latest().notes().get("en").equals("Faster"), "latest read: " + info);
            check(info.latest().artifacts().size() == 1 && info.latest().artifacts().get(0).equals(new Updates.Artifact("linux", "x86_64", "studio-2.1.0.zip", bytes.length, a.sha256(), a.sig(), "k1", a.url(),
                    java.time.Instant.parse("2026-05-28T20:36:40Z"))), "artifact read: " + info.latest().artifacts());
            check(info.newer() != null && info.newer().version().equals("3.0.0") && info.newer().reason().equals("free-updates-ended"), "newer read");
            check(NOW.equals(info.issuedAt()), "issuedAt read");
            Map<String, Object> body = Json.object(Json.parse(server.bodies.get(server.bodies.size() - 1)));
            check(Map.of("machineId", "M1", "product", "Studio", "version", "2.0.0", "platform", "linux", "arch", "x86_64", "channel", "stable").equals(body), "request body: " + body);

            server.answer.set(answer(signing, "k1", "{\"latest\":null,\"newer\":null,\"issuedAt\":\"2026-05-28T20:26:40.000Z\"}"));
            info = Updates.checkForUpdate(server.url(), "Studio", "2.0.0", "M1", "linux", "x86_64", "beta", keys);
            check(info.latest() == null && info.newer() == null, "nothing newer");
            check("beta".equals(Json.object(Json.parse(server.bodies.get(server.bodies.size() - 1))).get("channel")), "the beta channel asked");

            // An altered answer, one signed by a key not pinned, one claiming a pinned kid with another key: refused.
            String good = answer(signing, "k1", payload);
            Map<String, Object> parsed = Json.object(Json.parse(good));
            String enc = (String) parsed.get("enc");
            String otherEnc = Base64.getEncoder().encodeToString(payload.replace("2.1.0", "9.9.9").getBytes(StandardCharsets.UTF_8));
            server.answer.set(good.replace(enc, otherEnc));
            check("BAD_SIGNATURE".equals(code(() -> Updates.checkForUpdate(server.url(), "Studio", "2.0.0", "M1", "linux", "x86_64", null, keys))), "altered enc refused");
            server.answer.set(answer(other, "k2", payload));
            check("BAD_SIGNATURE".equals(code(() -> Updates.checkForUpdate(server.url(), "Studio", "2.0.0", "M1", "linux", "x86_64", null, keys))), "unknown key refused");
            server.answer.set(answer(other, "k1", payload));
            check("BAD_SIGNATURE".equals(code(() -> Updates.checkForUpdate(server.url(), "Studio", "2.0.0", "M1", "linux", "x86_64", null, keys))), "another key under a pinned kid refused");
            server.answer.set(answer(signing, "k1", "not json"));
            check("MALFORMED".equals(code(() -> Updates.checkForUpdate(server.url(), "Studio", "2.0.0", "M1", "linux", "x86_64", null, keys))), "a signed payload that is not JSON: MALFORMED");

            // Refusals carry the server's code.
            server.status.set(404);
            server.answer.set("{\"error\":\"ERR_NO_LICENSE\",\"message\":\"No license for this machine\"}");
            check("ERR_NO_LICENSE".equals(code(() -> Updates.checkForUpdate(server.url(), "Studio", "2.0.0", "M1", "linux", "x86_64", null, keys))), "ERR_NO_LICENSE");
            server.status.set(502);
            server.answer.set("<html>bad gateway</html>");
            check("HTTP_502".equals(code(() -> Updates.checkForUpdate(server.url(), "Studio", "2.0.0", "M1", "linux", "x86_64", null, keys))), "a body that is not the server's: HTTP_502");
        }
        boolean unreachable = false;
        try {
            Updates.checkForUpdate(NOWHERE, "Studio", "2.0.0", "M1", "linux", "x86_64", null, keys);
        } catch (IOException e) {
            unreachable = true;
        }
        check(unreachable, "no server: IOException");
    }

    static void download() throws Exception {
        Path dir = newStore();
        try (UpdatesServer server = new UpdatesServer()) {
            byte[] bytes = new byte[300_000];
            new Random(7).nextBytes(bytes);
            server.file.set(bytes);
            String url = server.url() + "/files/1";

            Path kept = Updates.download(artifact(url, "studio-2.1.0.zip", bytes, "k1", signing), keys, dir);
            check(kept.equals(dir.resolve("studio-2.1.0.zip")) && java.util.Arrays.equals(Files.readAllBytes(kept), bytes), "downloaded and kept");
            check(listing(dir).equals(List.of("studio-2.1.0.zip")), "no temporary file left: " + listing(dir));
            Files.delete(kept);

            // Only the last part of the name; names that are no file name refused.
            kept = Updates.download(artifact(url, "../../etc/studio.zip", bytes, "k1", signing), keys, dir);
            check(kept.equals(dir.resolve("studio.zip")), "the last part of the name: " + kept);
            Files.delete(kept);
            kept = Updates.download(artifact(url, "builds\\win\\studio.exe", bytes, "k1", signing), keys, dir);
            check(kept.equals(dir.resolve("studio.exe")), "the last part of a backslash name: " + kept);
            Files.delete(kept);
            for (String name : List.of("..", "builds/", "", "a\nb", "C:evil")) {
                check("BAD_FILENAME".equals(code(() -> Updates.download(artifact(url, name, bytes, "k1", signing), keys, dir))), "name refused: " + name);
            }

            // The signature over "artifact/" + SHA-256: an altered checksum, an unknown or absent kid, another key: refused before downloading.
            int before = server.downloads;
            Updates.Artifact good = artifact(url, "studio.zip", bytes, "k1", signing);
            String alteredHash = (good.sha256().charAt(0) == '0' ? "1" : "0") + good.sha256().substring(1);
            check("BAD_SIGNATURE".equals(code(() -> Updates.download(new Updates.Artifact("linux", "x86_64", "studio.zip", bytes.length, alteredHash, good.sig(), "k1", url, null), keys, dir))),
                    "altered sha256 refused");
            check("BAD_SIGNATURE".equals(code(() -> Updates.download(artifact(url, "studio.zip", bytes, "k2", other), keys, dir))), "a key not pinned refused");
            check("BAD_SIGNATURE".equals(code(() -> Updates.download(artifact(url, "studio.zip", bytes, "k1", other), keys, dir))), "another key under a pinned kid refused");
            check("BAD_SIGNATURE".equals(code(() -> Updates.download(artifact(url, "studio.zip", bytes, null, signing), keys, dir))), "no kid refused");
            check(server.downloads == before, "nothing downloaded for a checksum not signed");

            // Bytes that differ from the signed ones (same length; shorter; longer): refused, nothing kept.
            byte[] changed = bytes.clone();
            changed[100_000] ^= 1;
            server.file.set(changed);
            check("CHECKSUM_MISMATCH".equals(code(() -> Updates.download(good, keys, dir))), "a changed byte: CHECKSUM_MISMATCH");
            check(listing(dir).isEmpty(), "nothing kept after CHECKSUM_MISMATCH: " + listing(dir));
            server.file.set(java.util.Arrays.copyOf(bytes, bytes.length - 1));
            check("SIZE_MISMATCH".equals(code(() -> Updates.download(good, keys, dir))), "shorter: SIZE_MISMATCH");
            server.file.set(java.util.Arrays.copyOf(bytes, bytes.length + 70_000));
            check("SIZE_MISMATCH".equals(code(() -> Updates.download(good, keys, dir))), "longer: SIZE_MISMATCH");
            check(listing(dir).isEmpty(), "nothing kept after SIZE_MISMATCH: " + listing(dir));

            // A file already there of that name stays when the download is refused.
            Files.writeString(dir.resolve("studio.zip"), "old");
            server.file.set(changed);
            check("CHECKSUM_MISMATCH".equals(code(() -> Updates.download(good, keys, dir))), "refused again");
            check(listing(dir).equals(List.of("studio.zip")) && Files.readString(dir.resolve("studio.zip")).equals("old"), "the old file untouched");
        } finally {
            delete(dir);
        }
    }
}
