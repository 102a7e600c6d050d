"""Desktop sign-in of named users (DESIGN.md section 6f): the OAuth 2.0 Device Authorization Grant
(RFC 8628). The program asks for a code, shows it with the address where the person approves it,
polls until they did, and keeps the access token in the store; every license request then carries
it as ``Authorization: Bearer``. ``LicenseClient.sign_in`` / ``sign_out`` are the calls of the
software; the functions here are their parts."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable

#: The server's final words on a sign-in (RFC 8628 section 3.5) and the reasons they become.
GRANT_REASONS = {
    "access_denied": "SIGNIN_DENIED",
    "expired_token": "SIGNIN_EXPIRED",
    # The device code is unknown or was used already: the sign-in has to start again.
    "invalid_grant": "SIGNIN_EXPIRED",
}

#: Seconds RFC 8628 adds to the interval after each ``slow_down``.
SLOW_DOWN_SECONDS = 5


@dataclass(frozen=True)
class DeviceCode:
    """What the person needs to approve the sign-in: ``user_code`` to type at ``verification_uri``,
    or ``verification_uri_complete`` to open (it has the code in it). Good for ``expires_in`` seconds;
    the program polls every ``interval`` seconds."""

    device_code: str
    user_code: str
    verification_uri: str
    verification_uri_complete: str
    expires_in: int
    interval: int


class SignInError(Exception):
    """A sign-in that did not end with a token. ``reason``: ``SIGNIN_DENIED``, ``SIGNIN_EXPIRED``,
    ``SIGNIN_CANCELLED``, ``UNREACHABLE``, a reason of the server's ``ERR_…`` code (``NO_LICENSE``
    for an unknown product) or ``HTTP_<status>``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _post(url: str, body: dict[str, Any] | None, timeout: float, method: str = "POST", token: str | None = None) -> tuple[int, Any]:
    headers = {"accept": "application/json"}
    data = None
    if body is not None:
        headers["content-type"] = "application/json"
        data = json.dumps(body).encode("utf-8")
    if token:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        with error:
            status, raw = error.code, error.read()
    try:
        answer = json.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        answer = None
    return status, answer


def authorize_device(server_url: str, product: str, machine_id: str, version: str | None = None, timeout: float = 15.0) -> DeviceCode:
    """Starts a sign-in (``POST /api/client/v1/device/authorize``)."""
    from .client import SERVER_REASONS  # the client module imports this one

    body: dict[str, Any] = {"product": product, "machineId": machine_id}
    if version is not None:
        body["version"] = version
    try:
        status, answer = _post(f"{server_url.rstrip('/')}/api/client/v1/device/authorize", body, timeout)
    except (urllib.error.URLError, OSError) as error:
        raise SignInError("UNREACHABLE", f"the license server cannot be reached ({error})") from error
    if status != 200 or not isinstance(answer, dict):
        code = answer.get("error", "") if isinstance(answer, dict) else ""
        message = answer.get("message", "") if isinstance(answer, dict) else ""
        raise SignInError(SERVER_REASONS.get(code, code or f"HTTP_{status}"), message or f"the license server answered {status}")
    try:
        return DeviceCode(
            device_code=str(answer["device_code"]),
            user_code=str(answer["user_code"]),
            verification_uri=str(answer["verification_uri"]),
            verification_uri_complete=str(answer.get("verification_uri_complete") or answer["verification_uri"]),
            expires_in=int(answer["expires_in"]),
            interval=max(int(answer.get("interval") or SLOW_DOWN_SECONDS), 1),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise SignInError("MALFORMED", f"the server's answer is not a device authorization ({error})") from error


def poll_device_token(
    server_url: str,
    code: DeviceCode,
    timeout: float = 15.0,
    wait: Callable[[float], bool] | None = None,
    monotonic: Callable[[], float] = time.monotonic,
) -> str:
    """Polls ``POST /api/client/v1/device/token`` every ``interval`` seconds (5 more after each
    ``slow_down``) until the person approved, and answers the access token. ``wait(seconds)`` sleeps
    and answers True to cancel (a ``threading.Event``'s ``wait``). A network failure, a 5xx or a
    rate limit is tried again at the next poll, until the code expires."""
    url = f"{server_url.rstrip('/')}/api/client/v1/device/token"
    sleep = wait or threading.Event().wait
    interval = float(code.interval)
    deadline = monotonic() + code.expires_in
    while True:
        if monotonic() + interval > deadline:
            raise SignInError("SIGNIN_EXPIRED", "the code expired before the sign-in was approved; start it again")
        if sleep(interval):
            raise SignInError("SIGNIN_CANCELLED", "the sign-in was cancelled")
        try:
            status, answer = _post(url, {"device_code": code.device_code}, timeout)
        except (urllib.error.URLError, OSError):
            continue  # the next poll tries again
        error = answer.get("error") if isinstance(answer, dict) else None
        if status == 200 and isinstance(answer, dict) and answer.get("access_token"):
            return str(answer["access_token"])
        if status == 400 and error == "authorization_pending":
            continue
        if status == 400 and error == "slow_down":
            interval += SLOW_DOWN_SECONDS
            continue
        if status == 400 and error in GRANT_REASONS:
            description = answer.get("error_description") or error
            raise SignInError(GRANT_REASONS[error], str(description))
        if status == 429 or status >= 500:
            continue
        message = (answer.get("error_description") or answer.get("message")) if isinstance(answer, dict) else None
        raise SignInError(f"HTTP_{status}" if not error else str(error), str(message or f"the license server answered {status}"))


def sign_out(server_url: str, store: Any, timeout: float = 15.0) -> bool:
    """Ends the store's sign-in: ``DELETE /api/client/v1/device/token`` with its token, and deletes
    the token from the store even when the server cannot be told (then raises ``SignInError``
    ``UNREACHABLE`` afterwards; the person can still end it in the portal under Security). Answers
    False when the store held no token."""
    token = store.read_desktop_token() if hasattr(store, "read_desktop_token") else None
    if not token:
        return False
    try:
        status, answer = _post(f"{server_url.rstrip('/')}/api/client/v1/device/token", None, timeout, method="DELETE", token=token)
    except (urllib.error.URLError, OSError) as error:
        raise SignInError("UNREACHABLE", f"signed out here, but the license server cannot be reached ({error})") from error
    finally:
        store.write_desktop_token(None)
    # 401: the server no longer knew the token (revoked in the portal, or the member removed).
    if not (200 <= status < 300 or status == 401):
        message = answer.get("message") if isinstance(answer, dict) else None
        raise SignInError(f"HTTP_{status}", f"signed out here, but the license server answered {status}{f': {message}' if message else ''}")
    return True
