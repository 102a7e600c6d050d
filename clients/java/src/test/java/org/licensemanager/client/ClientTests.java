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
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The unit tests of the Java client, run by {@code ./build test} without any test library: formats,
 * verification, the ETag, time tokens, and the client against a stand-in server (the JDK's HttpServer)
 * whose answers each test sets: 200, 304, refusals, failures, release, borrowing and trusted time.
 */
public final class ClientTests {
    private static int checks, failures;
    private static final Instant NOW = Instant.parse("2026-05-28T20:26:40Z");
    private static final Duration DAY = Duration.ofDays(1);

    private static KeyPair signing, other;
    private static PublicKeys keys;

    static void check(boolean condition, String what) {
        checks++;
        if (!condition) {
            failures++;
            System.err.println("FAILED: " + what);
        }
    }

    public static void main(String[] args) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("Ed25519");
        signing = generator.generateKeyPair();
        other = generator.generateKeyPair();
        keys = PublicKeys.fromJson("{\"keys\":[{\"kid\":\"k1\",\"alg\":\"ed25519\",\"publicKeyPem\":" + Json.quote(pem(signing)) + ",\"createdAt\":\"2026-01-01T00:00:00.000Z\"}]}");

        for (var test : List.<Map.Entry<String, ThrowingRunnable>>of(
                Map.entry("json", ClientTests::json),
                Map.entry("verification", ClientTests::verification),
                Map.entry("tag", ClientTests::tag),
                Map.entry("time tokens", ClientTests::timeTokens),
                Map.entry("fetch, store, 304 and the refresh schedule", ClientTests::fetchAndConfirm),
                Map.entry("refusals", ClientTests::refusals),
                Map.entry("offline until expiry", ClientTests::offline),
                Map.entry("altered and foreign files, imports, ANY-Lic", ClientTests::imports),
                Map.entry("release and borrowing", ClientTests::releaseAndBorrow),
                Map.entry("trusted time", ClientTests::trustedTime),
                Map.entry("fingerprint", ClientTests::fingerprint),
                Map.entry("shared test vectors", ClientTests::sharedVectors))) {
            int before = failures;
            try {
                test.getValue().run();
            } catch (Throwable e) {
                failures++;
                System.err.println("FAILED: " + test.getKey() + " threw " + e);
                e.printStackTrace();
            }
            System.err.println((failures == before ? "ok   " : "FAIL ") + test.getKey());
        }
        System.out.println(checks + " checks, " + failures + " failed");
        System.exit(failures == 0 ? 0 : 1);
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
        String payload = "{\"formatVersion\":1,\"licenseId\":" + (kind.equals("ANYLIC") ? "null" : "42") + ",\"kind\":\"" + kind + "\",\"policyType\":\"INDEFINITE\","
                + "\"product\":{\"id\":1,\"name\":" + Json.quote(product) + ",\"version\":\"2.0\"},\"features\":[\"export:pdf\",\"Zeichnen \\u00e4\"],"
                + "\"machineId\":" + Json.quote(machine) + ",\"owner\":{\"name\":\"Ada\",\"company\":null},\"issuedAt\":\"" + issued + "\",\"expiresAt\":"
                + (expires == null ? "null" : "\"" + expires + "\"") + ",\"licenseValidUntil\":null,\"permanent\":true,\"freeUpdatesUntil\":null,"
                + "\"refetchIntervalSeconds\":" + refetchSeconds + ",\"refetchBeforeExpirySeconds\":86400,\"serverCustomerId\":null,\"kid\":\"" + kid + "\"}";
        String enc = Base64.getEncoder().encodeToString(payload.getBytes(StandardCharsets.UTF_8));
        return "{\"enc\":\"" + enc + "\",\"sig\":\"" + sign(key.getPrivate(), "license/" + enc) + "\",\"alg\":\"ed25519\",\"kid\":\"" + kid + "\"}";
    }

    static String file(Instant issued, Instant expires, long refetchSeconds) throws Exception {
        return file(signing, "k1", "M1", "Studio", issued, expires, refetchSeconds, "TAN");
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

    // --- the tests --------------------------------------------------------------------------------

    static void json() {
        Map<String, Object> root = Json.object(Json.parse(" {\"a\":[1,-2.5e1,true,false,null],\"s\":\"q\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\",\"o\":{}} "));
        List<?> a = (List<?>) root.get("a");
        check(a.size() == 5 && a.get(0).equals(1.0) && a.get(1).equals(-25.0) && a.get(2).equals(true) && a.get(4) == null, "arrays, numbers, literals");
        check("q\"\\/\né😀".equals(root.get("s")), "string escapes and surrogate pairs");
        for (String bad : new String[] {"{\"a\":1", "{\"a\":1} x", "\"\\ud800\"", "01", "[1,]", "{'a':1}", ""}) {
            try {
                Json.parse(bad);
                check(false, "refuses " + bad);
            } catch (IllegalArgumentException e) {
                check(true, "refuses " + bad);
            }
        }
        check(Json.quote("a\"b\\c\n\u0001").equals("\"a\\\"b\\\\c\\n\\u0001\""), "quote");
    }

    static void verification() throws Exception {
        String json = file(NOW, NOW.plus(DAY.multipliedBy(10)), 86400);
        LicensePayload payload = LicenseFiles.verify(json, keys);
        check(payload.licenseId() == 42 && payload.machineId().equals("M1") && payload.expiresAt().equals(NOW.plus(DAY.multipliedBy(10))), "payload fields");
        check(payload.hasFeature("Zeichnen ä") && !payload.hasFeature("export"), "features");
        check(LicenseFiles.verify(lic(json), keys).equals(payload), ".lic verifies like .json");
        expectInvalid(altered(json, 12), InvalidLicenseFileException.Problem.BAD_SIGNATURE, "a payload byte changed");
        expectInvalid(altered(lic(json), 40), null, "a .lic byte changed");
        expectInvalid(file(other, "k9", "M1", "Studio", NOW, null, 0, "TAN"), InvalidLicenseFileException.Problem.UNKNOWN_KEY, "a key not pinned");
        expectInvalid(file(other, "k1", "M1", "Studio", NOW, null, 0, "TAN"), InvalidLicenseFileException.Problem.BAD_SIGNATURE, "another key under a pinned kid");
        expectInvalid("not a file", InvalidLicenseFileException.Problem.MALFORMED, "not a file");
    }

    static void expectInvalid(String text, InvalidLicenseFileException.Problem problem, String what) {
        try {
            LicenseFiles.verify(text, keys);
            check(false, what + " is refused");
        } catch (InvalidLicenseFileException e) {
            check(problem == null || e.problem() == problem, what + " is refused as " + problem + " (got " + e.problem() + ")");
        }
    }

    static void tag() throws Exception {
        // The same tag as the server and the Node SDK derive (docs/license-files.md).
        String text = "{\"enc\":\"eyJpc3N1ZWRBdCI6IjIwMjYtMDUtMDFUMTA6MDA6MDAuMTIzWiIsIngiOiLDqSJ9\",\"sig\":\"\",\"alg\":\"ed25519\",\"kid\":\"k\"}";
        try {
            LicenseFiles.tag(text);
            check(false, "a payload without machine and product has no tag");
        } catch (InvalidLicenseFileException e) {
            check(true, "a payload without machine and product has no tag");
        }
        String enc = "eyJpc3N1ZWRBdCI6IjIwMjYtMDUtMDFUMTA6MDA6MDAuMTIzWiIsIngiOiLDqSJ9";
        LicensePayload issued = LicensePayload.from(Json.object(Json.parse(
                "{\"kind\":\"TAN\",\"machineId\":\"M\",\"kid\":\"k\",\"issuedAt\":\"2026-05-01T10:00:00.123Z\",\"product\":{\"name\":\"P\",\"version\":\"1\"}}")));
        check(LicenseFiles.tag(enc, issued).equals("\"lm1-momqrlvf-bD8eLxSZUP00Krl6tz6527\""), "the tag of a known file");
    }

    static void timeTokens() throws Exception {
        check(ServerTime.verify(timeToken(signing, NOW), keys).equals(java.util.Optional.of(NOW)), "a token verifies");
        check(ServerTime.verify(timeToken(other, NOW), keys).isEmpty(), "a forged token does not");
        check(ServerTime.verify("garbage", keys).isEmpty() && ServerTime.verify(null, keys).isEmpty(), "garbage does not");
    }

    static void fetchAndConfirm() throws Exception {
        Path store = newStore();
        MutableClock clock = new MutableClock();
        try (StandIn server = new StandIn()) {
            LicenseClient client = client(server.url(), store, clock).version("2.0").build();
            String json = file(NOW, NOW.plus(DAY.multipliedBy(10)), 86400);
            server.answer(200, json);
            LicenseStatus status = client.check();
            check(status.valid() && status.fromServer() && status.license().licenseId() == 42, "fetched");
            check(server.last().method().equals("POST") && server.last().ifNoneMatch() == null, "first fetch without If-None-Match");
            Map<String, Object> body = Json.object(Json.parse(server.last().body()));
            check("M1".equals(body.get("machineId")) && "Studio".equals(body.get("product")) && "2.0".equals(body.get("version")) && !body.containsKey("borrowDays"), "request body");
            check(json.equals(Files.readString(store.resolve("license.json"))), "kept as license.json");

            clock.now = NOW.plus(Duration.ofHours(12));
            int asked = server.count();
            status = client.check();
            check(status.valid() && !status.fromServer() && server.count() == asked, "not due: the stored file, no request");

            clock.now = NOW.plus(Duration.ofHours(25));
            server.answer(304, null);
            status = client.check();
            check(status.valid() && status.fromServer() && server.count() == asked + 1, "due: asked, 304");
            check(LicenseFiles.tag(json).equals(server.last().ifNoneMatch()), "If-None-Match is the file's tag");
            // confirmed at hour 25: the next refresh one interval later, not at once
            clock.now = NOW.plus(Duration.ofHours(30));
            status = client.check();
            check(status.valid() && server.count() == asked + 1, "after a 304 the interval counts from the confirmation");
            clock.now = NOW.plus(Duration.ofHours(50));
            String newer = file(clock.now, clock.now.plus(DAY.multipliedBy(10)), 86400);
            server.answer(200, newer);
            status = client.check();
            check(status.valid() && status.license().issuedAt().equals(clock.now) && newer.equals(Files.readString(store.resolve("license.json"))), "a new file replaces the old");
        } finally {
            delete(store);
        }
    }

    static void refusals() throws Exception {
        Map<String, Reason> cases = Map.of(
                "ERR_LICENSE_REVOKED", Reason.REVOKED, "ERR_LICENSE_SUSPENDED", Reason.SUSPENDED, "ERR_LICENSE_EXPIRED", Reason.EXPIRED,
                "ERR_LICENSE_UPGRADED", Reason.UPGRADED, "ERR_NO_SEAT", Reason.NO_SEAT, "ERR_TOO_MANY_MACHINES", Reason.TOO_MANY_MACHINES, "ERR_NO_LICENSE", Reason.NO_LICENSE);
        try (StandIn server = new StandIn()) {
            for (var entry : cases.entrySet()) {
                Path store = newStore();
                try {
                    Files.writeString(store.resolve("license.json"), file(NOW, NOW.plus(DAY.multipliedBy(10)), 86400));
                    server.answer(403, "{\"error\":\"" + entry.getKey() + "\",\"message\":\"refused\"}");
                    LicenseStatus status = client(server.url(), store, Clock.fixed(NOW, ZoneOffset.UTC)).build().refresh();
                    check(!status.valid() && status.reason() == entry.getValue() && status.message().equals("refused"), entry.getKey() + " is " + entry.getValue());
                    check(!Files.exists(store.resolve("license.json")), entry.getKey() + " forgets the stored file");
                } finally {
                    delete(store);
                }
            }
            // a failure that is not the server's word keeps the stored file: offline
            for (int status : new int[] {500, 429, 502}) {
                Path store = newStore();
                try {
                    Files.writeString(store.resolve("license.json"), file(NOW, NOW.plus(DAY.multipliedBy(10)), 86400));
                    server.answer(status, status == 429 ? "{\"error\":\"ERR_RATE_LIMITED\",\"message\":\"slow down\"}" : "oops");
                    LicenseStatus result = client(server.url(), store, Clock.fixed(NOW.plus(DAY.multipliedBy(2)), ZoneOffset.UTC)).build().check();
                    check(result.valid() && result.offline(), status + " keeps the stored file, offline");
                } finally {
                    delete(store);
                }
            }
            // a file from the server signed with a key not pinned (a rotation the software does not know yet)
            Path unpinned = newStore();
            try {
                server.answer(200, file(other, "k2", "M1", "Studio", NOW, null, 0, "TAN"));
                LicenseStatus result = client(server.url(), unpinned, Clock.fixed(NOW, ZoneOffset.UTC)).build().check();
                check(!result.valid() && result.reason() == Reason.INVALID_FILE && result.message().contains("unknown key k2"), "a server file signed by a key not pinned: INVALID_FILE");
            } finally {
                delete(unpinned);
            }
            // an ANY-Lic file outlives the server's refusal of the machine's own license
            Path store = newStore();
            try {
                Files.writeString(store.resolve("any.lic"), lic(file(signing, "k1", "*", "Studio", NOW, NOW.plus(DAY.multipliedBy(30)), 0, "ANYLIC")));
                Files.writeString(store.resolve("license.json"), file(NOW, NOW.plus(DAY.multipliedBy(10)), 86400));
                server.answer(403, "{\"error\":\"ERR_LICENSE_REVOKED\",\"message\":\"revoked\"}");
                LicenseStatus status = client(server.url(), store, Clock.fixed(NOW.plus(DAY.multipliedBy(2)), ZoneOffset.UTC)).build().check();
                check(status.valid() && status.license().isAnyLic() && Files.exists(store.resolve("any.lic")) && !Files.exists(store.resolve("license.json")), "ANY-Lic survives a revocation");
            } finally {
                delete(store);
            }
        }
    }

    static void offline() throws Exception {
        Path store = newStore();
        MutableClock clock = new MutableClock();
        try {
            LicenseClient client = client(NOWHERE, store, clock).build();
            LicenseStatus status = client.check();
            check(!status.valid() && status.reason() == Reason.UNREACHABLE && status.offline(), "nothing stored, no server: UNREACHABLE, offline");
            Files.writeString(store.resolve("license.json"), file(NOW, NOW.plus(DAY.multipliedBy(10)), 86400));
            clock.now = NOW.plus(DAY.multipliedBy(5));
            status = client.check();
            check(status.valid() && status.offline(), "due, server unreachable: offline");
            check(status.toJson().equals("{\"valid\":true,\"reason\":null,\"licenseId\":42,\"offline\":true,\"expiresAt\":\"2026-06-07T20:26:40Z\"}"), "the harness line: " + status.toJson());
            clock.now = NOW.plus(DAY.multipliedBy(10));
            status = client.check();
            check(!status.valid() && status.reason() == Reason.EXPIRED && status.offline(), "expired, offline");
            check(status.toJson().equals("{\"valid\":false,\"reason\":\"EXPIRED\",\"licenseId\":null,\"offline\":true,\"expiresAt\":null}"), "the harness line of an invalid status: " + status.toJson());
        } finally {
            delete(store);
        }
    }

    static void imports() throws Exception {
        Path store = newStore();
        MutableClock clock = new MutableClock();
        try {
            LicenseClient client = client(NOWHERE, store, clock).build();
            String json = file(NOW, NOW.plus(DAY.multipliedBy(10)), 86400);
            Files.writeString(store.resolve("license.json"), altered(json, 20));
            LicenseStatus status = client.check();
            check(!status.valid() && status.reason() == Reason.INVALID_FILE, "an altered stored file, no server: INVALID_FILE");
            status = client.importFile(file(signing, "k1", "M2", "Studio", NOW, null, 0, "TAN"));
            check(!status.valid() && status.reason() == Reason.INVALID_FILE && status.message().contains("M2"), "another machine's file is refused");
            status = client.importFile(file(signing, "k1", "M1", "Paint", NOW, null, 0, "TAN"));
            check(!status.valid() && status.reason() == Reason.INVALID_FILE, "another product's file is refused");
            status = client.importFile(altered(json, 20));
            check(!status.valid() && status.reason() == Reason.INVALID_FILE, "an altered file is refused");
            status = client.importFile(lic(json));
            check(status.valid() && status.license().licenseId() == 42, "a .lic file is imported");
            clock.now = NOW.plus(Duration.ofHours(6));
            status = client.check();
            check(status.valid() && !status.offline(), "and used");
            String any = file(signing, "k1", "*", "Studio", NOW, NOW.plus(DAY.multipliedBy(3)), 0, "ANYLIC");
            clock.now = NOW.plus(DAY.multipliedBy(3));
            status = client.importFile(any);
            check(!status.valid() && status.reason() == Reason.EXPIRED, "an expired file is refused as EXPIRED");
        } finally {
            delete(store);
        }
    }

    static void releaseAndBorrow() throws Exception {
        Path store = newStore();
        try (StandIn server = new StandIn()) {
            Files.writeString(store.resolve("license.json"), file(NOW, NOW.plus(DAY), 900));
            server.answer(204, null);
            client(server.url(), store, Clock.fixed(NOW, ZoneOffset.UTC)).build().release();
            check(server.last().method().equals("DELETE") && server.last().body().contains("\"machineId\":\"M1\""), "release sends DELETE with the machine");
            check(!Files.exists(store.resolve("license.json")), "release forgets the file");

            Files.writeString(store.resolve("license.json"), file(NOW, NOW.plus(DAY), 900));
            String borrowed = file(NOW, NOW.plus(DAY.multipliedBy(7)), 900);
            server.answer(200, borrowed);
            LicenseClient borrower = client(server.url(), store, Clock.fixed(NOW.plusSeconds(60), ZoneOffset.UTC)).borrowDays(7).build();
            LicenseStatus status = borrower.check();
            check(status.valid() && server.last().body().contains("\"borrowDays\":7") && server.last().ifNoneMatch() == null, "a borrow asks at once, with borrowDays and no If-None-Match");
            server.answer(500, "down");
            try {
                client(server.url(), store, Clock.fixed(NOW, ZoneOffset.UTC)).build().release();
                check(false, "a failed release throws");
            } catch (IOException e) {
                check(Files.exists(store.resolve("license.json")), "a failed release keeps the file");
            }
        } finally {
            delete(store);
        }
    }

    static void trustedTime() throws Exception {
        Path store = newStore();
        MutableClock clock = new MutableClock();
        try (StandIn server = new StandIn()) {
            LicenseClient client = client(server.url(), store, clock).build();
            // the server vouches for day 9 with its answer
            server.next.set(new Answer(200, file(NOW, NOW.plus(DAY.multipliedBy(10)), 0), timeToken(signing, NOW.plus(DAY.multipliedBy(9)))));
            clock.now = NOW.plus(DAY.multipliedBy(9));
            check(client.check().valid(), "fetched with a time token");
            check(Files.exists(store.resolve("server-time")), "the token is kept");
            // clock set back one day: within the tolerance, judged by day 9 (the file is still valid)
            clock.now = NOW.plus(DAY.multipliedBy(8));
            LicenseStatus status = client.check();
            check(status.valid(), "one day back: valid");
            // clock set back three days: CLOCK_TAMPERED, the license still named
            clock.now = NOW.plus(DAY.multipliedBy(6));
            status = client.check();
            check(!status.valid() && status.reason() == Reason.CLOCK_TAMPERED && status.license() != null, "three days back: CLOCK_TAMPERED");
            // the server's own refusal stands even with the clock set back
            server.next.set(new Answer(403, "{\"error\":\"ERR_LICENSE_REVOKED\",\"message\":\"revoked\"}", null));
            Path revokedStore = newStore();
            try {
                Files.writeString(revokedStore.resolve("server-time"), timeToken(signing, NOW.plus(DAY.multipliedBy(9))));
                status = client(server.url(), revokedStore, clock).build().check();
                check(!status.valid() && status.reason() == Reason.REVOKED, "REVOKED stays REVOKED with the clock set back: " + status.reason());
            } finally {
                delete(revokedStore);
            }
            // a forged token gains nothing; a file's own issuedAt still counts
            Files.writeString(store.resolve("server-time"), timeToken(other, NOW.plus(DAY.multipliedBy(100))));
            status = client.check();
            check(status.valid(), "a forged token counts for nothing");
            clock.now = NOW.minus(DAY.multipliedBy(3));
            status = client.check();
            check(!status.valid() && status.reason() == Reason.CLOCK_TAMPERED, "behind the file's issuedAt: CLOCK_TAMPERED");
            // a tighter tolerance
            clock.now = NOW.minus(Duration.ofHours(3));
            check(client(server.url(), store, clock).clockTolerance(Duration.ofHours(2)).build().check().reason() == Reason.CLOCK_TAMPERED, "the tolerance is an option");
            // expiry judged against the server's time: a clock held back does not keep an expired file
            server.next.set(new Answer(503, "down", timeToken(signing, NOW.plus(DAY.multipliedBy(11)))));
            clock.now = NOW.plus(DAY.multipliedBy(9));
            status = client.refresh();
            check(!status.valid() && status.reason() == Reason.EXPIRED, "expired by the server's time although the local clock says day 9: " + status.reason());
        } finally {
            delete(store);
        }
    }

    static void fingerprint() throws Exception {
        check(MachineFingerprint.hash("Studio", "abc\n").equals("DA57F947196607FD492A9442C0B0991D"), "SHA-256 of product, colon, raw id: 32 hex digits, upper case");
        String a;
        try {
            a = MachineFingerprint.of("Studio");
        } catch (IOException e) {
            System.err.println("fingerprint skipped: " + e.getMessage());
            return;
        }
        check(a.matches("[0-9A-F]{32}") && a.equals(MachineFingerprint.of("Studio")) && !a.equals(MachineFingerprint.of("Paint")), "stable per product, different across products");
    }

    /** The shared test vectors (clients/test-vectors, see its README): every client agrees on them. */
    static void sharedVectors() throws Exception {
        String fromEnvironment = System.getenv("TEST_VECTORS");
        String location = fromEnvironment != null && !fromEnvironment.isBlank() ? fromEnvironment : System.getProperty("test.vectors");
        Path dir = location == null ? null : Path.of(location);
        if (dir == null || !Files.exists(dir.resolve("expected.json"))) {
            System.err.println("shared test vectors skipped: no " + dir + "/expected.json");
            return;
        }
        PublicKeys vectorKeys = PublicKeys.fromJson(Files.readString(dir.resolve("keys.json")));
        Map<String, Object> expected = Json.object(Json.parse(Files.readString(dir.resolve("expected.json"))));
        for (Object item : (List<?>) expected.get("files")) {
            Map<String, Object> c = Json.object(item);
            String name = (String) c.get("name"), text = Files.readString(dir.resolve(name));
            boolean valid = (Boolean) c.get("valid");
            try {
                LicensePayload payload = LicenseFiles.verify(text, vectorKeys);
                Map<String, Object> want = Json.object(c.get("payload"));
                check(valid, name + " verifies");
                check(LicenseFiles.tag(text).equals(c.get("etag")), name + " has the ETag " + c.get("etag"));
                check(payload.machineId().equals(want.get("machineId")) && payload.kind().equals(want.get("kind")) && payload.features().equals(want.get("features")), name + " payload");
                check(String.valueOf(want.get("expiresAt")).equals(String.valueOf(payload.fields().get("expiresAt"))), name + " expiresAt");
                check(payload.fields().equals(Json.object(Json.parse(jsonOf(want)))), name + " every field");
            } catch (InvalidLicenseFileException e) {
                check(!valid && e.problem().name().equals(c.get("problem")), name + " is refused as " + c.get("problem") + " (got " + e.problem() + ")");
            }
        }
        for (Object item : (List<?>) expected.get("timeTokens")) {
            Map<String, Object> c = Json.object(item);
            var time = ServerTime.verify((String) c.get("value"), vectorKeys);
            check(time.isPresent() == (Boolean) c.get("valid"), "token " + c.get("value") + " valid=" + c.get("valid"));
            time.ifPresent(t -> check(t.getEpochSecond() == ((Double) c.get("t")).longValue(), "token time"));
        }
        String pemText = Files.readString(dir.resolve("test-private-key.pem")).replaceAll("-----(BEGIN|END)[^-]*-----", "").replaceAll("\\s+", "");
        PrivateKey vectorKey = java.security.KeyFactory.getInstance("Ed25519").generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(Base64.getDecoder().decode(pemText)));
        long tolerance = ((Double) expected.get("toleranceHours")).longValue();
        for (Object item : (List<?>) expected.get("clock")) {
            Map<String, Object> c = Json.object(item);
            Instant local = Instant.parse((String) c.get("local")), trusted = Instant.parse((String) c.get("trusted"));
            String enc = Base64.getEncoder().encodeToString(("{\"t\":" + trusted.getEpochSecond() + ",\"kid\":\"" + expected.get("kid") + "\"}").getBytes(StandardCharsets.UTF_8));
            Path store = newStore();
            try {
                Files.copy(dir.resolve("files/license.json"), store.resolve("license.json"));
                Files.writeString(store.resolve("server-time"), enc + "." + sign(vectorKey, "time/" + enc));
                LicenseStatus status = LicenseClient.builder().serverUrl(NOWHERE).product("Studio").machineId("VECTOR-MACHINE-1").publicKeys(vectorKeys).store(store)
                        .clock(Clock.fixed(local, ZoneOffset.UTC)).clockTolerance(Duration.ofHours(tolerance)).build().check();
                String got = status.valid() ? "VALID" : status.reason().name();
                check(got.equals(c.get("expect")), "clock local " + local + " trusted " + trusted + ": " + got + ", expected " + c.get("expect"));
            } finally {
                delete(store);
            }
        }
    }

    /** A parsed JSON value written back (for comparing payloads field by field). */
    static String jsonOf(Object value) {
        if (value == null) return "null";
        if (value instanceof String s) return Json.quote(s);
        if (value instanceof List<?> list) return "[" + String.join(",", list.stream().map(ClientTests::jsonOf).toList()) + "]";
        if (value instanceof Map<?, ?> map) {
            List<String> members = new ArrayList<>();
            for (var entry : map.entrySet()) if (entry.getValue() != null) members.add(Json.quote((String) entry.getKey()) + ":" + jsonOf(entry.getValue()));
            return "{" + String.join(",", members) + "}";
        }
        return String.valueOf(value);
    }
}
