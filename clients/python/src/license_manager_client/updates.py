"""Updates for the licensed software (DESIGN.md section 6i).

``check_for_update`` asks the server which newer release this machine's license is entitled to and
verifies the signed answer with the pinned keys; ``download_update`` fetches one of its files
through the signed link, streaming it to a temporary file while hashing it, and keeps it (renamed
to its own name) only once its size, SHA-256 and the server's signature over ``artifact/`` +
SHA-256 are right.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import secrets
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from .files import InvalidLicenseFile, PublicKey, _b64decode, _json, _verify

UPDATES_PREFIX = "updates/"
ARTIFACT_PREFIX = "artifact/"
_CHUNK = 1 << 20  # read 1 MiB at a time: memory stays flat whatever the file's size


class UpdateError(Exception):
    """An update refused or not verified.

    ``code`` is the server's error code (``ERR_NO_LICENSE``, ``ERR_LICENSE_REVOKED``, …, else
    ``HTTP_<status>``), ``UNREACHABLE``, ``MALFORMED``, ``BAD_SIGNATURE``, ``SIZE_MISMATCH``,
    ``CHECKSUM_MISMATCH`` or ``BAD_FILENAME``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class UpdateArtifact:
    """A file of a release for a platform (``windows|macos|linux|any``) and architecture (``x86_64|arm64|any``)."""

    platform: str
    arch: str
    filename: str
    size: int
    sha256: str
    sig: str
    kid: str
    url: str
    url_expires_at: str

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "UpdateArtifact":
        return cls(
            platform=value["platform"],
            arch=value["arch"],
            filename=value["filename"],
            size=int(value["size"]),
            sha256=value["sha256"],
            sig=value["sig"],
            kid=value["kid"],
            url=value["url"],
            url_expires_at=value.get("urlExpiresAt", ""),
        )


@dataclass(frozen=True)
class Release:
    """The newest release the license may have: its ``notes`` (Markdown per language) and its files for this platform."""

    version: str
    released_at: str
    notes: dict[str, str] = field(default_factory=dict)
    artifacts: list[UpdateArtifact] = field(default_factory=list)


@dataclass(frozen=True)
class NewerRelease:
    """The newest release the license may not have, and why (``free-updates-ended``, ``beta-not-allowed``, …)."""

    version: str
    released_at: str
    reason: str


@dataclass(frozen=True)
class UpdateInfo:
    """The verified answer of ``POST /api/client/v1/updates``."""

    latest: Release | None
    newer: NewerRelease | None
    issued_at: str

    @classmethod
    def from_json(cls, payload: Mapping[str, Any]) -> "UpdateInfo":
        latest = payload.get("latest")
        newer = payload.get("newer")
        return cls(
            latest=Release(latest["version"], latest["releasedAt"], dict(latest.get("notes") or {}), [UpdateArtifact.from_json(a) for a in latest.get("artifacts") or []]) if latest else None,
            newer=NewerRelease(newer["version"], newer["releasedAt"], newer["reason"]) if newer else None,
            issued_at=payload.get("issuedAt", ""),
        )


def _check_signature(keys: Iterable[PublicKey], kid: str, sig: str, message: str, what: str) -> None:
    """Raises UpdateError BAD_SIGNATURE unless ``sig`` is a pinned key's (the one of ``kid``) over ``message``."""
    try:
        _verify(keys, kid, sig, message.encode("utf-8"), what)
    except InvalidLicenseFile as error:
        raise UpdateError("BAD_SIGNATURE", str(error)) from error


