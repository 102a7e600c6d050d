package org.licensemanager.client;

import static org.licensemanager.client.TestSupport.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** The formats: the JSON reader, verification of .json and .lic files and of altered or foreign ones, the ETag, time tokens, and the shared test vectors (clients/test-vectors). */
final class FormatTests {
    private FormatTests() {}

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
        for (Object item : (List<?>) expected.get("entitlements")) {
            Map<String, Object> c = Json.object(item);
            String name = (String) c.get("name");
            LicensePayload payload = LicenseFiles.verify(Files.readString(dir.resolve(name)), vectorKeys);
            Json.object(c.get("hasFeature")).forEach((feature, has) -> check(payload.hasFeature(feature) == (Boolean) has, name + " hasFeature " + feature));
            Json.object(c.get("featureValue")).forEach((feature, value) -> {
                Object want = value instanceof Double number ? (Object) number.longValue() : value;
                check(java.util.Objects.equals(payload.featureValue(feature), want), name + " featureValue " + feature + ": " + payload.featureValue(feature));
            });
            Map<String, String> metadata = new java.util.TreeMap<>();
            Json.object(c.get("metadata")).forEach((key, value) -> metadata.put(key, (String) value));
            check(payload.metadata().equals(metadata), name + " metadata");
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
        if (value instanceof List<?> list) return "[" + String.join(",", list.stream().map(FormatTests::jsonOf).toList()) + "]";
        if (value instanceof Map<?, ?> map) {
            List<String> members = new ArrayList<>();
            for (var entry : map.entrySet()) if (entry.getValue() != null) members.add(Json.quote((String) entry.getKey()) + ":" + jsonOf(entry.getValue()));
            return "{" + String.join(",", members) + "}";
        }
        return String.valueOf(value);
    }
}
