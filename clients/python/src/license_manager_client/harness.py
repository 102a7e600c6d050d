"""The harness CLI every client ships (DESIGN.md section 6d, clients/kit/README.md)::

    python -m license_manager_client.harness check --server URL --product NAME [--version V]
        --machine ID|auto --store DIR --keys FILE [--borrow-days N] [--release]

Air-gapped commands (DESIGN.md section 6h): ``request --product --machine --store --out FILE``,
``import --file F --product --machine --store --keys``, ``deactivate --product --machine --store
--keys --out FILE`` and ``lease --server --product --key TAN --keys --instance ID [--release]``.

Updates (DESIGN.md section 6i): ``updates --server URL --product NAME --version V --machine ID
--keys FILE --platform P --arch A [--channel stable|beta] [--out DIR]`` prints one JSON line
{latest, newer, reason, file, error}; with --out it downloads the first file of ``latest``, kept only
once verified; exit 0 done, 1 refused or not verified, 2 usage.

Desktop sign-in (DESIGN.md section 6f, RFC 8628): ``signin --server URL --product NAME [--version V]
--machine ID --store DIR --keys FILE`` prints (and flushes) a first line {userCode, verificationUri,
verificationUriComplete, expiresIn, interval}, polls until the person approved, keeps the token in
the store (``desktop-token``) and prints the check's line; ``signout --server URL --store DIR`` ends
the sign-in and prints {signedOut} (exit 1 when the store held no token).

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
from .signin import DeviceCode, SignInError, sign_out
from .files import PublicKey
from .files import verify_license_file
from .fingerprint import machine_fingerprint
from .offline import InstallKey, InstanceLease
from .store import DirectoryStore
from .updates import UpdateError, check_for_update, download_update


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
    signin = commands.add_parser("signin", help="desktop sign-in of a named user (RFC 8628): prints the code, polls, then checks")
    for name in ("--server", "--product", "--machine", "--store", "--keys"):
        signin.add_argument(name, required=True)
    signin.add_argument("--version")
    signout = commands.add_parser("signout", help="ends the store's desktop sign-in")
    signout.add_argument("--server", required=True)
    signout.add_argument("--store", required=True)
    for name in ("request", "import", "deactivate"):
        command = commands.add_parser(name)
        command.add_argument("--product", required=True)
        command.add_argument("--version")
        command.add_argument("--machine", required=True)
        command.add_argument("--store", required=True)
        if name != "request":
            command.add_argument("--keys", required=True)
        if name == "import":
            command.add_argument("--file", required=True)
        else:
            command.add_argument("--out", required=True)
    lease = commands.add_parser("lease")
    for name in ("--server", "--product", "--key", "--keys", "--instance"):
        lease.add_argument(name, required=True)
    lease.add_argument("--version")
    lease.add_argument("--release", action="store_true")
    updates = commands.add_parser("updates", help="the newest release the license may have; with --out, download and verify its file")
    for name in ("--server", "--product", "--version", "--machine", "--keys"):
        updates.add_argument(name, required=True)
    updates.add_argument("--platform", required=True, choices=("windows", "macos", "linux", "any"))
    updates.add_argument("--arch", required=True, choices=("x86_64", "arm64", "any"))
    updates.add_argument("--channel", default="stable", choices=("stable", "beta"))
    updates.add_argument("--out", help="the folder to download the release's first file into")
    args = parser.parse_args(argv)
    if args.command == "lease":
        return run_lease(args)
    if args.command == "updates":
        return run_updates(args)
    if args.command in ("request", "deactivate"):
        return run_offline(args)
    if args.command == "signout":
        return run_signout(args)

    offset = timedelta(seconds=int(os.environ.get("LICENSE_HARNESS_CLOCK_OFFSET_SECONDS", "0") or 0))
    client = LicenseClient(
        server_url=getattr(args, "server", None) or "http://127.0.0.1:9",
        product=args.product,
        version=args.version,
        machine_id=machine_fingerprint(args.product) if args.machine == "auto" else args.machine,
        public_keys=PublicKey.load_keys_json(Path(args.keys).read_text("utf-8")),
        store=DirectoryStore(args.store),
        borrow_days=getattr(args, "borrow_days", None),
        clock=lambda: datetime.now(timezone.utc) + offset,
        install_key_id=InstallKey.load(args.store).key_id,
    )
    if args.command == "signin":
        status = client.sign_in(print_code)
    elif args.command == "import":
        status = client.import_file(Path(args.file).read_text("utf-8"))
    else:
        status = client.check()
    if getattr(args, "release", False):
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
    if status.valid and status.license:
        # Each feature's value through feature_value, and the metadata (DESIGN.md section 6g).
        line["entitlements"] = {name: status.feature_value(name) for name in status.license.get("features", [])}
        line["metadata"] = status.metadata()
    print(json.dumps(line))
    if not status.valid:
        print(status.message, file=sys.stderr)
    return 0 if status.valid else 1


def print_code(code: DeviceCode) -> None:
    """The first line of ``signin``, flushed at once: the kit approves the code while the harness polls."""
    line = {
        "userCode": code.user_code,
        "verificationUri": code.verification_uri,
        "verificationUriComplete": code.verification_uri_complete,
        "expiresIn": code.expires_in,
        "interval": code.interval,
    }
    print(json.dumps(line), flush=True)
    print(f"Open {code.verification_uri_complete} (or {code.verification_uri} and type {code.user_code}) to sign in", file=sys.stderr, flush=True)


def run_signout(args: argparse.Namespace) -> int:
    """Ends the sign-in on the server and deletes the token from the store."""
    try:
        signed_out = sign_out(args.server, DirectoryStore(args.store))
    except SignInError as error:  # the token is gone here all the same
        print(error, file=sys.stderr)
        signed_out = True
    if not signed_out:
        print("the store holds no desktop sign-in", file=sys.stderr)
    print(json.dumps({"signedOut": signed_out}))
    return 0 if signed_out else 1


def run_offline(args: argparse.Namespace) -> int:
    """request: writes the request file; deactivate: retires the stored file of this installation and writes the proof."""
    key = InstallKey.load(args.store)
    if args.command == "request":
        Path(args.out).write_text(key.license_request(args.product, args.machine, args.version), "utf-8")
        print(json.dumps({"written": args.out, "installKeyId": key.key_id}))
        return 0
    keys = PublicKey.load_keys_json(Path(args.keys).read_text("utf-8"))
    for path in sorted(Path(args.store).glob("*")):
        if path.suffix.lower() not in (".json", ".lic"):
            continue
        try:
            payload = verify_license_file(path.read_text("utf-8"), keys)
        except Exception:
            continue
        if payload.get("installKeyId") != key.key_id or payload.get("machineId") != args.machine or payload["product"]["name"] != args.product:
            continue
        Path(args.out).write_text(key.deactivation_proof(payload["licenseId"], args.machine, payload["issuedAt"]), "utf-8")
        path.unlink()
        print(json.dumps({"written": args.out, "installKeyId": key.key_id, "licenseId": payload["licenseId"]}))
        return 0
    print("no license file of this installation for this machine and product", file=sys.stderr)
    print(json.dumps({"written": None, "installKeyId": key.key_id, "licenseId": None}))
    return 1


def run_updates(args: argparse.Namespace) -> int:
    """The newest release the machine's license may have; with --out its first file, kept only once verified."""
    line: dict[str, object] = {"latest": None, "newer": None, "reason": None, "file": None, "error": None}
    try:
        keys = PublicKey.load_keys_json(Path(args.keys).read_text("utf-8"))
        update = check_for_update(args.server, args.product, args.version, args.machine, args.platform, args.arch, keys, channel=args.channel)
        line["latest"] = update.latest.version if update.latest else None
        line["newer"] = update.newer.version if update.newer else None
        line["reason"] = update.newer.reason if update.newer else None
        if args.out and update.latest and update.latest.artifacts:
            line["file"] = str(download_update(update.latest.artifacts[0], keys, args.out))
    except UpdateError as error:
        line["error"] = error.code
        print(error, file=sys.stderr)
    except Exception as error:  # the keys file unreadable, the folder missing, …
        line["error"] = "ERROR"
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
    print(json.dumps(line))
    return 1 if line["error"] else 0


def run_lease(args: argparse.Namespace) -> int:
    """Takes or renews an instance lease (or ends it with --release)."""
    lease = InstanceLease(args.server, args.key, args.product, PublicKey.load_keys_json(Path(args.keys).read_text("utf-8")), version=args.version, instance_id=args.instance)
    if args.release:
        lease.release()
        print(json.dumps({"valid": False, "reason": None, "licenseId": None, "offline": False, "expiresAt": None, "released": True}))
        return 0
    valid, reason, payload = lease.renew()
    print(json.dumps({"valid": valid, "reason": reason, "licenseId": payload.get("licenseId") if payload else None, "offline": reason == "UNREACHABLE", "expiresAt": payload.get("expiresAt") if payload else None}))
    return 0 if valid else 1


if __name__ == "__main__":
    sys.exit(main())
