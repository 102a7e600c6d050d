/* When the client asks the server: from the file's own refetch fields (docs/license-files.md). */
#include "internal.h"

static long long min_time(long long a, long long b) { return a < b ? a : b; }

long long lc_refresh_due_at(const lc_payload *p) {
    long long due = LC_NEVER;
    if (p->refetch_interval_seconds > 0) due = p->issued_at + (long long)(p->refetch_interval_seconds * 1000);
    if (p->expires_at != LC_NEVER) due = min_time(due, p->expires_at - (long long)(p->refetch_before_expiry_seconds * 1000));
    return due;
}

/* After a 304 at `at`: the next interval, at the latest when the file falls due for a new one. */
long long lc_refresh_due_after_confirmation(const lc_payload *p, long long at) {
    long long due = LC_NEVER;
    if (p->refetch_interval_seconds > 0) due = at + (long long)(p->refetch_interval_seconds * 1000);
    if (p->expires_at != LC_NEVER) {
        long long before_expiry = p->expires_at - (long long)(p->refetch_before_expiry_seconds * 1000);
        due = min_time(due, before_expiry > at ? before_expiry : p->issued_at + (p->expires_at - p->issued_at) / 2);
    }
    return due;
}
