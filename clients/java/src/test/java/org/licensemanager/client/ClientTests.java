package org.licensemanager.client;

import static org.licensemanager.client.TestSupport.*;

import java.util.List;
import java.util.Map;

/**
 * The unit tests of the Java client, run by {@code ./build test} without any test library: each test
 * runs, its failed checks are listed, and the exit status says whether all passed. The tests are in
 * FormatTests, BehaviourTests, UpdatesTests and SignInTests; what they share in TestSupport.
 */
public final class ClientTests {
    private ClientTests() {}

    public static void main(String[] args) throws Exception {
        setUpKeys();

        for (var test : List.<Map.Entry<String, ThrowingRunnable>>of(
                Map.entry("json", FormatTests::json),
                Map.entry("verification", FormatTests::verification),
                Map.entry("tag", FormatTests::tag),
                Map.entry("time tokens", FormatTests::timeTokens),
                Map.entry("fetch, store, 304 and the refresh schedule", BehaviourTests::fetchAndConfirm),
                Map.entry("refusals", BehaviourTests::refusals),
                Map.entry("offline until expiry", BehaviourTests::offline),
                Map.entry("altered and foreign files, imports, ANY-Lic", BehaviourTests::imports),
                Map.entry("release and borrowing", BehaviourTests::releaseAndBorrow),
                Map.entry("a refresh of a borrowed file renews the borrow", BehaviourTests::borrowRenewedByARefresh),
                Map.entry("trusted time", BehaviourTests::trustedTime),
                Map.entry("fingerprint", BehaviourTests::fingerprint),
                Map.entry("updates: the signed answer and refusals", UpdatesTests::checkForUpdate),
                Map.entry("updates: downloads kept only when verified", UpdatesTests::download),
                Map.entry("desktop sign-in: polling, slow_down, the token kept 0600", SignInTests::polling),
                Map.entry("desktop sign-in: denied, expired, unreachable", SignInTests::notApproved),
                Map.entry("desktop sign-in: the bearer, SEAT_UNASSIGNED, SIGNED_OUT, sign-out", SignInTests::signedIn),
                Map.entry("desktop sign-in: borrowDays, the borrowed file, BORROW_NOT_ALLOWED", SignInTests::signedInBorrow),
                Map.entry("desktop sign-in: the harness's signout", SignInTests::harnessSignOut),
                Map.entry("shared test vectors", FormatTests::sharedVectors))) {
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
}
