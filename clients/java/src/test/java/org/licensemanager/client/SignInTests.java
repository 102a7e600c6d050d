package org.licensemanager.client;

import static org.licensemanager.client.TestSupport.*;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** Desktop sign-in (RFC 8628, DESIGN.md section 6f) against a stand-in server on 127.0.0.1: the polling loop, the token in the store, the bearer on license requests, sign-out. */
final class SignInTests {
    private SignInTests() {}

    record Call(String method, String path, String body, String authorization, String ifNoneMatch) {}

    /** Answers the device calls from a script (one answer per poll) and the license call with {@code license}. */
    static final class DeviceServer implements AutoCloseable {
        final HttpServer server;
        final Deque<Answer> polls = new ArrayDeque<>();
        final AtomicReference<Answer> license = new AtomicReference<>();
        final List<Call> calls = new ArrayList<>();
        /** The device code's lifetime in seconds. */
        volatile int expiresIn = 600;

        DeviceServer() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/api/client/v1/device/authorize", exchange -> answer(exchange, new Answer(200,
                    "{\"device_code\":\"dc-0123456789\",\"user_code\":\"ABCD-EFGH\",\"verification_uri\":\"" + url() + "/device\","
                            + "\"verification_uri_complete\":\"" + url() + "/device?code=ABCD-EFGH\",\"expires_in\":" + expiresIn + ",\"interval\":1}", null)));
            server.createContext("/api/client/v1/device/token", exchange -> {
                Answer next;
                synchronized (polls) {
                    next = exchange.getRequestMethod().equals("DELETE") ? new Answer(204, null, null) : polls.isEmpty() ? new Answer(400, grantError("authorization_pending"), null) : polls.poll();
                }
                answer(exchange, next);
            });
            server.createContext("/api/client/v1/license", exchange -> answer(exchange, license.get()));
            server.start();
        }

        private void answer(HttpExchange exchange, Answer answer) throws IOException {
            String body;
            try (InputStream in = exchange.getRequestBody()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            synchronized (calls) {
                calls.add(new Call(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), body,
                        exchange.getRequestHeaders().getFirst("Authorization"), exchange.getRequestHeaders().getFirst("If-None-Match")));
            }
            byte[] bytes = answer.body() == null ? new byte[0] : answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        void script(Answer... answers) {
            synchronized (polls) {
                polls.clear();
                polls.addAll(List.of(answers));
            }
        }

        List<Call> calls(String path) {
            synchronized (calls) {
                return calls.stream().filter(c -> c.path().equals(path)).toList();
            }
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    static String grantError(String error) {
        return "{\"error\":\"" + error + "\",\"error_description\":\"" + error + "\"}";
    }

    static Answer grant(String error) {
        return new Answer(400, grantError(error), null);
    }

    /** The polling loop: pending goes on, slow_down waits 5 seconds longer from then on, the token is kept 0600 and the seat's file fetched with it. */
    static void polling() throws Exception {
        Path store = newStore();
        MutableClock clock = new MutableClock();
        try (DeviceServer server = new DeviceServer()) {
            server.license.set(new Answer(200, file(NOW, NOW.plus(Duration.ofDays(10)), 3600), null));
            server.script(grant("authorization_pending"), grant("slow_down"), grant("authorization_pending"), new Answer(200, "{\"access_token\":\"lmdt_secret\",\"token_type\":\"Bearer\"}", null));
            List<Duration> waits = new ArrayList<>();
            List<LicenseClient.SignInCode> codes = new ArrayList<>();
            LicenseClient client = client(server.url(), store, clock).sleeper(waits::add).build();
            check(!client.isSignedIn(), "not signed in before");
            LicenseStatus status = client.signIn(codes::add);
            check(status.valid() && status.fromServer(), "signed in, the seat's file fetched: " + status);
            check(codes.size() == 1 && codes.get(0).userCode().equals("ABCD-EFGH") && codes.get(0).verificationUri().equals(server.url() + "/device")
                    && codes.get(0).verificationUriComplete().equals(server.url() + "/device?code=ABCD-EFGH") && codes.get(0).expiresIn() == 600 && codes.get(0).interval() == 1,
                    "the code is handed over once: " + codes);
            check(waits.equals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(6), Duration.ofSeconds(6))), "waits 1 s, and 6 s after slow_down: " + waits);
            check(server.calls("/api/client/v1/device/authorize").get(0).body().equals("{\"product\":\"Studio\",\"machineId\":\"M1\"}"), "authorize sends product and machine");
            check(server.calls("/api/client/v1/device/token").stream().allMatch(c -> c.body().equals("{\"device_code\":\"dc-0123456789\"}")), "each poll sends the device code");
            Path token = store.resolve("desktop-token");
            check(Files.readString(token).equals("lmdt_secret"), "the token is kept in the store");
            if (Files.getFileStore(token).supportsFileAttributeView("posix")) {
                check(PosixFilePermissions.toString(Files.getPosixFilePermissions(token)).equals("rw-------"), "the token file is 0600");
            }
            check(client.isSignedIn(), "signed in");
            List<Call> licenseCalls = server.calls("/api/client/v1/license");
            check(licenseCalls.size() == 1 && "Bearer lmdt_secret".equals(licenseCalls.get(0).authorization()), "the license request carries the bearer");
            try (var entries = Files.list(store)) {
                check(entries.noneMatch(p -> p.getFileName().toString().endsWith(".tmp")), "no temporary file is left behind");
            }
        } finally {
            delete(store);
        }
    }

    /** Denied, expired, a code already used: no token is kept. */
    static void notApproved() throws Exception {
        for (var outcome : List.of(new String[] {"access_denied", "SIGNIN_DENIED"}, new String[] {"expired_token", "SIGNIN_EXPIRED"}, new String[] {"invalid_grant", "SIGNIN_EXPIRED"})) {
            Path store = newStore();
            try (DeviceServer server = new DeviceServer()) {
                server.script(grant("authorization_pending"), grant(outcome[0]));
                LicenseClient client = client(server.url(), store, new MutableClock()).sleeper(d -> {}).build();
                LicenseStatus status = client.signIn(code -> {});
                check(!status.valid() && status.reason() == Reason.valueOf(outcome[1]), outcome[0] + " is " + outcome[1] + ": " + status);
                check(!Files.exists(store.resolve("desktop-token")), outcome[0] + ": no token kept");
                check(server.calls("/api/client/v1/license").isEmpty(), outcome[0] + ": no license request");
                check(status.toJson().equals("{\"valid\":false,\"reason\":\"" + outcome[1] + "\",\"licenseId\":null,\"offline\":false,\"expiresAt\":null}"), "the harness line: " + status.toJson());
            } finally {
                delete(store);
            }
        }
        // Never decided within expires_in (pending all along): SIGNIN_EXPIRED, without polling forever.
        Path store = newStore();
        try (DeviceServer server = new DeviceServer()) {
            server.script();
            server.expiresIn = 8;
            List<Duration> waits = new ArrayList<>();
            LicenseClient client = client(server.url(), store, new MutableClock()).sleeper(waits::add).build();
            check(client.signIn(code -> {}).reason() == Reason.SIGNIN_EXPIRED, "still pending when the code expires: SIGNIN_EXPIRED");
            check(waits.size() == 8, "polled every second for 8 seconds: " + waits.size());
        } finally {
            delete(store);
        }
        // The server cannot be reached to start with.
        store = newStore();
        try {
            LicenseStatus status = client(NOWHERE, store, new MutableClock()).sleeper(d -> {}).build().signIn(code -> check(false, "no code without a server"));
            check(status.reason() == Reason.UNREACHABLE && status.offline(), "no server: UNREACHABLE");
        } finally {
            delete(store);
        }
    }

    /** While signed in: the conditional refresh carries the bearer; 403 ERR_SEAT_UNASSIGNED and 401 (the token deleted); sign-out. */
    static void signedIn() throws Exception {
        Path store = newStore();
        MutableClock clock = new MutableClock();
        try (DeviceServer server = new DeviceServer()) {
            String text = file(NOW, NOW.plus(Duration.ofDays(10)), 3600);
            server.license.set(new Answer(200, text, null));
            server.script(new Answer(200, "{\"access_token\":\"lmdt_secret\",\"token_type\":\"Bearer\"}", null));
            LicenseClient client = client(server.url(), store, clock).sleeper(d -> {}).build();
            check(client.signIn(code -> {}).valid(), "signed in");

            clock.now = NOW.plus(Duration.ofHours(2));
            server.license.set(new Answer(304, null, null));
            check(client.check().valid(), "confirmed by a 304");
            Call refresh = server.calls("/api/client/v1/license").get(1);
            check(refresh.ifNoneMatch() != null && "Bearer lmdt_secret".equals(refresh.authorization()), "the conditional refresh carries If-None-Match and the bearer");

            clock.now = NOW.plus(Duration.ofHours(4));
            server.license.set(new Answer(403, "{\"error\":\"ERR_SEAT_UNASSIGNED\",\"message\":\"No seat\"}", null));
            LicenseStatus refused = client.check();
            check(!refused.valid() && refused.reason() == Reason.SEAT_UNASSIGNED, "403 ERR_SEAT_UNASSIGNED is SEAT_UNASSIGNED: " + refused);
            check(client.isSignedIn(), "an unassigned seat keeps the sign-in (a seat may be assigned again)");

            server.license.set(new Answer(401, "{\"error\":\"ERR_UNAUTHENTICATED\",\"message\":\"Sign in\"}", null));
            LicenseStatus signedOut = client.refresh();
            check(!signedOut.valid() && signedOut.reason() == Reason.SIGNED_OUT, "401 with the token is SIGNED_OUT: " + signedOut);
            check(!Files.exists(store.resolve("desktop-token")), "the token is deleted after a 401");
            LicenseStatus without = client.refresh();
            check(server.calls("/api/client/v1/license").get(4).authorization() == null, "no bearer once the token is gone");
            check(without.reason() == Reason.UNREACHABLE, "a 401 without a token is no SIGNED_OUT: " + without);

            // Sign-out: DELETE with the bearer, the token and the seat's file forgotten.
            server.license.set(new Answer(200, text, null));
            server.script(new Answer(200, "{\"access_token\":\"lmdt_second\",\"token_type\":\"Bearer\"}", null));
            clock.now = NOW;
            check(client.signIn(code -> {}).valid(), "signed in again");
            check(client.signOut(), "signed out");
            List<Call> deletes = server.calls("/api/client/v1/device/token").stream().filter(c -> c.method().equals("DELETE")).toList();
            check(deletes.size() == 1 && "Bearer lmdt_second".equals(deletes.get(0).authorization()), "sign-out sends DELETE with the bearer");
            check(!Files.exists(store.resolve("desktop-token")) && !Files.exists(store.resolve("license.json")), "the token and the seat's file are gone");
            check(!client.signOut(), "a second sign-out: not signed in");
        } finally {
            delete(store);
        }
    }

    /** Signed in with borrowDays: every license request carries it as an anonymous one does; the borrowed file is kept; BORROW_NOT_ALLOWED keeps the token and the file. */
    static void signedInBorrow() throws Exception {
        Path store = newStore();
        MutableClock clock = new MutableClock();
        try (DeviceServer server = new DeviceServer()) {
            Instant until = NOW.plus(Duration.ofDays(3));
            server.license.set(new Answer(200, borrowedFile(NOW, until, 3600), null));
            server.script(new Answer(200, "{\"access_token\":\"lmdt_secret\",\"token_type\":\"Bearer\"}", null));
            LicenseClient client = client(server.url(), store, clock).sleeper(d -> {}).borrowDays(3).build();
            LicenseStatus borrowed = client.signIn(code -> {});
            check(borrowed.valid() && until.equals(borrowed.license().borrowedUntil()), "signed in, the borrowed file kept: " + borrowed);

            clock.now = NOW.plus(Duration.ofHours(2));
            server.license.set(new Answer(422, "{\"error\":\"ERR_BORROW_NOT_ALLOWED\",\"message\":\"at most 0 days\"}", null));
            LicenseStatus refused = client.check();
            check(!refused.valid() && refused.reason() == Reason.BORROW_NOT_ALLOWED && "at most 0 days".equals(refused.message()) && !refused.offline(), "422 is BORROW_NOT_ALLOWED: " + refused);
            List<Call> calls = server.calls("/api/client/v1/license");
            check(calls.size() == 2 && calls.stream().allMatch(c -> "Bearer lmdt_secret".equals(c.authorization()) && c.body().contains("\"borrowDays\":3")), "every request carries the bearer and borrowDays: " + calls);
            check(calls.get(0).ifNoneMatch() == null && calls.get(1).ifNoneMatch() != null, "If-None-Match only once the borrow is granted");
            check(client.isSignedIn() && Files.exists(store.resolve("license.json")), "a refused borrow keeps the token and the file");
        } finally {
            delete(store);
        }
    }

    /** The harness's signout: {"signedOut":true} with exit 0, then {"signedOut":false} with exit 1. */
    static void harnessSignOut() throws Exception {
        Path store = newStore();
        try (DeviceServer server = new DeviceServer()) {
            LicenseStore licenses = new LicenseStore(store);
            licenses.writeSecret(LicenseStore.TOKEN_FILE, "lmdt_harness");
            var out = new java.io.ByteArrayOutputStream();
            var stdout = System.out;
            int first, second;
            System.setOut(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                first = Harness.run(new String[] {"signout", "--server", server.url(), "--store", store.toString()});
                second = Harness.run(new String[] {"signout", "--server", server.url(), "--store", store.toString()});
            } finally {
                System.setOut(stdout);
            }
            check(first == 0 && second == 1, "exit 0, then 1: " + first + ", " + second);
            check(out.toString(StandardCharsets.UTF_8).equals("{\"signedOut\":true}\n{\"signedOut\":false}\n"), "the lines: " + out);
            check(server.calls("/api/client/v1/device/token").size() == 1, "one DELETE");
        } finally {
            delete(store);
        }
    }
}
