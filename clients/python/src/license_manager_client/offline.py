"""Air-gapped sites and containers (DESIGN.md section 6h): the install key, request files,
deactivation proofs, and instance leases.

The install key is an Ed25519 key pair made on first use and kept in the store folder
(``install-key``, mode 0600), the identity of this installation; only its public key leaves the
machine, inside request files.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import urllib.error
import urllib.request
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .files import InvalidLicenseFile, PublicKey, license_file_tag, parse_license_file, verify_license_file

INSTALL_KEY_FILE_NAME = "install-key"


class InstallKey:
    """This installation's key: ``public_key`` (SPKI DER, base64) and ``key_id`` (SHA-256 hex of it)."""

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._private_key = private_key
        spki = private_key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        self.public_key = base64.b64encode(spki).decode("ascii")
        self.key_id = hashlib.sha256(spki).hexdigest()

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> "InstallKey":
        """The key kept in ``directory``, made (mode 0600) on first use."""
        path = Path(directory) / INSTALL_KEY_FILE_NAME
        try:
            return cls(serialization.load_pem_private_key(path.read_bytes(), password=None))  # type: ignore[arg-type]
        except FileNotFoundError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another first use won: its key is the one
            return cls.load(directory)
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)
        return cls(key)

    def sign(self, message: str) -> str:
        return base64.b64encode(self._private_key.sign(message.encode("utf-8"))).decode("ascii")

    def _armored(self, label: str, prefix: str, content: dict[str, Any]) -> str:
        enc = base64.b64encode(json.dumps(content, separators=(",", ":")).encode("utf-8")).decode("ascii")
        body = f"{enc}.{self.sign(prefix + enc)}"
        lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
        return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----\n"

    def license_request(self, product: str, machine_id: str, version: str | None = None, now: datetime | None = None) -> str:
        """The request file an offline machine hands to the portal."""
        created = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        content = {"v": 1, "product": product, "version": version, "machineId": machine_id, "installKey": self.public_key, "createdAt": created, "nonce": secrets.token_hex(16)}
        return self._armored("LICENSE REQUEST", "request/", content)

    def deactivation_proof(self, license_id: int, machine_id: str, file_issued_at: str, now: datetime | None = None) -> str:
        """The proof that this installation retired the file of ``license_id``."""
        at = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        content = {"v": 1, "licenseId": license_id, "machineId": machine_id, "installKeyId": self.key_id, "fileIssuedAt": file_issued_at, "deactivatedAt": at, "nonce": secrets.token_hex(16)}
        return self._armored("DEACTIVATION PROOF", "deactivation/", content)


LEASE_REASONS = {
    "ERR_NO_LICENSE": "NO_LICENSE",
    "ERR_LICENSE_REVOKED": "REVOKED",
    "ERR_LICENSE_SUSPENDED": "SUSPENDED",
    "ERR_LICENSE_EXPIRED": "EXPIRED",
    "ERR_NO_SEAT": "NO_SEAT",
    "ERR_NOT_INSTANCE_KEY": "NOT_INSTANCE_KEY",
}


class InstanceLease:
    """A process instance's lease of a seat with the license key (an INSTANCE policy's TAN):
    ``renew()`` takes or renews it (every ``refetchIntervalSeconds``), ``release()`` frees it on a
    clean exit; a killed process's seat comes free when the lease's time to live runs out."""

    def __init__(self, server_url: str, license_key: str, product: str, public_keys: Iterable[PublicKey], version: str | None = None, instance_id: str | None = None, timeout: float = 15.0) -> None:
        self.server_url = server_url.rstrip("/")
        self.license_key = license_key
        self.product = product
        self.version = version
        self.public_keys = list(public_keys)
        self.instance_id = instance_id or f"i-{uuid.uuid4()}"
        self.timeout = timeout
        self._held: tuple[dict[str, Any], str] | None = None

    def _call(self, method: str, if_none_match: str | None = None) -> tuple[int, bytes]:
        body: dict[str, Any] = {"key": self.license_key, "product": self.product, "instanceId": self.instance_id}
        if self.version is not None:
            body["version"] = self.version
        headers = {"content-type": "application/json", "accept": "application/json"}
        if if_none_match:
            headers["if-none-match"] = if_none_match
        request = urllib.request.Request(f"{self.server_url}/api/client/v1/lease", data=json.dumps(body).encode("utf-8"), headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.read()

    def renew(self) -> tuple[bool, str | None, dict[str, Any] | None]:
        """(valid, reason, payload)."""
        try:
            status, body = self._call("POST", self._held[1] if self._held else None)
        except (urllib.error.URLError, OSError):
            return False, "UNREACHABLE", None
        if status == 304 and self._held:
            return True, None, self._held[0]
        text = body.decode("utf-8", "replace")
        if 200 <= status < 300:
            try:
                payload = verify_license_file(text, self.public_keys)
            except InvalidLicenseFile:
                return False, "INVALID_FILE", None
            if payload.get("machineId") != self.instance_id or payload.get("leaseMode") != "INSTANCE" or (payload.get("product") or {}).get("name") != self.product:
                return False, "INVALID_FILE", None
            self._held = (payload, license_file_tag(parse_license_file(text), payload))
            return True, None, payload
        self._held = None
        try:
            error = json.loads(text).get("error", "")
        except (ValueError, AttributeError):
            error = ""
        return False, LEASE_REASONS.get(error, "UNREACHABLE"), None

    def release(self) -> None:
        self._held = None
        self._call("DELETE")
