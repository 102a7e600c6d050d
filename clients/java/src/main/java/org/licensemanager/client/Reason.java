package org.licensemanager.client;

/** Why there is no valid license. */
public enum Reason {
    /** The server knows no license of this product for this machine. */
    NO_LICENSE,
    REVOKED,
    /** The subscription is suspended (unpaid); reversible. */
    SUSPENDED,
    EXPIRED,
    /** The license was upgraded: use the software version of the new license. */
    UPGRADED,
    /** Every seat of the floating license is taken. */
    NO_SEAT,
    TOO_MANY_MACHINES,
    /** No usable stored file, and the server cannot be reached. */
    UNREACHABLE,
    /** A file that does not verify or is not for this machine and product. */
    INVALID_FILE,
    /** The local clock is behind the time the server vouched for by more than the tolerance. */
    CLOCK_TAMPERED,
    /** Desktop sign-in: the signed-in person has no seat of this product (any more). */
    SEAT_UNASSIGNED,
    /** Desktop sign-in: the server no longer accepts the sign-in (signed out, revoked under Security, member removed); sign in again. */
    SIGNED_OUT,
    /** Desktop sign-in: the person denied the sign-in on the /device page. */
    SIGNIN_DENIED,
    /** Desktop sign-in: the code was not approved in time (or cannot be used any more); start again. */
    SIGNIN_EXPIRED,
    /**
     * Borrowing: more days than the policy allows (or none at all). Only the borrow is refused: the
     * stored files stay, and a client without {@code borrowDays} still uses them.
     */
    BORROW_NOT_ALLOWED
}
