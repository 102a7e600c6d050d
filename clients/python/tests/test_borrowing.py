"""Borrowing and the server's confirmation kept in the store, against a stand-in license server on
127.0.0.1: a held file without ``borrowedUntil`` makes a borrow ask at once, without If-None-Match;
the refresh of a held borrowed file sends ``borrowDays`` with its If-None-Match (the server renews it);
``422 ERR_BORROW_NOT_ALLOWED`` is BORROW_NOT_ALLOWED and keeps the stored files; a 304 is kept as
``confirmed.state`` (``<tag> <epoch ms>``, as every client keeps it), so the next run counts from it."""

from __future__ import annotations

import base64
import json
import sys
import tempfile
import threading
import unittest
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from cryptography.hazmat.primitives.serialization import load_pem_private_key  # noqa: E402

from license_manager_client import DirectoryStore, LicenseClient, MemoryStore, PublicKey, license_file_tag, parse_license_file, verify_license_file  # noqa: E402

VECTORS = HERE.parent.parent / "test-vectors"
KEYS = PublicKey.load_keys_json((VECTORS / "keys.json").read_text("utf-8"))
PRIVATE_KEY = load_pem_private_key((VECTORS / "test-private-key.pem").read_bytes(), password=None)
MACHINE = "LAPTOP-1"
START = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
REFUSED_BORROW = {"error": "ERR_BORROW_NOT_ALLOWED", "message": "This license lets a machine borrow a seat for at most 7 days", "params": {"max": 7}}


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def signed_file(issued: datetime, days: float, **fields: Any) -> str:
    """A file of MACHINE for Studio issued then, refreshed hourly, signed with the vectors' test key as the server signs."""
    vector = parse_license_file((VECTORS / "files" / "license.json").read_text("utf-8"))
    payload = json.loads(base64.b64decode(vector.enc))
    payload.pop("installKeyId", None)
    payload.update(machineId=MACHINE, product={**payload["product"], "name": "Studio"}, issuedAt=iso(issued), expiresAt=iso(issued + timedelta(days=days)))
    payload.update(refetchIntervalSeconds=3600, refetchBeforeExpirySeconds=3600, **fields)
    enc = base64.b64encode(json.dumps(payload).encode("utf-8")).decode("ascii")
    sig = base64.b64encode(PRIVATE_KEY.sign(f"license/{enc}".encode("ascii"))).decode("ascii")  # type: ignore[union-attr]
    return json.dumps({"enc": enc, "sig": sig, "alg": "ed25519", "kid": vector.kid})


def tag_of(text: str) -> str:
    return license_file_tag(parse_license_file(text), verify_license_file(text, KEYS))


