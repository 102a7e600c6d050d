"""The shared test vectors of every client (clients/test-vectors/README.md), read by the Python client."""

from __future__ import annotations

import base64
import json
import sys
import threading
import unittest
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from cryptography.hazmat.primitives.serialization import load_pem_private_key  # noqa: E402

from license_manager_client import (  # noqa: E402
    InvalidLicenseFile,
    LicenseClient,
    LicenseStatus,
    MemoryStore,
    PublicKey,
    license_file_tag,
    machine_fingerprint,
    parse_license_file,
    refresh_due_at,
    verify_license_file,
    verify_server_time,
)
from license_manager_client.files import parse_time  # noqa: E402

VECTORS = HERE.parent.parent / "test-vectors"
KEYS = PublicKey.load_keys_json((VECTORS / "keys.json").read_text("utf-8"))
EXPECTED = json.loads((VECTORS / "expected.json").read_text("utf-8"))


def read(name: str) -> str:
    return (VECTORS / name).read_text("utf-8")


def token_at(moment: datetime) -> str:
    """A time token for any time, signed with the vectors' test key (as the server signs them)."""
    key = load_pem_private_key((VECTORS / "test-private-key.pem").read_bytes(), password=None)
    enc = base64.b64encode(json.dumps({"t": int(moment.timestamp()), "kid": EXPECTED["kid"]}).encode()).decode()
    return f"{enc}.{base64.b64encode(key.sign(f'time/{enc}'.encode())).decode()}"


def offline_client(store: MemoryStore, now: datetime, **options) -> LicenseClient:
    client = LicenseClient("http://127.0.0.1:9", "Studio", "VECTOR-MACHINE-1", KEYS, store=store, clock=lambda: now, timeout=2, **options)
    return client


class Files(unittest.TestCase):
    def test_every_file(self) -> None:
        for case in EXPECTED["files"]:
            with self.subTest(case["name"]):
                text = read(case["name"])
                if case["valid"]:
                    payload = verify_license_file(text, KEYS)
                    self.assertEqual(payload, case["payload"])
                    self.assertEqual(license_file_tag(parse_license_file(text), payload), case["etag"])
                else:
                    with self.assertRaises(InvalidLicenseFile) as caught:
                        verify_license_file(text, KEYS)
                    self.assertEqual(caught.exception.problem, case["problem"])

    def test_entitlements(self) -> None:
        for case in EXPECTED["entitlements"]:
            with self.subTest(case["name"]):
                status = LicenseStatus(valid=True, license=verify_license_file(read(case["name"]), KEYS))
                for name, has in case["hasFeature"].items():
                    self.assertEqual(status.has_feature(name), has, name)
                for name, value in case["featureValue"].items():
                    self.assertEqual(status.feature_value(name), value, name)
                self.assertEqual(status.metadata(), case["metadata"])

    def test_every_time_token(self) -> None:
        for case in EXPECTED["timeTokens"]:
            with self.subTest(case["value"]):
                if case["valid"]:
                    self.assertEqual(verify_server_time(case["value"], KEYS), (case["t"], case["kid"]))
                else:
                    with self.assertRaises(InvalidLicenseFile) as caught:
                        verify_server_time(case["value"], KEYS)
                    self.assertEqual(caught.exception.problem, case["problem"])


class TrustedTime(unittest.TestCase):
    def test_clock_cases(self) -> None:
        for case in EXPECTED["clock"]:
            with self.subTest(case):
                store = MemoryStore({"license.json": read("files/license.json")})
                store.write_server_time(token_at(parse_time(case["trusted"])))
                client = offline_client(store, parse_time(case["local"]), clock_tolerance=timedelta(hours=EXPECTED["toleranceHours"]))
                status = client.check()
                if case["expect"] == "VALID":
                    self.assertTrue(status.valid, status.message)
                else:
                    self.assertEqual((status.valid, status.reason), (False, case["expect"]), status.message)

    def test_a_clock_set_back_is_kept_for_the_next_request(self) -> None:
        case = next(case for case in EXPECTED["clock"] if case["expect"] == "CLOCK_TAMPERED")
        store = MemoryStore({"license.json": read("files/license.json")})
        store.write_server_time(token_at(parse_time(case["trusted"])))
        client = offline_client(store, parse_time(case["local"]), clock_tolerance=timedelta(hours=EXPECTED["toleranceHours"]))
        self.assertEqual(client.check().reason, "CLOCK_TAMPERED")
        noted = store.read_clock_tampered()
        self.assertEqual(parse_time(noted or ""), parse_time(case["trusted"]))
        # The server cannot be reached: still kept, the first time it was seen.
        self.assertEqual(client.refresh().reason, "CLOCK_TAMPERED")
        self.assertEqual(store.read_clock_tampered(), noted)

    def test_an_edited_time_counts_for_nothing(self) -> None:
        store = MemoryStore({"license.json": read("files/license.json")})
        tampered = next(token for token in EXPECTED["timeTokens"] if token.get("problem") == "BAD_SIGNATURE")
        store.write_server_time(tampered["value"])
        client = offline_client(store, parse_time("2026-01-10T00:00:00Z"))
        self.assertTrue(client.check().valid)
        self.assertEqual(client.trusted_time, parse_time("2026-01-01T00:00:00Z"))  # the file's issuedAt


