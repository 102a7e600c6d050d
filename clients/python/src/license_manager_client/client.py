"""The licensing client of the desktop software (DESIGN.md sections 6 and 6d)."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable

from .files import InvalidLicenseFile, PublicKey, license_file_tag, parse_license_file, parse_time, verify_license_file, verify_server_time
from .signin import DeviceCode, SignInError, authorize_device, poll_device_token
from .signin import sign_out as _sign_out
from .status import LicenseStatus, refresh_due_at
from .store import MemoryStore

DEFAULT_CLOCK_TOLERANCE = timedelta(hours=48)

SERVER_REASONS = {
    "ERR_NO_LICENSE": "NO_LICENSE",
    "ERR_LICENSE_REVOKED": "REVOKED",
    "ERR_LICENSE_SUSPENDED": "SUSPENDED",
    "ERR_LICENSE_EXPIRED": "EXPIRED",
    "ERR_LICENSE_UPGRADED": "UPGRADED",
    "ERR_NO_SEAT": "NO_SEAT",
    "ERR_TOO_MANY_MACHINES": "TOO_MANY_MACHINES",
    # A desktop sign-in's person has no seat (any more): unassigned, or removed from the organization.
    "ERR_SEAT_UNASSIGNED": "SEAT_UNASSIGNED",
}


@dataclass
class _Candidate:
    name: str
    text: str
    payload: dict[str, Any]

    @property
    def any_machine(self) -> bool:
        return self.payload.get("kind") == "ANYLIC" and self.payload.get("machineId") == "*"

    def expiry(self) -> datetime | None:
        expires = self.payload.get("expiresAt")
        return parse_time(expires) if expires else None


@dataclass
class _Stored:
    usable: list[_Candidate] = field(default_factory=list)
    expired: list[_Candidate] = field(default_factory=list)
    rejected: int = 0


def _invalid(reason: str, message: str, offline: bool = False) -> LicenseStatus:
    return LicenseStatus(valid=False, reason=reason, message=message, offline=offline)


class LicenseClient:
    """Fetches the signed file of this machine, verifies it against pinned keys, keeps it in the store,
    refreshes it when the file's own fields say so (conditionally: a 304 costs the server nothing),
    and works offline from the stored file until it expires. Keeps the highest verified time (the
    server's signed ``License-Server-Time`` and the files' ``issuedAt``) so that a clock set back
    neither revives an expired file nor goes unnoticed."""

    def __init__(
        self,
        server_url: str,
        product: str,
        machine_id: str,
        public_keys: Iterable[PublicKey],
        store: Any = None,
        version: str | None = None,
        borrow_days: int | None = None,
        clock: Callable[[], datetime] | None = None,
        clock_tolerance: timedelta = DEFAULT_CLOCK_TOLERANCE,
        timeout: float = 15.0,
        install_key_id: str | None = None,
    ) -> None:
        self.server_url = server_url.rstrip("/")
        # A file bound to another installation's install key (offline activation) is refused.
        self.install_key_id = install_key_id
        self.product = product
        self.version = version
        self.machine_id = machine_id
        self.public_keys = list(public_keys)
        self.store = store if store is not None else MemoryStore()
        self.borrow_days = borrow_days
        self.clock_tolerance = clock_tolerance
        self.timeout = timeout
        self._local_clock = clock or (lambda: datetime.now(timezone.utc))
        self._trusted: datetime | None = None
        self._token_time: datetime | None = None
        self._token_loaded = False
        # The server's last confirmation (304), for a store that does not keep it (``confirmed.state``).
        self._unstored_confirmation: str | None = None
        # A clock tampering seen and not reported yet, for a store that does not keep it.
        self._unreported_tampering: str | None = None

    # -- the calls of the software ---------------------------------------------------------------

    def check(self) -> LicenseStatus:
        """The license now: the stored file while no refresh is due, else an answer of the server."""
        stored = self._stored()
        if stored.usable:
            best = stored.usable[0]
            due = self._refresh_due(best)
            # A borrow not yet granted asks the server at once, whatever the refresh time says.
            if not self._borrow_pending(best) and (due is None or due > self.now()):
                return self._judge_clock(self._valid(best.payload, "store", offline=False))
        return self._judge_clock(self._fetch(stored))

    def refresh(self) -> LicenseStatus:
        """Asks the server now, whatever the stored file says."""
        return self._judge_clock(self._fetch(self._stored()))

    def import_file(self, text: str) -> LicenseStatus:
        """A file the user brought (an offline machine): kept when it verifies and fits this machine and product."""
        try:
            payload = verify_license_file(text, self.public_keys)
        except InvalidLicenseFile as error:
            return _invalid("INVALID_FILE", str(error))
        if not self._fits(payload):
            return _invalid("INVALID_FILE", f"the file is for {payload['product']['name']} {payload['product']['version']} on machine {payload['machineId']}")
        self._load_token()
        self._raise(parse_time(payload["issuedAt"]))
        candidate = _Candidate("imported", text, payload)
        if self._is_expired(candidate):
            return self._judge_clock(_invalid("EXPIRED", f"the file expired at {payload['expiresAt']}"))
        self.store.save(text)
        self._write_confirmation(None)
        return self._judge_clock(self._valid(payload, "store", offline=False))

    def release(self) -> None:
        """Gives a floating seat back (also a borrowed one, early) and forgets this machine's file."""
        status, _, _ = self._request("DELETE")
        if not (200 <= status < 300 or status == 404):
            raise RuntimeError(f"the license server answered {status}")
        self._forget_machine_files()

    def next_check_delay(self, status: LicenseStatus, failures: int = 0) -> float:
        """Seconds until the next check: at the refresh time; while offline sooner, with backoff
        (1, 2, 4 … at most 15 minutes), but never after the file expires."""
        minute = 60.0
        backoff = min(minute * 2 ** max(failures - 1, 0), 15 * minute)

        def clamp(seconds: float) -> float:
            return min(max(seconds, 1.0), 24 * 60 * minute)

        now = self.now()
        if status.valid:
            if status.offline:
                expiry = status.expires_at
                left = (parse_time(expiry) - now).total_seconds() if expiry else float("inf")
                return clamp(min(backoff, left))
            return clamp((status.refresh_at - now).total_seconds() if status.refresh_at else 24 * 60 * minute)
        if status.reason == "UNREACHABLE":
            return clamp(backoff)
        if status.reason == "NO_SEAT":
            return minute
        return 60 * minute

    def start(self, on_status: Callable[[LicenseStatus], None]) -> Callable[[], None]:
        """Checks now and again whenever a refresh falls due, in a daemon thread, calling
        ``on_status`` after each check. Returns the function that stops it."""
        stopped = threading.Event()

        def run() -> None:
            failures = 0
            while not stopped.is_set():
                try:
                    status = self.check()
                except Exception as error:  # a bug in a store must not end the checks
                    status = _invalid("UNREACHABLE", str(error), offline=True)
                if stopped.is_set():
                    return
                on_status(status)
                unreachable = status.offline or status.reason == "UNREACHABLE"
                failures = failures + 1 if unreachable else 0
                stopped.wait(self.next_check_delay(status, failures))

        threading.Thread(target=run, name="license-check", daemon=True).start()
        return stopped.set

    # -- desktop sign-in (DESIGN.md section 6f, RFC 8628) ----------------------------------------

    @property
    def signed_in(self) -> bool:
        """Whether the store holds a desktop sign-in's token (license requests then carry it)."""
        return bool(self._desktop_token())

    def sign_in(self, on_code: Callable[[DeviceCode], None], cancel: threading.Event | None = None) -> LicenseStatus:
        """Signs a named user in: asks the server for a code, hands it to ``on_code`` (show
        ``user_code`` and ``verification_uri``, or open ``verification_uri_complete`` in the browser),
        polls until the person approved it in the portal, keeps the token in the store and fetches
        the file of their seat. Blocks while polling (run it in a thread; ``cancel.set()`` stops it).
        Not valid with ``SIGNIN_DENIED``, ``SIGNIN_EXPIRED``, ``SIGNIN_CANCELLED``, ``UNREACHABLE``, …"""
        try:
            code = authorize_device(self.server_url, self.product, self.machine_id, self.version, self.timeout)
            on_code(code)
            token = poll_device_token(self.server_url, code, self.timeout, wait=cancel.wait if cancel is not None else None)
        except SignInError as error:
            return _invalid(error.reason, str(error), offline=error.reason == "UNREACHABLE")
        if not hasattr(self.store, "write_desktop_token"):
            raise TypeError("the store cannot keep a desktop sign-in (it has no write_desktop_token)")
        self.store.write_desktop_token(token)
        self._write_confirmation(None)
        return self.refresh()

    def sign_out(self) -> bool:
        """Ends the desktop sign-in on the server and here, and forgets this machine's file (it was
        the person's). False when not signed in. Raises ``SignInError`` (``UNREACHABLE``) when the
        server could not be told; the sign-in is gone here all the same."""
        if not self._desktop_token():
            return False
        try:
            _sign_out(self.server_url, self.store, self.timeout)
        finally:
            self._forget_machine_files()
        return True

    def _desktop_token(self) -> str | None:
        return self.store.read_desktop_token() if hasattr(self.store, "read_desktop_token") else None

    def _forget_machine_files(self, stored: _Stored | None = None) -> None:
        """Forgets this machine's files (not ANY-Lic ones) and their confirmation: the server's final word, or a release."""
        if stored is None:
            stored = self._stored()
        for candidate in stored.usable + stored.expired:
            if not candidate.any_machine:
                self.store.remove(candidate.name)
        self._write_confirmation(None)

    def now(self) -> datetime:
        """The time files are judged at: the later of the local clock and the trusted time."""
        local = self._local_clock()
        return max(local, self._trusted) if self._trusted else local

    @property
    def trusted_time(self) -> datetime | None:
        self._load_token()
        return self._trusted

    # -- trusted time ----------------------------------------------------------------------------

    def _raise(self, moment: datetime) -> None:
        if self._trusted is None or moment > self._trusted:
            self._trusted = moment

    def _load_token(self) -> None:
        if self._token_loaded:
            return
        self._token_loaded = True
        token = self.store.read_server_time() if hasattr(self.store, "read_server_time") else None
        if not token:
            return
        try:
            t, _ = verify_server_time(token, self.public_keys)
        except InvalidLicenseFile:
            return  # edited, or signed by a key no longer pinned
        self._token_time = datetime.fromtimestamp(t, timezone.utc)
        self._raise(self._token_time)

    def _note_server_time(self, header: str | None) -> None:
        if not header:
            return
        self._load_token()
        try:
            t, _ = verify_server_time(header, self.public_keys)
        except InvalidLicenseFile:
            return  # a forged or foreign token says nothing
        moment = datetime.fromtimestamp(t, timezone.utc)
        self._raise(moment)
        if self._token_time is None or moment > self._token_time:
            self._token_time = moment
            if hasattr(self.store, "write_server_time"):
                self.store.write_server_time(header.strip())

    def _clock_lag(self) -> timedelta | None:
        """How far the local clock lags behind the trusted time, when by more than the tolerance."""
        if self._trusted is None:
            return None
        lag = self._trusted - self._local_clock()
        return lag if lag > self.clock_tolerance else None

    def _note_tampering(self) -> None:
        """Remembers when the clock was first seen set back, until a license request reports it."""
        if self._tampering_to_report():
            return
        at = self.now().astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self._unreported_tampering = at
        if hasattr(self.store, "write_clock_tampered"):
            self.store.write_clock_tampered(at)

    def _tampering_to_report(self) -> str | None:
        kept = self.store.read_clock_tampered() if hasattr(self.store, "read_clock_tampered") else None
        return kept or self._unreported_tampering

    def _judge_clock(self, status: LicenseStatus) -> LicenseStatus:
        """A local clock far behind the trusted time spoils a valid or expired verdict (and is reported on the next request)."""
        lag = self._clock_lag()
        if lag is not None:
            self._note_tampering()
        if lag is None or (not status.valid and status.reason != "EXPIRED"):
            return status
        hours = round(lag.total_seconds() / 3600)
        return _invalid("CLOCK_TAMPERED", f"the computer's clock is {hours} hours behind the time the license server last confirmed; set it right", status.offline)

    # -- stored files ----------------------------------------------------------------------------

    def _fits(self, payload: dict[str, Any]) -> bool:
        product = payload.get("product") or {}
        any_machine = payload.get("kind") == "ANYLIC" and payload.get("machineId") == "*"
        bound = payload.get("installKeyId")
        if bound is not None and bound != self.install_key_id:
            return False
        return (payload.get("machineId") == self.machine_id or any_machine) and product.get("name") == self.product and (self.version is None or product.get("version") == self.version)

    def _is_expired(self, candidate: _Candidate) -> bool:
        expiry = candidate.expiry()
        return expiry is not None and expiry <= self.now()

    def _stored(self) -> _Stored:
        self._load_token()
        stored = _Stored()
        candidates = []
        for name, text in self.store.list():
            try:
                payload = verify_license_file(text, self.public_keys)
                self._raise(parse_time(payload["issuedAt"]))
            except (InvalidLicenseFile, KeyError, ValueError):
                stored.rejected += 1  # never used; named when nothing else is left
                continue
            if self._fits(payload):
                candidates.append(_Candidate(name, text, payload))
        far = datetime.max.replace(tzinfo=timezone.utc)
        for candidate in candidates:
            (stored.expired if self._is_expired(candidate) else stored.usable).append(candidate)
        # The machine's own file before an ANY-Lic one, the longest running first.
        stored.usable.sort(key=lambda c: (c.any_machine, -(c.expiry() or far).timestamp(), -parse_time(c.payload["issuedAt"]).timestamp()))
        return stored

    def _tag(self, candidate: _Candidate) -> str:
        return license_file_tag(parse_license_file(candidate.text), candidate.payload)

    def _refresh_due(self, candidate: _Candidate) -> datetime | None:
        """When the held file falls due; after a 304, counted from the confirmation."""
        confirmed = self._read_confirmation()
        if confirmed and not candidate.any_machine and confirmed[0] == self._tag(candidate):
            return refresh_due_at(candidate.payload, confirmed[1])
        return refresh_due_at(candidate.payload)

    def _read_confirmation(self) -> tuple[str, datetime] | None:
        """The file the server last confirmed (304), by its tag, and when: ``<tag> <epoch ms>``, as every client keeps it."""
        text = self.store.read_confirmed() if hasattr(self.store, "read_confirmed") else self._unstored_confirmation
        parts = (text or "").split()
        try:
            return (parts[0], datetime.fromtimestamp(int(parts[1]) / 1000, timezone.utc)) if len(parts) == 2 else None
        except (ValueError, OverflowError, OSError):
            return None  # an unreadable note: the file's own schedule

    def _write_confirmation(self, confirmed: tuple[str, datetime] | None) -> None:
        """Keeps the confirmation in the store, so that the next run counts from it too; None forgets it."""
        text = f"{confirmed[0]} {round(confirmed[1].timestamp() * 1000)}\n" if confirmed else None
        if not hasattr(self.store, "write_confirmed"):
            self._unstored_confirmation = text
            return
        try:
            self.store.write_confirmed(text)
        except OSError:
            pass  # a store that cannot be written: the next check asks again

    def _borrow_pending(self, candidate: _Candidate | None) -> bool:
        """Whether a borrow is asked for and the held file (none, or the machine's own) does not say one that still runs."""
        if not self.borrow_days or (candidate is not None and candidate.any_machine):
            return False
        until = candidate.payload.get("borrowedUntil") if candidate else None
        return not until or parse_time(until) <= self.now()

    # -- the server ------------------------------------------------------------------------------

    def _request(self, method: str, if_none_match: str | None = None, clock_tampered_at: str | None = None, token: str | None = None) -> tuple[int, Any, bytes]:
        body: dict[str, Any] = {"machineId": self.machine_id, "product": self.product}
        if clock_tampered_at:
            body["clockTamperedAt"] = clock_tampered_at
        if self.version is not None:
            body["version"] = self.version
        # With borrow_days every license request asks for the borrow: a refresh of a borrowed file renews
        # it (the server counts borrowedUntil from now), where one without would bring the short floating file.
        if method == "POST" and self.borrow_days:
            body["borrowDays"] = self.borrow_days
        headers = {"content-type": "application/json", "accept": "application/json"}
        if if_none_match:
            headers["if-none-match"] = if_none_match
        if token:
            headers["authorization"] = f"Bearer {token}"
        request = urllib.request.Request(f"{self.server_url}/api/client/v1/license", data=json.dumps(body).encode("utf-8"), headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:  # 304 and every refusal
            with error:
                return error.code, error.headers, error.read()

    def _valid(self, payload: dict[str, Any], source: str, offline: bool, confirmed_at: datetime | None = None) -> LicenseStatus:
        refresh_at = None if offline else refresh_due_at(payload, confirmed_at)
        return LicenseStatus(valid=True, license=payload, source=source, offline=offline, refresh_at=refresh_at)

    def _fetch(self, stored: _Stored) -> LicenseStatus:
        # The machine's own file goes along as If-None-Match: 304 while it is still right. A pending
        # borrow asks for a new file (one that says borrowedUntil), so it sends none.
        held = next((c for c in stored.usable if not c.any_machine), None)
        borrow = self._borrow_pending(held)
        tag = self._tag(held) if held and not borrow else None
        # A clock set back is reported with this request, and forgotten once the server answered it.
        if self._clock_lag() is not None:
            self._note_tampering()
        tampered_at = self._tampering_to_report()
        # A desktop sign-in's token goes with every license request, the conditional one too.
        token = self._desktop_token()
        try:
            status, headers, body = self._request("POST", tag, tampered_at, token)
        except (urllib.error.URLError, OSError) as error:
            return self._offline(stored, f"the license server cannot be reached ({error})")
        if tampered_at and status < 500:
            self._unreported_tampering = None
            if hasattr(self.store, "write_clock_tampered"):
                self.store.write_clock_tampered(None)
        self._note_server_time(headers.get("license-server-time") if headers else None)
        if status == 304 and held and tag:
            confirmed_at = self.now()
            self._write_confirmation((tag, confirmed_at))
            return self._valid(held.payload, "server", offline=False, confirmed_at=confirmed_at)
        text = body.decode("utf-8", "replace")
        if 200 <= status < 300:
            try:
                payload = verify_license_file(text, self.public_keys)
                if not self._fits(payload):
                    raise InvalidLicenseFile("MALFORMED", "the server sent a file for another machine or product")
            except InvalidLicenseFile as error:
                return self._offline(stored, f"the server's license file is not valid ({error})")
            self._raise(parse_time(payload["issuedAt"]))
            self.store.save(text)
            self._write_confirmation(None)
            return self._valid(payload, "server", offline=False)
        try:
            answer = json.loads(text)
        except ValueError:
            answer = {}
        if not isinstance(answer, dict):
            answer = {}
        if answer.get("error") == "ERR_BORROW_NOT_ALLOWED":
            # Only the borrow is refused, not the license: the stored files stay, and count again without borrow_days.
            return _invalid("BORROW_NOT_ALLOWED", answer.get("message") or "ERR_BORROW_NOT_ALLOWED")
        reason = SERVER_REASONS.get(answer.get("error", ""))
        if token and status == 401:
            # The sign-in ended (signed out in the portal, revoked, the member removed): the token is
            # worthless, and the file was the person's.
            self.store.write_desktop_token(None)
            reason = "SIGNED_OUT"
            answer = {"message": "the desktop sign-in has ended; sign in again"}
        if reason is None:
            return self._offline(stored, f"the license server answered {status}")
        # The server's final word: this machine's stored files no longer count; an ANY-Lic file still does.
        self._forget_machine_files(stored)
        any_lic = next((c for c in stored.usable if c.any_machine), None)
        if any_lic:
            return self._valid(any_lic.payload, "store", offline=False)
        return _invalid(reason, answer.get("message", reason))

    def _offline(self, stored: _Stored, message: str) -> LicenseStatus:
        if stored.usable:
            return self._valid(stored.usable[0].payload, "store", offline=True)
        if stored.expired:
            return _invalid("EXPIRED", f"the license file expired at {stored.expired[0].payload.get('expiresAt')} and {message}", offline=True)
        if stored.rejected:
            return _invalid("INVALID_FILE", f"the stored license file does not verify (altered, or signed by a key that is not pinned) and {message}", offline=True)
        return _invalid("UNREACHABLE", message, offline=True)