class Server(ThreadingHTTPServer):
    """Answers every license request with ``answer`` (status, body) and records its body and headers."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.answer: tuple[int, Any] = (500, None)
        self.requests: list[tuple[dict[str, Any], dict[str, str]]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server: Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        self.server.requests.append((body, {k.lower(): v for k, v in self.headers.items()}))
        status, answer = self.server.answer
        raw = b"" if answer is None else (answer.encode("utf-8") if isinstance(answer, str) else json.dumps(answer).encode("utf-8"))
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


class Case(unittest.TestCase):
    def setUp(self) -> None:
        self.server = Server()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)
        self.now = START

    def client(self, store: Any, borrow_days: int | None = None, server_url: str | None = None) -> LicenseClient:
        return LicenseClient(server_url or self.server.url, "Studio", MACHINE, KEYS, store=store, borrow_days=borrow_days, clock=lambda: self.now, timeout=5)


class Borrowing(Case):
    def test_a_held_file_without_borrowed_until_borrows_at_once(self) -> None:
        store = DirectoryStore(self.folder)
        store.save(signed_file(START, 1))
        self.now = START + timedelta(minutes=1)  # no refresh due for an hour
        until = iso(self.now + timedelta(days=3))
        self.server.answer = (200, signed_file(self.now, 3, borrowedUntil=until))
        status = self.client(store, borrow_days=3).check()
        self.assertEqual((status.valid, status.source, status.expires_at), (True, "server", until))
        body, headers = self.server.requests[-1]
        self.assertEqual(body.get("borrowDays"), 3)
        self.assertNotIn("if-none-match", headers)
        # Borrowed until then: nothing pending, no refresh due, no request.
        self.assertEqual(self.client(store, borrow_days=3).check().source, "store")
        self.assertEqual(len(self.server.requests), 1)

    def test_a_refresh_of_a_borrowed_file_sends_borrow_days_and_if_none_match(self) -> None:
        store = DirectoryStore(self.folder)
        held = signed_file(START, 3, borrowedUntil=iso(START + timedelta(days=3)))
        store.save(held)
        # Borrowed and not due: no request.
        self.now = START + timedelta(minutes=30)
        self.assertEqual(self.client(store, borrow_days=3).check().source, "store")
        self.assertEqual(self.server.requests, [])
        # The hourly refresh falls due: it asks for the borrow too, so the server renews it.
        self.now = START + timedelta(hours=1, minutes=1)
        until = iso(self.now + timedelta(days=3))
        renewed = signed_file(self.now, 3, borrowedUntil=until)
        self.server.answer = (200, renewed)
        status = self.client(store, borrow_days=3).check()
        self.assertEqual((status.valid, status.source, status.expires_at), (True, "server", until))
        body, headers = self.server.requests[-1]
        self.assertEqual(body.get("borrowDays"), 3)
        self.assertEqual(headers.get("if-none-match"), tag_of(held))
        self.assertEqual(store.list(), [("license.json", renewed)])

    def test_a_refresh_without_a_borrow_sends_no_borrow_days(self) -> None:
        store = DirectoryStore(self.folder)
        store.save(signed_file(START, 1))
        self.now = START + timedelta(hours=2)
        self.server.answer = (304, None)
        self.assertTrue(self.client(store).check().valid)
        body, headers = self.server.requests[-1]
        self.assertNotIn("borrowDays", body)
        self.assertIn("if-none-match", headers)

    def test_more_days_than_allowed_keep_the_held_file(self) -> None:
        store = DirectoryStore(self.folder)
        held = signed_file(START, 1)
        store.save(held)
        self.now = START + timedelta(minutes=1)
        self.server.answer = (422, REFUSED_BORROW)
        status = self.client(store, borrow_days=30).check()
        self.assertEqual((status.valid, status.reason, status.offline, status.message), (False, "BORROW_NOT_ALLOWED", False, REFUSED_BORROW["message"]))
        self.assertEqual(store.list(), [("license.json", held)])
        # Without borrow_days the held file counts, from the store.
        status = self.client(store).check()
        self.assertEqual((status.valid, status.source), (True, "store"))
        self.assertEqual(len(self.server.requests), 1)
        # Nothing held: the same refusal, not taken for an unreachable server.
        status = self.client(MemoryStore(), borrow_days=30).check()
        self.assertEqual((status.reason, status.offline), ("BORROW_NOT_ALLOWED", False))


class Confirmation(Case):
    def test_a_304_is_kept_in_the_store_for_the_next_run(self) -> None:
        store = DirectoryStore(self.folder)
        held = signed_file(START, 10)
        store.save(held)
        self.now = START + timedelta(hours=2)
        self.server.answer = (304, None)
        self.assertEqual(self.client(store).check().source, "server")
        self.assertEqual(self.server.requests[-1][1]["if-none-match"], tag_of(held))
        confirmed_ms = round(self.now.timestamp() * 1000)
        self.assertEqual((self.folder / "confirmed.state").read_text("utf-8"), f"{tag_of(held)} {confirmed_ms}\n")
        # Another run, half an interval on: counted from the confirmation, so no request.
        self.now = START + timedelta(hours=2, minutes=30)
        status = self.client(store, server_url="http://127.0.0.1:9").check()
        self.assertEqual((status.valid, status.offline, status.source), (True, False, "store"))
        # A full interval on: due again.
        self.now = START + timedelta(hours=3, minutes=1)
        self.assertTrue(self.client(store, server_url="http://127.0.0.1:9").check().offline)

    def test_a_new_file_and_a_refusal_forget_the_confirmation(self) -> None:
        store = DirectoryStore(self.folder)
        store.save(signed_file(START, 10))
        self.now = START + timedelta(hours=2)
        self.server.answer = (304, None)
        self.client(store).check()
        self.now = START + timedelta(hours=4)
        self.server.answer = (200, signed_file(self.now, 10))
        self.assertEqual(self.client(store).check().source, "server")
        self.assertFalse((self.folder / "confirmed.state").exists())
        self.server.answer = (304, None)
        self.now = START + timedelta(hours=6)
        self.client(store).check()
        self.assertTrue((self.folder / "confirmed.state").exists())
        self.server.answer = (403, {"error": "ERR_LICENSE_REVOKED", "message": "revoked"})
        self.assertEqual(self.client(store).refresh().reason, "REVOKED")
        self.assertEqual(list(self.folder.iterdir()), [])  # the file and its confirmation

    def test_a_store_without_a_place_for_it_keeps_it_in_memory(self) -> None:
        class Files:
            def __init__(self) -> None:
                self.files: dict[str, str] = {}

            def list(self) -> list[tuple[str, str]]:
                return list(self.files.items())

            def save(self, text: str) -> None:
                self.files["license.json"] = text

            def remove(self, name: str) -> None:
                self.files.pop(name, None)

        store = Files()
        store.save(signed_file(START, 10))
        client = self.client(store)
        self.now = START + timedelta(hours=2)
        self.server.answer = (304, None)
        self.assertEqual(client.check().source, "server")
        self.now = START + timedelta(hours=2, minutes=30)
        self.assertEqual(client.check().source, "store")
        self.assertEqual(len(self.server.requests), 1)


if __name__ == "__main__":
    unittest.main()
