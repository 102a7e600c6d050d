"""The harness CLI every client ships (DESIGN.md section 6d, clients/kit/README.md)::

    python -m license_manager_client.harness check --server URL --product NAME [--version V]
        --machine ID|auto --store DIR --keys FILE [--borrow-days N] [--release]

Prints one JSON line {valid, reason, licenseId, offline, expiresAt}; exit 0 valid, 1 not, 2 usage.
Test hook: LICENSE_HARNESS_CLOCK_OFFSET_SECONDS moves the client's clock (never the server's).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .client import LicenseClient
from .files import PublicKey
from .fingerprint import machine_fingerprint
from .store import DirectoryStore


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("takes a whole number of days")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="harness", description="Checks the license of a machine, as the software would.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check")
    check.add_argument("--server", required=True)
    check.add_argument("--product", required=True)
    check.add_argument("--version")
    check.add_argument("--machine", required=True, help="the machine id, or auto for the fingerprint helper")
    check.add_argument("--store", required=True, help="the folder of license files")
    check.add_argument("--keys", required=True, help="the saved answer of GET /api/client/v1/keys")
    check.add_argument("--borrow-days", type=positive)
    check.add_argument("--release", action="store_true", help="give the floating seat back after the check")
    args = parser.parse_args(argv)

    offset = timedelta(seconds=int(os.environ.get("LICENSE_HARNESS_CLOCK_OFFSET_SECONDS", "0") or 0))
    client = LicenseClient(
        server_url=args.server,
        product=args.product,
        version=args.version,
        machine_id=machine_fingerprint(args.product) if args.machine == "auto" else args.machine,
        public_keys=PublicKey.load_keys_json(Path(args.keys).read_text("utf-8")),
        store=DirectoryStore(args.store),
        borrow_days=args.borrow_days,
        clock=lambda: datetime.now(timezone.utc) + offset,
    )
    status = client.check()
    if args.release:
        try:
            client.release()
        except Exception as error:  # the status of the check still counts
            print(f"release failed: {error}", file=sys.stderr)
    line = {
        "valid": status.valid,
        "reason": status.reason,
        "licenseId": status.license.get("licenseId") if status.valid and status.license else None,
        "offline": status.offline,
        "expiresAt": status.expires_at if status.valid else None,
    }
    print(json.dumps(line))
    if not status.valid:
        print(status.message, file=sys.stderr)
    return 0 if status.valid else 1


if __name__ == "__main__":
    sys.exit(main())