def check_for_update(
    server_url: str,
    product: str,
    version: str,
    machine_id: str,
    platform: str,
    arch: str,
    public_keys: Iterable[PublicKey],
    channel: str = "stable",
    timeout: float = 15.0,
) -> UpdateInfo:
    """Asks ``POST /api/client/v1/updates`` which newer release this machine's license may have.

    Raises UpdateError with the server's code (``ERR_NO_LICENSE``, …), ``UNREACHABLE``,
    ``MALFORMED`` or ``BAD_SIGNATURE`` (the answer not signed by a pinned key).
    """
    body = {"machineId": machine_id, "product": product, "version": version, "platform": platform, "arch": arch, "channel": channel}
    request = urllib.request.Request(
        f"{server_url.rstrip('/')}/api/client/v1/updates",
        data=json.dumps(body).encode("utf-8"),
        headers={"content-type": "application/json", "accept": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, data = response.status, response.read()
    except urllib.error.HTTPError as error:
        with error:
            status, data = error.code, error.read()
    except (urllib.error.URLError, OSError) as error:
        raise UpdateError("UNREACHABLE", f"the server could not be reached: {error}") from error
    try:
        answer = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        answer = None
    if not 200 <= status < 300:
        error_code = answer.get("error") if isinstance(answer, dict) else None
        message = answer.get("message") if isinstance(answer, dict) else None
        raise UpdateError(error_code or f"HTTP_{status}", message or f"the server answered {status}")
    if not isinstance(answer, dict) or not all(isinstance(answer.get(k), str) and answer.get(k) for k in ("enc", "sig", "kid")):
        raise UpdateError("MALFORMED", "the updates answer lacks enc, sig or kid")
    _check_signature(public_keys, answer["kid"], answer["sig"], UPDATES_PREFIX + answer["enc"], "the updates answer")
    try:
        payload = _json(_b64decode(answer["enc"]), "the updates answer")
        return UpdateInfo.from_json(payload)
    except (InvalidLicenseFile, KeyError, TypeError, ValueError, AttributeError) as error:
        raise UpdateError("MALFORMED", f"the updates answer is not readable: {error}") from error


def safe_filename(filename: str) -> str:
    """The last part of ``filename`` (``/`` or ``\\`` separated); UpdateError BAD_FILENAME when nothing usable is left."""
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if name in ("", ".", "..") or "\x00" in name or ":" in name:
        raise UpdateError("BAD_FILENAME", f"the file name {filename!r} is not usable")
    return name


def download_update(artifact: UpdateArtifact | Mapping[str, Any], public_keys: Iterable[PublicKey], directory: str | os.PathLike[str], timeout: float = 60.0) -> Path:
    """Downloads a file of an update into ``directory`` and returns its path, once size, SHA-256 and
    signature are right; otherwise raises UpdateError (``BAD_SIGNATURE``, ``SIZE_MISMATCH``,
    ``CHECKSUM_MISMATCH``, ``BAD_FILENAME``, ``UNREACHABLE``, ``HTTP_<status>``) and keeps nothing.

    The file streams to a temporary file in ``directory`` while it is hashed (memory stays flat for
    files of several GB) and is renamed to the last part of its ``filename`` only when verified.
    """
    if not isinstance(artifact, UpdateArtifact):
        artifact = UpdateArtifact.from_json(artifact)
    # The checksum the server signed: without it the download proves nothing.
    _check_signature(public_keys, artifact.kid, artifact.sig, ARTIFACT_PREFIX + artifact.sha256, "the file's checksum")
    name = safe_filename(artifact.filename)
    if urllib.parse.urlsplit(artifact.url).scheme not in ("http", "https"):
        raise UpdateError("MALFORMED", f"the download link {artifact.url!r} is not http(s)")
    folder = Path(directory)
    final = folder / name
    temporary = folder / f".{name}.{secrets.token_hex(8)}.part"
    try:
        response = urllib.request.urlopen(urllib.request.Request(artifact.url, method="GET"), timeout=timeout)
    except urllib.error.HTTPError as error:
        error.close()
        raise UpdateError(f"HTTP_{error.code}", f"the download answered {error.code}") from error
    except (urllib.error.URLError, OSError) as error:
        raise UpdateError("UNREACHABLE", f"the download could not be reached: {error}") from error
    digest = hashlib.sha256()
    received = 0
    try:
        with response, open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666), "wb") as file:
            while True:
                try:
                    chunk = response.read(_CHUNK)
                except (http.client.HTTPException, OSError) as error:
                    raise UpdateError("UNREACHABLE", f"the download broke off: {error}") from error
                if not chunk:
                    break
                received += len(chunk)
                if received > artifact.size:
                    raise UpdateError("SIZE_MISMATCH", f"expected {artifact.size} bytes, got more")
                digest.update(chunk)
                file.write(chunk)
        if received != artifact.size:
            raise UpdateError("SIZE_MISMATCH", f"expected {artifact.size} bytes, got {received}")
        if digest.hexdigest() != artifact.sha256.lower():
            raise UpdateError("CHECKSUM_MISMATCH", "the downloaded file is not the signed one")
        os.replace(temporary, final)
    except BaseException:
        # Nothing unverified is kept.
        try:
            temporary.unlink()
        except FileNotFoundError:
            pass
        raise
    return final
