"""A stable machine id from the operating system's own, hashed with the product name."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

LINUX_FILES = ("/etc/machine-id", "/var/lib/dbus/machine-id")


def operating_system_machine_id(platform: str = sys.platform) -> str:
    """The raw machine id of the operating system (never send it anywhere: see machine_fingerprint)."""
    if platform.startswith("win"):
        output = subprocess.run(["reg", "query", r"HKLM\SOFTWARE\Microsoft\Cryptography", "/v", "MachineGuid"], capture_output=True, text=True, check=False).stdout
        match = re.search(r"MachineGuid\s+REG_SZ\s+(\S+)", output)
    elif platform == "darwin":
        output = subprocess.run(["ioreg", "-rd1", "-c", "IOPlatformExpertDevice"], capture_output=True, text=True, check=False).stdout
        match = re.search(r'"IOPlatformUUID"\s*=\s*"([^"]+)"', output)
    else:
        for name in LINUX_FILES:
            try:
                raw = Path(name).read_text("utf-8").strip()
            except OSError:
                continue
            if raw:
                return raw
        match = None
    if match:
        return match.group(1).strip()
    raise RuntimeError(f"no machine id found on {platform}: pass your own machine id to LicenseClient")


def machine_fingerprint(product: str, raw_id: str | None = None) -> str:
    """The first 32 hex digits, upper case, of SHA-256 over ``<product>:<raw id>`` (UTF-8).

    The raw id never leaves the machine, and two products see different ids. Unstable where the
    operating system's id is: cloned virtual machines and containers share or regenerate it, so pass
    your own id there.
    """
    raw = (raw_id if raw_id is not None else operating_system_machine_id()).strip()
    return hashlib.sha256(f"{product}:{raw}".encode("utf-8")).hexdigest()[:32].upper()
