package org.licensemanager.client;

/** A license file that is malformed, signed by a key that is not pinned, or altered. */
public final class InvalidLicenseFileException extends Exception {
    public enum Problem { MALFORMED, UNKNOWN_KEY, BAD_SIGNATURE }

    private static final long serialVersionUID = 1L;
    private final Problem problem;

    public InvalidLicenseFileException(Problem problem, String message) {
        super(message);
        this.problem = problem;
    }

    public Problem problem() {
        return problem;
    }
}
