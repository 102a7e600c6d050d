package org.licensemanager.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The licensing client of the desktop software: fetches the signed file of its machine, verifies it
 * against pinned keys, keeps it in a folder, refreshes it when the file's own fields say so
 * (conditional: If-None-Match, 304), works offline from the stored file until that file expires, and
 * says why when there is no valid license. Time is judged against the later of the local clock and
 * the highest time the server vouched for, so setting the clock back neither revives an expired file
 * nor goes unnoticed ({@link Reason#CLOCK_TAMPERED}).
 *
 * <p>Not thread-safe: use one client from one thread at a time (a background timer that calls
 * {@link #check()} is the usual pattern).
 */
public final class LicenseClient {
    private static final Map<String, Reason> SERVER_REASONS = Map.of(
            "ERR_NO_LICENSE", Reason.NO_LICENSE,
            "ERR_LICENSE_REVOKED", Reason.REVOKED,
            "ERR_LICENSE_SUSPENDED", Reason.SUSPENDED,
            "ERR_LICENSE_EXPIRED", Reason.EXPIRED,
            "ERR_LICENSE_UPGRADED", Reason.UPGRADED,
            "ERR_NO_SEAT", Reason.NO_SEAT,
            "ERR_TOO_MANY_MACHINES", Reason.TOO_MANY_MACHINES,
            "ERR_SEAT_UNASSIGNED", Reason.SEAT_UNASSIGNED);

    private final String serverUrl, product, version, machineId;
    private final PublicKeys keys;
    private final LicenseStore store;
    private final int borrowDays;
    /** This installation's install key id: a file bound to another key is refused (DESIGN.md section 6h). */
    private final String installKeyId;
    private final Duration requestTimeout, clockTolerance;
    private final Clock clock;
    private final HttpClient http;
    private final Sleeper sleeper;
    /** The highest time the server vouched for (tokens and files' issuedAt), read from the store. */
    private Instant trusted = Instant.EPOCH;

    private LicenseClient(Builder b) {
        this.serverUrl = Objects.requireNonNull(b.serverUrl, "serverUrl").replaceAll("/+$", "");
        this.product = Objects.requireNonNull(b.product, "product");
        this.version = b.version;
        this.machineId = Objects.requireNonNull(b.machineId, "machineId");
        this.keys = Objects.requireNonNull(b.publicKeys, "publicKeys");
        this.store = new LicenseStore(Objects.requireNonNull(b.store, "store"));
        this.borrowDays = b.borrowDays;
        this.installKeyId = b.installKeyId;
        this.requestTimeout = b.requestTimeout;
        this.clockTolerance = b.clockTolerance;
        this.clock = b.clock;
        this.http = b.httpClient != null ? b.httpClient : HttpClient.newBuilder().connectTimeout(b.requestTimeout).build();
        this.sleeper = b.sleeper;
    }

    /** How the sign-in waits between polls (tests wait no time). */
    interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private String serverUrl, product, version, machineId, installKeyId;
        private PublicKeys publicKeys;
        private Path store;
        private int borrowDays;
        private Duration requestTimeout = Duration.ofSeconds(15), clockTolerance = Duration.ofHours(48);
        private Clock clock = Clock.systemUTC();
        private HttpClient httpClient;
        private Sleeper sleeper = duration -> Thread.sleep(duration.toMillis());

        /** The license server, e.g. {@code https://licenses.example.com}. */
        public Builder serverUrl(String value) { serverUrl = value; return this; }
        /** The product name as in the catalogue. */
        public Builder product(String value) { product = value; return this; }
        /** The product version; without it the server picks the newest licensed version. */
        public Builder version(String value) { version = value; return this; }
        public Builder machineId(String value) { machineId = value; return this; }
        /** The keys pinned in the software: {@link PublicKeys#fromJson} of GET /api/client/v1/keys. */
        public Builder publicKeys(PublicKeys value) { publicKeys = value; return this; }
        /** The folder of license files, e.g. {@link LicenseStore#defaultDirectory}. */
        public Builder store(Path value) { store = value; return this; }
        /** Borrow a floating seat for offline use for that many days, renewed with every request (0: no). */
        public Builder borrowDays(int value) { borrowDays = value; return this; }
        /** {@link InstallKey#keyId} of this installation: files bound to another install key are refused. */
        public Builder installKeyId(String value) { installKeyId = value; return this; }
        public Builder requestTimeout(Duration value) { requestTimeout = value; return this; }
        /** How far the local clock may lag the server's time before CLOCK_TAMPERED (48 hours). */
        public Builder clockTolerance(Duration value) { clockTolerance = value; return this; }
        /** For tests: the local clock. */
        public Builder clock(Clock value) { clock = value; return this; }
        public Builder httpClient(HttpClient value) { httpClient = value; return this; }
        /** For tests: how the desktop sign-in waits between its polls. */
        Builder sleeper(Sleeper value) { sleeper = value; return this; }

        public LicenseClient build() {
            return new LicenseClient(this);
        }
    }

    /** A stored file that verifies and fits this machine and product. */
    private record Candidate(String name, String text, LicensePayload payload, String tag) {}

    private record Stored(List<Candidate> usable, List<Candidate> expired, int invalid) {}

    /** The license now: the stored file while no refresh is due, else asks the server. */
    public LicenseStatus check() {
        return check(false);
    }

    /** Asks the server now, whatever the stored file says. */
    public LicenseStatus refresh() {
        return check(true);
    }

    /** A .lic or .json file a person brought (an offline machine): kept when it verifies and fits. */
    public LicenseStatus importFile(String text) {
        load();
        LicensePayload payload;
        try {
            payload = LicenseFiles.verify(text, keys);
        } catch (InvalidLicenseFileException e) {
            return LicenseStatus.invalid(Reason.INVALID_FILE, e.getMessage());
        }
        if (!fits(payload)) {
            return LicenseStatus.invalid(Reason.INVALID_FILE, "the file is for " + payload.productName() + " " + payload.productVersion() + " on machine " + payload.machineId());
        }
        raiseTrusted(payload.issuedAt());
        if (payload.isExpired(now())) return finish(LicenseStatus.invalid(Reason.EXPIRED, "the file expired at " + payload.expiresAt()));
        try {
            store.write(LicenseStore.FETCHED_FILE, text);
        } catch (IOException e) {
            return LicenseStatus.invalid(Reason.INVALID_FILE, "the file could not be written to the store folder: " + e.getMessage());
        }
        store.remove(LicenseStore.CONFIRMED_FILE);
        return finish(LicenseStatus.valid(payload, false, false));
    }

    /** Frees a floating seat (DELETE /api/client/v1/license) and forgets this machine's file. */
    public void release() throws IOException {
        HttpResponse<String> response;
        try {
            response = request("DELETE", null, null, token());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        Stored stored = load();
        recordServerTime(response);
        if ((response.statusCode() >= 200 && response.statusCode() < 300) || response.statusCode() == 404) forgetMachineFiles(stored);
        else throw new IOException("the license server answered " + response.statusCode());
    }

    // --- desktop sign-in (RFC 8628) ----------------------------------------------------------------

    /**
     * What to show the person who signs in: the code to enter at {@code verificationUri}, or
     * {@code verificationUriComplete} to open directly (a browser, a QR code); valid for
     * {@code expiresIn} seconds.
     */
    public record SignInCode(String userCode, String verificationUri, String verificationUriComplete, long expiresIn, long interval) {}

    /** Whether the store holds the token of a desktop sign-in (license requests then carry it). */
    public boolean isSignedIn() {
        return token() != null;
    }

    /**
     * Signs a person with a named-user seat in (the OAuth 2.0 Device Authorization Grant, RFC 8628):
     * asks the server for a code, hands it to {@code onCode} (show it, open the address), then polls
     * every {@code interval} seconds, blocking, until the person approved or denied it on the portal's
     * /device page or the code expired. Once approved it keeps the token in the store (mode 0600) and
     * fetches the seat's license file with it: the answer is that {@link #refresh()}'s status. Not
     * approved: {@link Reason#SIGNIN_DENIED} or {@link Reason#SIGNIN_EXPIRED}; the server not reachable
     * at the start: {@link Reason#UNREACHABLE}. Interrupt the thread to cancel (InterruptedException).
     */
    public LicenseStatus signIn(Consumer<SignInCode> onCode) throws InterruptedException {
        HttpResponse<String> answer;
        try {
            answer = post("/api/client/v1/device/authorize", "{\"product\":" + Json.quote(product) + ",\"machineId\":" + Json.quote(machineId) + "}");
        } catch (IOException | IllegalArgumentException e) {
            return LicenseStatus.invalid(Reason.UNREACHABLE, "the license server cannot be reached (" + e + ")", true);
        }
        Map<String, Object> body = jsonObject(answer.body());
        if (answer.statusCode() != 200 || Json.string(body, "device_code") == null || Json.string(body, "user_code") == null) {
            String code = Json.string(body, "error");
            Reason reason = code == null ? null : SERVER_REASONS.get(code);
            String message = Json.string(body, "message");
            if (reason != null) return LicenseStatus.invalid(reason, message != null ? message : reason.name());
            return LicenseStatus.invalid(Reason.UNREACHABLE, "the license server answered " + answer.statusCode() + " to the sign-in" + (message != null ? ": " + message : ""), true);
        }
        String deviceCode = Json.string(body, "device_code");
        long expiresIn = seconds(body, "expires_in", 900);
        long interval = Math.max(1, seconds(body, "interval", 5));
        onCode.accept(new SignInCode(Json.string(body, "user_code"), Json.string(body, "verification_uri"), Json.string(body, "verification_uri_complete"), expiresIn, interval));

        String poll = "{\"device_code\":" + Json.quote(deviceCode) + "}";
        long waited = 0;
        while (true) {
            if (waited >= expiresIn) return LicenseStatus.invalid(Reason.SIGNIN_EXPIRED, "the sign-in was not approved within " + expiresIn + " seconds: start it again");
            sleeper.sleep(Duration.ofSeconds(interval));
            waited += interval;
            HttpResponse<String> response;
            try {
                response = post("/api/client/v1/device/token", poll);
            } catch (IOException e) {
                continue; // the network may come back before the code expires
            }
            Map<String, Object> reply = jsonObject(response.body());
            String accessToken = Json.string(reply, "access_token");
            if (response.statusCode() == 200 && accessToken != null && !accessToken.isBlank()) {
                try {
                    store.writeSecret(LicenseStore.TOKEN_FILE, accessToken.strip());
                } catch (IOException e) {
                    return LicenseStatus.invalid(Reason.INVALID_FILE, "the sign-in's token could not be written to the store folder " + store.directory() + ": " + e.getMessage());
                }
                return refresh();
            }
            if (response.statusCode() == 429) {
                interval += 5;
                continue;
            }
            if (response.statusCode() != 400) continue; // 5xx: try again at the next interval
            String error = Json.string(reply, "error");
            String description = Json.string(reply, "error_description");
            if ("authorization_pending".equals(error)) continue;
            if ("slow_down".equals(error)) {
                interval += 5;
                continue;
            }
            if ("access_denied".equals(error)) return LicenseStatus.invalid(Reason.SIGNIN_DENIED, description != null ? description : "the sign-in was denied");
            // expired_token, invalid_grant (used or unknown): this code is finished.
            return LicenseStatus.invalid(Reason.SIGNIN_EXPIRED, description != null ? description : "the sign-in code cannot be used (" + error + "): start again");
        }
    }

    /**
     * Signs this program out: tells the server (DELETE /api/client/v1/device/token, the token stops
     * working) and forgets the token and the file fetched with it. False when it was not signed in.
     * Throws IOException when the server could not be told; the sign-in is forgotten here all the same.
     */
    public boolean signOut() throws IOException {
        try {
            return signOut(http, serverUrl, store, requestTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Sign-out with no more than the server and the store (the harness's signout). */
    static boolean signOut(HttpClient http, String serverUrl, LicenseStore store, Duration timeout) throws IOException, InterruptedException {
        String token = readToken(store);
        if (token == null) return false;
        store.remove(LicenseStore.TOKEN_FILE);
        store.remove(LicenseStore.FETCHED_FILE);
        store.remove(LicenseStore.CONFIRMED_FILE);
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(URI.create(serverUrl.replaceAll("/+$", "") + "/api/client/v1/device/token"))
                    .timeout(timeout)
                    .header("Authorization", "Bearer " + token)
                    .DELETE()
                    .build(), HttpResponse.BodyHandlers.ofString());
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
        // 401: the server had ended the sign-in already.
        int status = response.statusCode();
        if (!(status >= 200 && status < 300) && status != 401) throw new IOException("the license server answered " + status + " to the sign-out");
        return true;
    }

    private String token() {
        return readToken(store);
    }

    private static String readToken(LicenseStore store) {
        String text = store.read(LicenseStore.TOKEN_FILE);
        return text == null || text.isBlank() ? null : text.strip();
    }

    private HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(serverUrl + path))
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Map<String, Object> jsonObject(String text) {
        try {
            return text == null || text.isEmpty() ? null : Json.object(Json.parse(text));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static long seconds(Map<String, Object> object, String key, long otherwise) {
        Double value = Json.number(object, key);
        return value == null || value <= 0 ? otherwise : value.longValue();
    }

    // ---------------------------------------------------------------------------------------------

    private LicenseStatus check(boolean force) {
        Stored stored = load();
        if (!force && !stored.usable().isEmpty()) {
            Candidate best = stored.usable().get(0);
            Instant due = best.payload().isAnyLic() ? null : refreshDue(best);
            if (!borrowPending(best.payload()) && (due == null || due.isAfter(now()))) return finish(LicenseStatus.valid(best.payload(), false, false));
        }
        return finish(fetchFresh(stored));
    }

    /** The time files are judged against: the local clock, unless the server vouched for a later one. */
    private Instant now() {
        Instant local = clock.instant();
        return trusted.isAfter(local) ? trusted : local;
    }

    /** The last word on any status: a clock behind the server's vouched time beyond the tolerance. */
    private LicenseStatus finish(LicenseStatus status) {
        Duration behind = Duration.between(clock.instant(), trusted);
        if (behind.compareTo(clockTolerance) > 0) noteTampering();
        // It spoils a valid or an expired verdict (the clock was set back to keep a file alive); the
        // server's own refusals (revoked, no seat, ...) stand as they are.
        if (behind.compareTo(clockTolerance) > 0 && (status.valid() || status.reason() == Reason.EXPIRED)) {
            return new LicenseStatus(false, Reason.CLOCK_TAMPERED, "the clock of this computer is " + behind.toHours() + " hours behind the license server's time (" + trusted + "): set it right",
                    status.offline(), status.fromServer(), status.license());
        }
        return status;
    }

    /** Remembers in the store when the clock was first seen set back, until a license request reports it (DESIGN.md 6j). */
    private void noteTampering() {
        if (store.read(LicenseStore.CLOCK_TAMPERED_FILE) != null) return;
        try {
            store.write(LicenseStore.CLOCK_TAMPERED_FILE, now().truncatedTo(ChronoUnit.MILLIS).toString());
        } catch (IOException e) {
            // a store that cannot be written keeps nothing, files neither
        }
    }

    private void raiseTrusted(Instant time) {
        if (time != null && time.isAfter(trusted)) trusted = time;
    }

    private void recordServerTime(HttpResponse<?> response) {
        String token = response.headers().firstValue(ServerTime.HEADER).orElse(null);
        ServerTime.verify(token, keys).ifPresent(time -> {
            if (time.isAfter(trusted)) {
                trusted = time;
                try {
                    store.write(LicenseStore.SERVER_TIME_FILE, token);
                } catch (IOException e) {
                    // kept in memory for this run
                }
            }
        });
    }

    private boolean fits(LicensePayload payload) {
        Object bound = payload.fields().get("installKeyId");
        if (bound != null && !bound.equals(installKeyId)) return false;
        return (payload.machineId().equals(machineId) || payload.isAnyLic()) && payload.productName().equals(product) && (version == null || payload.productVersion().equals(version));
    }

    private boolean borrowPending(LicensePayload payload) {
        return borrowDays > 0 && !payload.isAnyLic() && (payload.borrowedUntil() == null || !payload.borrowedUntil().isAfter(now()));
    }

    /** Reads the store: the trusted time, and the files that verify and fit, best first. */
    private Stored load() {
        trusted = Instant.EPOCH;
        ServerTime.verify(store.read(LicenseStore.SERVER_TIME_FILE), keys).ifPresent(this::raiseTrusted);
        List<Candidate> candidates = new ArrayList<>();
        int invalid = 0;
        List<LicenseStore.StoredFile> files;
        try {
            files = store.list();
        } catch (IOException e) {
            files = List.of();
        }
        for (LicenseStore.StoredFile file : files) {
            try {
                LicensePayload payload = LicenseFiles.verify(file.text(), keys);
                // Any genuine file proves that its issue time has passed, whichever machine it is for.
                raiseTrusted(payload.issuedAt());
                if (fits(payload)) candidates.add(new Candidate(file.name(), file.text(), payload, LicenseFiles.tag(LicenseFiles.parse(file.text()).enc(), payload)));
            } catch (InvalidLicenseFileException e) {
                invalid++;
            }
        }
        Instant now = now();
        Comparator<Candidate> best = Comparator.<Candidate, Boolean>comparing(c -> c.payload().isAnyLic())
                .thenComparing(c -> c.payload().expiresAt() == null ? Instant.MAX : c.payload().expiresAt(), Comparator.reverseOrder())
                .thenComparing(c -> c.payload().issuedAt(), Comparator.reverseOrder());
        List<Candidate> usable = candidates.stream().filter(c -> !c.payload().isExpired(now)).sorted(best).toList();
        List<Candidate> expired = candidates.stream().filter(c -> c.payload().isExpired(now)).sorted(best).toList();
        return new Stored(usable, expired, invalid);
    }

    private void forgetMachineFiles(Stored stored) {
        for (List<Candidate> list : List.of(stored.usable(), stored.expired()))
            for (Candidate c : list) if (!c.payload().isAnyLic()) store.remove(c.name());
        store.remove(LicenseStore.CONFIRMED_FILE);
    }

    static Instant refreshDueAt(LicensePayload p) {
        Instant due = null;
        if (p.refetchIntervalSeconds() > 0) due = p.issuedAt().plusSeconds(p.refetchIntervalSeconds());
        if (p.expiresAt() != null) due = earlier(due, p.expiresAt().minusSeconds(p.refetchBeforeExpirySeconds()));
        return due;
    }

    /** After a 304 at {@code at}: the next interval, at the latest when the file falls due for a new one. */
    static Instant refreshDueAfterConfirmation(LicensePayload p, Instant at) {
        Instant due = null;
        if (p.refetchIntervalSeconds() > 0) due = at.plusSeconds(p.refetchIntervalSeconds());
        if (p.expiresAt() != null) {
            Instant beforeExpiry = p.expiresAt().minusSeconds(p.refetchBeforeExpirySeconds());
            Instant middle = p.issuedAt().plus(Duration.between(p.issuedAt(), p.expiresAt()).dividedBy(2));
            due = earlier(due, beforeExpiry.isAfter(at) ? beforeExpiry : middle);
        }
        return due;
    }

    private static Instant earlier(Instant a, Instant b) {
        return a == null ? b : b.isBefore(a) ? b : a;
    }

    private Instant refreshDue(Candidate candidate) {
        String state = store.read(LicenseStore.CONFIRMED_FILE);
        if (state != null) {
            String[] parts = state.strip().split(" ");
            if (parts.length == 2 && parts[0].equals(candidate.tag())) {
                try {
                    return refreshDueAfterConfirmation(candidate.payload(), Instant.ofEpochMilli(Long.parseLong(parts[1])));
                } catch (NumberFormatException e) {
                    // an unreadable note: the file's own schedule
                }
            }
        }
        return refreshDueAt(candidate.payload());
    }

    /**
     * A license request; a POST carries {@code borrowDays} whenever it is set: a refresh of a borrowed
     * file renews the borrow (the server counts borrowedUntil from now), where one without would bring
     * the short floating file.
     */
    private HttpResponse<String> request(String method, String ifNoneMatch, String clockTamperedAt, String token) throws IOException, InterruptedException {
        StringBuilder body = new StringBuilder("{\"machineId\":").append(Json.quote(machineId)).append(",\"product\":").append(Json.quote(product));
        if (version != null) body.append(",\"version\":").append(Json.quote(version));
        if (method.equals("POST") && borrowDays > 0) body.append(",\"borrowDays\":").append(borrowDays);
        if (clockTamperedAt != null) body.append(",\"clockTamperedAt\":").append(Json.quote(clockTamperedAt.strip()));
        body.append('}');
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(serverUrl + "/api/client/v1/license"))
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        if (ifNoneMatch != null) request.header("If-None-Match", ifNoneMatch);
        if (token != null) request.header("Authorization", "Bearer " + token);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private LicenseStatus fetchFresh(Stored stored) {
        Candidate held = stored.usable().stream().filter(c -> !c.payload().isAnyLic()).findFirst().orElse(null);
        // A pending borrow asks for a new file (one that says borrowedUntil), so it sends no If-None-Match.
        boolean borrow = borrowDays > 0 && (held == null || borrowPending(held.payload()));
        // A clock set back is reported with this request, and forgotten once the server answered it.
        if (Duration.between(clock.instant(), trusted).compareTo(clockTolerance) > 0) noteTampering();
        String tamperedAt = store.read(LicenseStore.CLOCK_TAMPERED_FILE);
        // While signed in from the desktop, every license request carries the sign-in's token.
        String token = token();
        HttpResponse<String> response;
        try {
            response = request("POST", held != null && !borrow ? held.tag() : null, tamperedAt, token);
        } catch (IOException | IllegalArgumentException e) {
            return offline(stored, "the license server cannot be reached (" + e + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return offline(stored, "interrupted");
        }
        recordServerTime(response);
        int status = response.statusCode();
        if (tamperedAt != null && status < 500) store.remove(LicenseStore.CLOCK_TAMPERED_FILE);
        if (status == 304 && held != null && !borrow) {
            try {
                store.write(LicenseStore.CONFIRMED_FILE, held.tag() + " " + now().toEpochMilli() + "\n");
            } catch (IOException e) {
                // the next check asks again
            }
            return LicenseStatus.valid(held.payload(), true, false);
        }
        String text = response.body() == null ? "" : response.body();
        if (status >= 200 && status < 300) {
            LicensePayload payload;
            try {
                payload = LicenseFiles.verify(text, keys);
                if (!fits(payload)) throw new InvalidLicenseFileException(InvalidLicenseFileException.Problem.MALFORMED, "the server sent a file for another machine or product");
            } catch (InvalidLicenseFileException e) {
                return offline(stored, "the server's license file is not valid (" + e.getMessage() + ")", Reason.INVALID_FILE);
            }
            raiseTrusted(payload.issuedAt());
            store.remove(LicenseStore.CONFIRMED_FILE);
            try {
                store.write(LicenseStore.FETCHED_FILE, text);
            } catch (IOException e) {
                // A genuine file is valid even where the store cannot keep it; the next start asks again.
                return new LicenseStatus(true, null, "valid, but the store folder " + store.directory() + " cannot be written: " + e.getMessage(), false, true, payload);
            }
            return LicenseStatus.valid(payload, true, false);
        }
        Map<String, Object> error;
        try {
            error = Json.object(Json.parse(text));
        } catch (IllegalArgumentException e) {
            error = null;
        }
        String code = Json.string(error, "error");
        Reason reason = code == null ? null : SERVER_REASONS.get(code);
        // The sign-in ended (signed out elsewhere, revoked, the member removed): the token is worthless.
        if (status == 401 && token != null) {
            store.remove(LicenseStore.TOKEN_FILE);
            reason = Reason.SIGNED_OUT;
        }
        if ("ERR_BORROW_NOT_ALLOWED".equals(code)) {
            // Only the borrow is refused, not the license: the stored files stay, and count again without borrowDays.
            String message = Json.string(error, "message");
            return LicenseStatus.invalid(Reason.BORROW_NOT_ALLOWED, message != null ? message : code);
        }
        if (reason == null) return offline(stored, "the license server answered " + status);
        // The server's final word: this machine's files no longer count; an ANY-Lic file still does.
        forgetMachineFiles(stored);
        Candidate anyLic = stored.usable().stream().filter(c -> c.payload().isAnyLic()).findFirst().orElse(null);
        if (anyLic != null) return LicenseStatus.valid(anyLic.payload(), false, false);
        String message = reason == Reason.SIGNED_OUT ? "the desktop sign-in has ended: sign in again" : Json.string(error, "message");
        return LicenseStatus.invalid(reason, message != null ? message : reason.name());
    }

    private LicenseStatus offline(Stored stored, String why) {
        return offline(stored, why, Reason.UNREACHABLE);
    }

    /** Without a usable stored file: EXPIRED, INVALID_FILE, or the fallback (INVALID_FILE when the server's own file did not verify). */
    private LicenseStatus offline(Stored stored, String why, Reason fallback) {
        // Judged again: the answer may have carried a later server time than the store knew.
        Instant now = now();
        for (Candidate c : stored.usable()) if (!c.payload().isExpired(now)) return LicenseStatus.valid(c.payload(), false, true);
        Candidate expired = !stored.usable().isEmpty() ? stored.usable().get(0) : stored.expired().isEmpty() ? null : stored.expired().get(0);
        // No answer the client could use: offline, unless the server answered with a file that does not verify.
        if (expired != null) return LicenseStatus.invalid(Reason.EXPIRED, "the license file expired at " + expired.payload().expiresAt() + " and " + why, true);
        if (stored.invalid() > 0) return LicenseStatus.invalid(Reason.INVALID_FILE, "the stored license file does not verify (altered, or signed with a key not pinned) and " + why, fallback != Reason.INVALID_FILE);
        return LicenseStatus.invalid(fallback, why, fallback != Reason.INVALID_FILE);
    }
}