class StoredFiles(unittest.TestCase):
    def test_an_altered_stored_file_is_invalid_file_offline(self) -> None:
        store = MemoryStore({"license.json": read("files/license-tampered.json")})
        status = offline_client(store, parse_time("2026-01-10T00:00:00Z")).check()
        self.assertEqual((status.valid, status.reason, status.offline), (False, "INVALID_FILE", True))

    def test_any_lic_and_import(self) -> None:
        client = offline_client(MemoryStore(), parse_time("2026-01-10T00:00:00Z"))
        self.assertTrue(client.import_file(read("files/anylic.lic")).valid)
        self.assertEqual(client.import_file(read("files/license-unknown-key.json")).reason, "INVALID_FILE")
        other = LicenseClient("http://127.0.0.1:9", "Studio", "ANOTHER-MACHINE", KEYS, clock=lambda: parse_time("2026-01-10T00:00:00Z"))
        self.assertEqual(other.import_file(read("files/license.json")).reason, "INVALID_FILE")

    def test_a_perpetual_file_does_not_expire(self) -> None:
        store = MemoryStore({"license.json": read("files/license-perpetual.json")})
        self.assertTrue(offline_client(store, parse_time("2030-01-01T00:00:00Z")).check().valid)


class Schedule(unittest.TestCase):
    def test_refresh_due_from_the_file_and_after_a_confirmation(self) -> None:
        payload = verify_license_file(read("files/license.json"), KEYS)  # issued 01-01, expires 01-31, daily, 7 days before
        self.assertEqual(refresh_due_at(payload), parse_time("2026-01-02T00:00:00Z"))
        self.assertEqual(refresh_due_at(payload, parse_time("2026-01-10T06:00:00Z")), parse_time("2026-01-11T06:00:00Z"))
        # Past the refresh-before-expiry time the server sends a new file from the middle of the validity on.
        self.assertEqual(refresh_due_at(payload, parse_time("2026-01-25T00:00:00Z")), parse_time("2026-01-16T00:00:00Z"))
        self.assertIsNone(refresh_due_at({**payload, "refetchIntervalSeconds": 0, "expiresAt": None}))

    def test_next_check_delay(self) -> None:
        store = MemoryStore({"license.json": read("files/license.json")})
        client = offline_client(store, parse_time("2026-01-10T00:00:00Z"))
        status = client.check()
        self.assertTrue(status.offline)
        self.assertEqual(client.next_check_delay(status, failures=1), 60)
        self.assertEqual(client.next_check_delay(status, failures=3), 240)
        self.assertEqual(client.next_check_delay(status, failures=10), 900)
        self.assertEqual(client.next_check_delay(LicenseStatus(valid=False, reason="NO_SEAT")), 60)

    def test_start_checks_in_the_background_until_stopped(self) -> None:
        seen: list[LicenseStatus] = []
        first = threading.Event()

        def on_status(status: LicenseStatus) -> None:
            seen.append(status)
            first.set()

        stop = offline_client(MemoryStore(), parse_time("2026-01-10T00:00:00Z")).start(on_status)
        self.assertTrue(first.wait(30))
        stop()
        self.assertEqual(seen[0].reason, "UNREACHABLE")


class Fingerprint(unittest.TestCase):
    def test_hashes_the_raw_id_with_the_product(self) -> None:
        import hashlib

        raw = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
        self.assertEqual(machine_fingerprint("Studio", raw + "\n"), hashlib.sha256(f"Studio:{raw}".encode()).hexdigest()[:32].upper())
        self.assertNotEqual(machine_fingerprint("Other", raw), machine_fingerprint("Studio", raw))


if __name__ == "__main__":
    unittest.main()
