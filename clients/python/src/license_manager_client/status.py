"""What a check answers (LicenseStatus), and when a file falls due for a refresh."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from . import files
from .files import parse_time


@dataclass
class LicenseStatus:
    """``valid`` with the verified ``license`` payload, or not, with a ``reason``: NO_LICENSE, REVOKED,
    SUSPENDED, EXPIRED, UPGRADED, NO_SEAT, TOO_MANY_MACHINES, UNREACHABLE, INVALID_FILE or
    CLOCK_TAMPERED; with ``borrow_days`` BORROW_NOT_ALLOWED (more days than the policy allows: only
    the borrow is refused, the stored files stay and count without ``borrow_days``); with a desktop
    sign-in SEAT_UNASSIGNED (the person has no seat) or SIGNED_OUT (the sign-in ended), and from
    ``sign_in`` SIGNIN_DENIED, SIGNIN_EXPIRED or SIGNIN_CANCELLED."""

    valid: bool
    reason: str | None = None
    message: str = ""
    license: dict[str, Any] | None = None
    #: The server could not be reached in this check (a valid status then comes from the stored file).
    offline: bool = False
    #: ``server``: just fetched or confirmed (304); ``store``: the stored file, still good.
    source: str | None = None
    #: When the client will next ask the server (None: never, or working offline).
    refresh_at: datetime | None = None

    @property
    def expires_at(self) -> str | None:
        return self.license.get("expiresAt") if self.license else None

    def has_feature(self, name: str) -> bool:
        """Whether the valid license has the feature (DESIGN.md section 6g)."""
        return self.valid and self.license is not None and files.has_feature(self.license, name)

    def feature_value(self, name: str) -> bool | int | str | None:
        """The feature's value (True for a flag), None when the license lacks it or is not valid."""
        return files.feature_value(self.license, name) if self.valid and self.license is not None else None

    def metadata(self) -> dict[str, str]:
        """The license's metadata."""
        return files.metadata(self.license) if self.license is not None else {}



def refresh_due_at(payload: dict[str, Any], confirmed_at: datetime | None = None) -> datetime | None:
    """When a file falls due for a refresh: its issue plus the interval, at the latest its expiry less
    the refresh-before-expiry time. After the server confirmed it (304) at ``confirmed_at``: one
    interval from then, at the latest its refresh-before-expiry time or, once that has passed, the
    middle of its validity (from then on the server sends a new file). None: never."""
    interval = payload.get("refetchIntervalSeconds") or 0
    before = payload.get("refetchBeforeExpirySeconds") or 0
    issued = parse_time(payload["issuedAt"])
    start = confirmed_at or issued
    moments = []
    if interval > 0:
        moments.append(start + timedelta(seconds=interval))
    if payload.get("expiresAt"):
        expiry = parse_time(payload["expiresAt"])
        before_expiry = expiry - timedelta(seconds=before)
        moments.append(before_expiry if confirmed_at is None or before_expiry > confirmed_at else issued + (expiry - issued) / 2)
    return min(moments) if moments else None
