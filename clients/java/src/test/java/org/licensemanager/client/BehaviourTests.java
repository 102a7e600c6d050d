package org.licensemanager.client;

import static org.licensemanager.client.TestSupport.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Map;

/** The client against a stand-in server: 200, 304, refusals, failures kept offline, ANY-Lic, imports, release, borrowing, trusted time; and the fingerprint. */
final class BehaviourTests {
    private BehaviourTests() {}

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
            check(client(server.url(), store, clock).version("2.0").build().check().valid() && server.count() == asked + 1, "another process reads the confirmation from the store");
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
            // a store that cannot be written (a file where the folder should be): the genuine file still counts
            Path notAFolder = Files.createTempFile("license-client-test", ".blocked");
            try {
                server.answer(200, file(NOW, NOW.plus(DAY.multipliedBy(10)), 86400));
                LicenseStatus result = client(server.url(), notAFolder, Clock.fixed(NOW, ZoneOffset.UTC)).build().check();
                check(result.valid() && result.fromServer() && result.message().contains("cannot be written"), "an unwritable store: valid from the server, said so");
            } finally {
                Files.deleteIfExists(notAFolder);
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
            check(status.toJson().equals("{\"valid\":true,\"reason\":null,\"licenseId\":42,\"offline\":true,\"expiresAt\":\"2026-06-07T20:26:40Z\",\"entitlements\":{\"export:pdf\":true,\"Zeichnen ä\":true},\"metadata\":{}}"), "the harness line: " + status.toJson());
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

            // more days than the policy allows: only the borrow is refused, the held file stays and counts without borrowDays
            server.answer(422, "{\"error\":\"ERR_BORROW_NOT_ALLOWED\",\"message\":\"This license lets a machine borrow a seat for at most 7 days\",\"params\":{\"max\":7}}");
            Clock later = Clock.fixed(NOW.plusSeconds(120), ZoneOffset.UTC);
            status = client(server.url(), store, later).borrowDays(30).build().check();
            check(!status.valid() && status.reason() == Reason.BORROW_NOT_ALLOWED && !status.offline() && status.message().contains("at most 7 days"), "ERR_BORROW_NOT_ALLOWED is BORROW_NOT_ALLOWED: " + status.reason());
            check(Files.exists(store.resolve("license.json")), "BORROW_NOT_ALLOWED keeps the stored file");
            int asked = server.count();
            check(client(server.url(), store, later).build().check().valid() && server.count() == asked, "without borrowDays the held file counts, no request");
            Path empty = newStore();
            try {
                status = client(server.url(), empty, later).borrowDays(30).build().check();
                check(status.reason() == Reason.BORROW_NOT_ALLOWED && !status.offline(), "nothing held: BORROW_NOT_ALLOWED, not UNREACHABLE");
            } finally {
                delete(empty);
            }
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

    static void borrowRenewedByARefresh() throws Exception {
        Path store = newStore();
        MutableClock clock = new MutableClock();
        try (StandIn server = new StandIn()) {
            // held: borrowed for 3 days, refreshed every 15 minutes
            String held = borrowedFile(NOW, NOW.plus(DAY.multipliedBy(3)), 900);
            Files.writeString(store.resolve("license.json"), held);
            clock.now = NOW.plus(Duration.ofMinutes(10));
            LicenseStatus status = client(server.url(), store, clock).borrowDays(3).build().check();
            check(status.valid() && !status.fromServer() && server.count() == 0, "borrowed and not due: no request");

            clock.now = NOW.plus(Duration.ofMinutes(20));
            String renewed = borrowedFile(clock.now, clock.now.plus(DAY.multipliedBy(3)), 900);
            server.answer(200, renewed);
            status = client(server.url(), store, clock).borrowDays(3).build().check();
            check(status.valid() && status.fromServer() && clock.now.plus(DAY.multipliedBy(3)).equals(status.license().borrowedUntil()), "the refresh brings the renewed borrow");
            check(server.last().body().contains("\"borrowDays\":3"), "a refresh of a borrowed file sends borrowDays");
            check(LicenseFiles.tag(held).equals(server.last().ifNoneMatch()), "and the held file's tag as If-None-Match");
            check(renewed.equals(Files.readString(store.resolve("license.json"))), "the renewal is kept");
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
            String noted = Files.readString(store.resolve("clock-tampered"));
            check(noted.equals(NOW.plus(DAY.multipliedBy(9)).toString()), "the tampering is kept for the next request: " + noted);
            client.check();
            check(Files.readString(store.resolve("clock-tampered")).equals(noted), "seen again: still the first time");
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
}
