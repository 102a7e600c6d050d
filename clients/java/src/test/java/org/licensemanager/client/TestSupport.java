package org.licensemanager.client;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/** What the test classes share: checks, the run's keys, files and time tokens signed as the server signs them, a stand-in server, a clock, stores. */
final class TestSupport {
    private TestSupport() {}

    static int checks, failures;
    static final Instant NOW = Instant.parse("2026-05-28T20:26:40Z");
    static final Duration DAY = Duration.ofDays(1);

    static KeyPair signing, other;
    static PublicKeys keys;

    static void check(boolean condition, String what) {
        checks++;
        if (!condition) {
            failures++;
            System.err.println("FAILED: " + what);
        }
    }

    /** Makes the run's keys: signing pinned as k1, other pinned nowhere. */
    static void setUpKeys() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("Ed25519");
        signing = generator.generateKeyPair();
        other = generator.generateKeyPair();
        keys = PublicKeys.fromJson("{\"keys\":[{\"kid\":\"k1\",\"alg\":\"ed25519\",\"publicKeyPem\":" + Json.quote(pem(signing)) + ",\"createdAt\":\"2026-01-01T00:00:00.000Z\"}]}");
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    // --- signing, as the server does -------------------------------------------------------------

    static String pem(KeyPair pair) {
        return "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(pair.getPublic().getEncoded()) + "\n-----END PUBLIC KEY-----\n";
    }

    static String sign(PrivateKey key, String message) throws Exception {
        Signature signer = Signature.getInstance("Ed25519");
        signer.initSign(key);
        signer.update(message.getBytes(StandardCharsets.US_ASCII));
        return Base64.getEncoder().encodeToString(signer.sign());
    }

    static String file(KeyPair key, String kid, String machine, String product, Instant issued, Instant expires, long refetchSeconds, String kind) throws Exception {
        return file(key, kid, machine, product, issued, expires, refetchSeconds, kind, "");
    }

    /** A file with more members ({@code extra}: ",\"name\":value..."), signed as the server signs. */
    static String file(KeyPair key, String kid, String machine, String product, Instant issued, Instant expires, long refetchSeconds, String kind, String extra) throws Exception {
        String payload = "{\"formatVersion\":1,\"licenseId\":" + (kind.equals("ANYLIC") ? "null" : "42") + ",\"kind\":\"" + kind + "\",\"policyType\":\"INDEFINITE\","
                + "\"product\":{\"id\":1,\"name\":" + Json.quote(product) + ",\"version\":\"2.0\"},\"features\":[\"export:pdf\",\"Zeichnen \\u00e4\"],"
                + "\"machineId\":" + Json.quote(machine) + ",\"owner\":{\"name\":\"Ada\",\"company\":null},\"issuedAt\":\"" + issued + "\",\"expiresAt\":"
                + (expires == null ? "null" : "\"" + expires + "\"") + ",\"licenseValidUntil\":null,\"permanent\":true,\"freeUpdatesUntil\":null,"
                + "\"refetchIntervalSeconds\":" + refetchSeconds + ",\"refetchBeforeExpirySeconds\":86400,\"serverCustomerId\":null,\"kid\":\"" + kid + "\"" + extra + "}";
        String enc = Base64.getEncoder().encodeToString(payload.getBytes(StandardCharsets.UTF_8));
        return "{\"enc\":\"" + enc + "\",\"sig\":\"" + sign(key.getPrivate(), "license/" + enc) + "\",\"alg\":\"ed25519\",\"kid\":\"" + kid + "\"}";
    }

    static String file(Instant issued, Instant expires, long refetchSeconds) throws Exception {
        return file(signing, "k1", "M1", "Studio", issued, expires, refetchSeconds, "TAN");
    }

    /** A file of M1 for Studio borrowed until {@code until} (its expiry and borrowedUntil). */
    static String borrowedFile(Instant issued, Instant until, long refetchSeconds) throws Exception {
        return file(signing, "k1", "M1", "Studio", issued, until, refetchSeconds, "TAN", ",\"borrowedUntil\":\"" + until + "\"");
    }

    static String lic(String json) {
        String encoded = Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder("-----BEGIN LICENSE FILE-----\n");
        for (int i = 0; i < encoded.length(); i += 64) out.append(encoded, i, Math.min(encoded.length(), i + 64)).append('\n');
        return out.append("-----END LICENSE FILE-----\n").toString();
    }

    static String timeToken(KeyPair key, Instant t) throws Exception {
        String enc = Base64.getEncoder().encodeToString(("{\"t\":" + t.getEpochSecond() + ",\"kid\":\"k1\"}").getBytes(StandardCharsets.UTF_8));
        return enc + "." + sign(key.getPrivate(), "time/" + enc);
    }

    static String altered(String text, int at) {
        char[] chars = text.toCharArray();
        chars[at] = chars[at] == 'A' ? 'B' : 'A';
        return new String(chars);
    }

    // --- a stand-in license server ----------------------------------------------------------------

    record Answer(int status, String body, String serverTime) {}

    record Received(String method, String body, String ifNoneMatch) {}

    static final class StandIn implements AutoCloseable {
        final HttpServer server;
        final AtomicReference<Answer> next = new AtomicReference<>(new Answer(404, "{\"error\":\"ERR_NO_LICENSE\",\"message\":\"No license\"}", null));
        final List<Received> received = new ArrayList<>();

        StandIn() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/api/client/v1/license", exchange -> {
                String body;
                try (InputStream in = exchange.getRequestBody()) {
                    body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                synchronized (received) {
                    received.add(new Received(exchange.getRequestMethod(), body, exchange.getRequestHeaders().getFirst("If-None-Match")));
                }
                Answer answer = next.get();
                if (answer.serverTime() != null) exchange.getResponseHeaders().add("License-Server-Time", answer.serverTime());
                byte[] bytes = answer.body() == null ? new byte[0] : answer.body().getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(answer.status(), answer.status() == 304 || bytes.length == 0 ? -1 : bytes.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        void answer(int status, String body) {
            next.set(new Answer(status, body, null));
        }

        Received last() {
            synchronized (received) {
                return received.get(received.size() - 1);
            }
        }

        int count() {
            synchronized (received) {
                return received.size();
            }
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    static final class MutableClock extends Clock {
        Instant now = NOW;

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    static Path newStore() throws IOException {
        return Files.createTempDirectory("license-client-test");
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(path);
        }
    }

    static LicenseClient.Builder client(String url, Path store, Clock clock) {
        return LicenseClient.builder().serverUrl(url).product("Studio").machineId("M1").publicKeys(keys).store(store).clock(clock).requestTimeout(Duration.ofSeconds(10));
    }

    /** An address where nothing listens. */
    static final String NOWHERE = "http://127.0.0.1:1";
}
