"""Reading and verifying license files and the server's time tokens (docs/license-files.md)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key

BEGIN = "-----BEGIN LICENSE FILE-----"
END = "-----END LICENSE FILE-----"


class InvalidLicenseFile(Exception):
    """A file or time token that is malformed, signed by a key not pinned, or altered.

    ``problem`` is ``MALFORMED``, ``UNKNOWN_KEY`` or ``BAD_SIGNATURE``.
    """

    def __init__(self, problem: str, message: str) -> None:
        super().__init__(message)
        self.problem = problem


@dataclass(frozen=True)
class PublicKey:
    """A pinned public key, as ``GET /api/client/v1/keys`` publishes it."""

    kid: str
    public_key_pem: str

    @staticmethod
    def load_keys_json(text: str) -> list["PublicKey"]:
        """The keys of a saved ``GET /api/client/v1/keys`` answer."""
        return [PublicKey(key["kid"], key["publicKeyPem"]) for key in json.loads(text)["keys"]]


@dataclass(frozen=True)
class LicenseFile:
    enc: str
    sig: str
    kid: str


def _b64decode(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as error:
        raise InvalidLicenseFile("MALFORMED", "not valid base64") from error


def _json(data: bytes, what: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise InvalidLicenseFile("MALFORMED", f"{what} is not JSON") from error


def parse_license_file(text: str) -> LicenseFile:
    """Reads a ``.lic`` or ``.json`` license file (not yet verified)."""
    body = text.strip()
    if body.startswith(BEGIN):
        end = body.find(END)
        if end < 0:
            raise InvalidLicenseFile("MALFORMED", "the END LICENSE FILE line is missing")
        body = _b64decode(re.sub(r"\s+", "", body[len(BEGIN):end])).decode("utf-8", "replace")
    file = _json(body.encode("utf-8"), "the license file")
    if not isinstance(file, dict) or not all(isinstance(file.get(k), str) for k in ("enc", "sig", "kid")) or file.get("alg") != "ed25519":
        raise InvalidLicenseFile("MALFORMED", 'the license file lacks enc, sig, alg "ed25519" or kid')
    return LicenseFile(file["enc"], file["sig"], file["kid"])


_loaded: dict[str, Ed25519PublicKey] = {}


def _verify(keys: Iterable[PublicKey], kid: str, signature_b64: str, message: bytes, what: str) -> None:
    pinned = next((key for key in keys if key.kid == kid), None)
    if pinned is None:
        raise InvalidLicenseFile("UNKNOWN_KEY", f"{what} signed with the unknown key {kid}")
    public_key = _loaded.get(pinned.public_key_pem)
    if public_key is None:
        loaded = load_pem_public_key(pinned.public_key_pem.encode("ascii"))
        if not isinstance(loaded, Ed25519PublicKey):
            raise InvalidLicenseFile("UNKNOWN_KEY", f"the pinned key {kid} is not an Ed25519 key")
        public_key = _loaded[pinned.public_key_pem] = loaded
    try:
        public_key.verify(_b64decode(signature_b64), message)
    except InvalidSignature as error:
        raise InvalidLicenseFile("BAD_SIGNATURE", f"the signature of {what} does not match: it was altered") from error


def verify_license_file(text_or_file: str | LicenseFile, keys: Iterable[PublicKey]) -> dict[str, Any]:
    """Verifies a license file against the pinned keys and returns its payload."""
    file = parse_license_file(text_or_file) if isinstance(text_or_file, str) else text_or_file
    _verify(keys, file.kid, file.sig, f"license/{file.enc}".encode("ascii", "replace"), "the license file")
    payload = _json(_b64decode(file.enc), "the payload")
    if not isinstance(payload, dict) or payload.get("kid") != file.kid:
        raise InvalidLicenseFile("BAD_SIGNATURE", "the payload names another key")
    return payload


def verify_server_time(value: str, keys: Iterable[PublicKey]) -> tuple[int, str]:
    """Verifies a ``License-Server-Time`` header (``<enc>.<sig>``); returns ``(t, kid)``, t in Unix seconds."""
    parts = value.strip().split(".")
    if len(parts) != 2 or not all(parts):
        raise InvalidLicenseFile("MALFORMED", "a time token is <enc>.<sig>")
    enc, sig = parts
    token = _json(_b64decode(enc), "the time token")
    if not isinstance(token, dict) or not isinstance(token.get("t"), (int, float)) or isinstance(token.get("t"), bool) or not isinstance(token.get("kid"), str):
        raise InvalidLicenseFile("MALFORMED", "the time token lacks t or kid")
    _verify(keys, token["kid"], sig, f"time/{enc}".encode("ascii"), "the time token")
    return int(token["t"]), token["kid"]


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if number == 0:
            return out


def parse_time(text: str) -> datetime:
    """An ISO-8601 time of the server (``2026-01-01T00:00:00.000Z``), timezone-aware."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def license_file_tag(file: LicenseFile, payload: Mapping[str, Any]) -> str:
    """The file's ETag as the server writes it, derived from the file alone (sent as If-None-Match)."""
    issued_ms = round(parse_time(payload["issuedAt"]).timestamp() * 1000)
    digest = base64.urlsafe_b64encode(hashlib.sha256(file.enc.encode("ascii")).digest()).decode("ascii").rstrip("=")[:22]
    return f'"lm1-{_base36(issued_ms)}-{digest}"'


# Entitlements (DESIGN.md section 6g): files before them carry only ``features``.


def has_feature(payload: Mapping[str, Any], name: str) -> bool:
    """Whether the license has the feature."""
    entitlements = payload.get("entitlements")
    if isinstance(entitlements, dict):
        return name in entitlements
    return name in (payload.get("features") or [])


def feature_value(payload: Mapping[str, Any], name: str) -> bool | int | str | None:
    """The feature's value: a number or a text, True for a flag, None when the license lacks it."""
    if not has_feature(payload, name):
        return None
    entitlements = payload.get("entitlements")
    return entitlements.get(name, True) if isinstance(entitlements, dict) else True


def metadata(payload: Mapping[str, Any]) -> dict[str, str]:
    """The license's metadata (empty when the file has none)."""
    value = payload.get("metadata")
    return dict(value) if isinstance(value, dict) else {}
