"""Desktop sign-in (DESIGN.md section 6f, RFC 8628) against a stand-in server on 127.0.0.1: the
polling loop (authorization_pending, slow_down, access_denied, expired_token, cancel), the token in
the store (mode 0600), the bearer on every license request, SEAT_UNASSIGNED, SIGNED_OUT and sign-out."""

from __future__ import annotations

import base64
import json
import os
import stat
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

from license_manager_client import (  # noqa: E402
    DeviceCode,
    DirectoryStore,
    LicenseClient,
    MemoryStore,
    PublicKey,
    SignInError,
    parse_license_file,
    poll_device_token,
    sign_out,
)

VECTORS = HERE.parent.parent / "test-vectors"
KEYS = PublicKey.load_keys_json((VECTORS / "keys.json").read_text("utf-8"))
PRIVATE_KEY = load_pem_private_key((VECTORS / "test-private-key.pem").read_bytes(), password=None)
PRODUCT = "Studio"
MACHINE = "DESKTOP-1"


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seat_file(borrowed_until: str | None = None) -> str:
    """A file for MACHINE and PRODUCT, issued now, signed with the vectors' test key (as the server signs);
    a borrowed one runs until ``borrowed_until`` and says so."""
    vector = parse_license_file((VECTORS / "files" / "license.json").read_text("utf-8"))
    payload = json.loads(base64.b64decode(vector.enc))
    now = datetime.now(timezone.utc)
    payload.update(
        machineId=MACHINE,
        product={**payload["product"], "name": PRODUCT},
        issuedAt=iso(now),
        expiresAt=borrowed_until or iso(now + timedelta(days=10)),
        refetchIntervalSeconds=3600,
        refetchBeforeExpirySeconds=86400,
    )
    payload.pop("installKeyId", None)
    if borrowed_until:
        payload["borrowedUntil"] = borrowed_until
    enc = base64.b64encode(json.dumps(payload).encode("utf-8")).decode("ascii")
    sig = base64.b64encode(PRIVATE_KEY.sign(f"license/{enc}".encode("ascii"))).decode("ascii")  # type: ignore[union-attr]
    return json.dumps({"enc": enc, "sig": sig, "alg": "ed25519", "kid": vector.kid})


class Server(ThreadingHTTPServer):
    """Answers the device and license routes from queues of (status, JSON) and records every request."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.token_answers: list[tuple[int, Any]] = []
        self.license_answer: tuple[int, Any] = (200, None)
        self.signout_status = 204
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server: Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _answer(self, status: int, body: Any) -> None:
        raw = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode("utf-8"))
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _record(self) -> Any:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        self.server.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        return body

    def do_POST(self) -> None:
        self._record()
        if self.path == "/api/client/v1/device/authorize":
            self._answer(200, {
                "device_code": "dc-1",
                "user_code": "ABCD-EFGH",
                "verification_uri": f"{self.server.url}/device",
                "verification_uri_complete": f"{self.server.url}/device?code=ABCD-EFGH",
                "expires_in": 600,
                "interval": 1,
            })
        elif self.path == "/api/client/v1/device/token":
            self._answer(*self.server.token_answers.pop(0))
        elif self.path == "/api/client/v1/license":
            status, body = self.server.license_answer
            self._answer(status, seat_file().encode("utf-8") if status == 200 and body is None else body)
        else:
            self._answer(404, {"error": "ERR_NOT_FOUND"})

    def do_DELETE(self) -> None:
        self._record()
        self._answer(self.server.signout_status, None)


def pending() -> tuple[int, Any]:
    return (400, {"error": "authorization_pending"})


CODE = DeviceCode("dc-1", "ABCD-EFGH", "http://x/device", "http://x/device?code=ABCD-EFGH", expires_in=600, interval=1)


class Case(unittest.TestCase):
    def setUp(self) -> None:
        self.server = Server()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)
        self.waits: list[float] = []

    def wait(self, seconds: float) -> bool:
        self.waits.append(seconds)
        return False

    def client(self, store: Any, borrow_days: int | None = None) -> LicenseClient:
        return LicenseClient(self.server.url, PRODUCT, MACHINE, KEYS, store=store, timeout=5, borrow_days=borrow_days)


class Polling(Case):
    def test_pending_and_slow_down_until_the_token(self) -> None:
        self.server.token_answers = [pending(), (400, {"error": "slow_down"}), pending(), (200, {"access_token": "lmdt_x", "token_type": "Bearer"})]
        self.assertEqual(poll_device_token(self.server.url, CODE, wait=self.wait), "lmdt_x")
        # Waits the interval before each poll; slow_down adds 5 seconds for good.
        self.assertEqual(self.waits, [1, 1, 6, 6])
        self.assertEqual([r[3] for r in self.server.requests], [{"device_code": "dc-1"}] * 4)

    def test_denied_and_expired(self) -> None:
        for error, reason in (("access_denied", "SIGNIN_DENIED"), ("expired_token", "SIGNIN_EXPIRED")):
            with self.subTest(error):
                self.server.token_answers = [pending(), (400, {"error": error, "error_description": "no"})]
                with self.assertRaises(SignInError) as raised:
                    poll_device_token(self.server.url, CODE, wait=self.wait)
                self.assertEqual(raised.exception.reason, reason)

    def test_a_rate_limit_or_server_error_is_polled_again(self) -> None:
        self.server.token_answers = [(429, {"error": "ERR_RATE_LIMITED"}), (503, None), (200, {"access_token": "t"})]
        self.assertEqual(poll_device_token(self.server.url, CODE, wait=self.wait), "t")

    def test_the_code_expires_here_too(self) -> None:
        clock = iter(range(0, 10_000, 400))
        self.server.token_answers = [pending()] * 5
        with self.assertRaises(SignInError) as raised:
            poll_device_token(self.server.url, CODE, wait=self.wait, monotonic=lambda: float(next(clock)))
        self.assertEqual(raised.exception.reason, "SIGNIN_EXPIRED")
        self.assertEqual(len(self.server.requests), 1)

    def test_cancel(self) -> None:
        with self.assertRaises(SignInError) as raised:
            poll_device_token(self.server.url, CODE, wait=lambda seconds: True)
        self.assertEqual(raised.exception.reason, "SIGNIN_CANCELLED")
        self.assertEqual(self.server.requests, [])


class SignIn(Case):
    def test_signs_in_keeps_the_token_and_fetches_with_it(self) -> None:
        self.server.token_answers = [pending(), (200, {"access_token": "lmdt_secret", "token_type": "Bearer"})]
        store = DirectoryStore(self.folder)
        client = self.client(store)
        codes: list[DeviceCode] = []
        status = client.sign_in(codes.append)
        self.assertTrue(status.valid, status.message)
        self.assertEqual(codes[0].user_code, "ABCD-EFGH")
        self.assertEqual(codes[0].verification_uri_complete, f"{self.server.url}/device?code=ABCD-EFGH")
        self.assertEqual(self.server.requests[0][3], {"product": PRODUCT, "machineId": MACHINE})
        self.assertTrue(client.signed_in)
        token_file = self.folder / "desktop-token"
        self.assertEqual(token_file.read_text("utf-8"), "lmdt_secret")
        self.assertEqual(stat.S_IMODE(token_file.stat().st_mode), 0o600)
        method, path, headers, _ = self.server.requests[-1]
        self.assertEqual((method, path, headers.get("authorization")), ("POST", "/api/client/v1/license", "Bearer lmdt_secret"))
        # The conditional refresh carries it too.
        self.server.license_answer = (304, None)
        self.assertTrue(client.refresh().valid)
        headers = self.server.requests[-1][2]
        self.assertEqual((headers.get("authorization"), bool(headers.get("if-none-match"))), ("Bearer lmdt_secret", True))

    def test_borrows_as_the_anonymous_path_does(self) -> None:
        # With borrow_days the signed-in requests carry borrowDays: the borrowed file is kept, and a
        # refused borrow is BORROW_NOT_ALLOWED with the token and the file kept.
        self.server.token_answers = [(200, {"access_token": "lmdt_secret", "token_type": "Bearer"})]
        until = iso(datetime.now(timezone.utc) + timedelta(days=3))
        self.server.license_answer = (200, seat_file(until).encode("utf-8"))
        store = DirectoryStore(self.folder)
        client = self.client(store, borrow_days=3)
        status = client.sign_in(lambda code: None)
        self.assertTrue(status.valid, status.message)
        self.assertEqual(status.license["borrowedUntil"], until)  # type: ignore[index]
        self.server.license_answer = (422, {"error": "ERR_BORROW_NOT_ALLOWED", "message": "at most 0 days"})
        status = client.refresh()
        self.assertEqual((status.valid, status.reason, status.message, status.offline), (False, "BORROW_NOT_ALLOWED", "at most 0 days", False))
        licenses = [r for r in self.server.requests if r[1] == "/api/client/v1/license"]
        self.assertEqual(
            [(r[2].get("authorization"), r[3].get("borrowDays"), bool(r[2].get("if-none-match"))) for r in licenses],
            [("Bearer lmdt_secret", 3, False), ("Bearer lmdt_secret", 3, True)],
        )
        self.assertEqual(store.read_desktop_token(), "lmdt_secret")
        self.assertEqual(len(store.list()), 1)

    def test_denied_keeps_no_token(self) -> None:
        self.server.token_answers = [(400, {"error": "access_denied"})]
        store = DirectoryStore(self.folder)
        cancel = threading.Event()
        status = self.client(store).sign_in(lambda code: None, cancel)
        self.assertEqual((status.valid, status.reason), (False, "SIGNIN_DENIED"))
        self.assertFalse((self.folder / "desktop-token").exists())

    def test_cancelled(self) -> None:
        cancel = threading.Event()
        status = self.client(MemoryStore()).sign_in(lambda code: cancel.set(), cancel)
        self.assertEqual(status.reason, "SIGNIN_CANCELLED")

    def test_unreachable(self) -> None:
        client = LicenseClient(self.server.url, PRODUCT, MACHINE, KEYS, store=MemoryStore(), timeout=5)
        client.server_url = "http://127.0.0.1:9"  # nothing listens there
        self.assertEqual(client.sign_in(lambda code: self.fail("no code")).reason, "UNREACHABLE")


class Refusals(Case):
    def signed_in_store(self) -> DirectoryStore:
        store = DirectoryStore(self.folder)
        store.write_desktop_token("lmdt_secret")
        store.save(seat_file())
        return store

    def test_seat_unassigned(self) -> None:
        store = self.signed_in_store()
        self.server.license_answer = (403, {"error": "ERR_SEAT_UNASSIGNED", "message": "no seat"})
        status = self.client(store).refresh()
        self.assertEqual((status.valid, status.reason), (False, "SEAT_UNASSIGNED"))
        self.assertEqual(self.server.requests[-1][2].get("authorization"), "Bearer lmdt_secret")
        self.assertEqual(store.list(), [])  # the seat's file no longer counts
        self.assertEqual(store.read_desktop_token(), "lmdt_secret")

    def test_a_401_with_the_token_is_signed_out(self) -> None:
        store = self.signed_in_store()
        self.server.license_answer = (401, {"error": "ERR_UNAUTHENTICATED"})
        status = self.client(store).refresh()
        self.assertEqual((status.valid, status.reason), (False, "SIGNED_OUT"))
        self.assertIsNone(store.read_desktop_token())
        self.assertFalse((self.folder / "desktop-token").exists())

    def test_a_401_without_a_token_is_no_sign_out(self) -> None:
        self.server.license_answer = (401, {"error": "ERR_UNAUTHENTICATED"})
        status = self.client(DirectoryStore(self.folder)).refresh()
        self.assertEqual(status.reason, "UNREACHABLE")
        self.assertNotIn("authorization", self.server.requests[-1][2])


class SignOut(Case):
    def test_sign_out(self) -> None:
        store = DirectoryStore(self.folder)
        store.write_desktop_token("lmdt_secret")
        store.save(seat_file())
        client = self.client(store)
        self.assertTrue(client.sign_out())
        method, path, headers, _ = self.server.requests[-1]
        self.assertEqual((method, path, headers.get("authorization")), ("DELETE", "/api/client/v1/device/token", "Bearer lmdt_secret"))
        self.assertFalse((self.folder / "desktop-token").exists())
        self.assertEqual(store.list(), [])  # the person's file is forgotten
        self.assertFalse(client.sign_out())
        self.assertEqual(len(self.server.requests), 1)

    def test_unreachable_signs_out_here_all_the_same(self) -> None:
        store = MemoryStore()
        store.write_desktop_token("t")
        with self.assertRaises(SignInError) as raised:
            sign_out("http://127.0.0.1:9", store, timeout=2)
        self.assertEqual(raised.exception.reason, "UNREACHABLE")
        self.assertIsNone(store.read_desktop_token())


class TokenFile(unittest.TestCase):
    @unittest.skipUnless(os.name == "posix", "file modes")
    def test_mode_0600_whatever_the_umask(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            store = DirectoryStore(Path(folder) / "new")
            previous = os.umask(0)
            try:
                store.write_desktop_token("lmdt_a")
                store.write_desktop_token("lmdt_b")
            finally:
                os.umask(previous)
            path = Path(folder) / "new" / "desktop-token"
            self.assertEqual(stat.S_IMODE(path.stat().st_mode), 0o600)
            self.assertEqual(store.read_desktop_token(), "lmdt_b")
            self.assertEqual(store.list(), [])  # not a license file
            self.assertEqual(sorted(p.name for p in path.parent.iterdir()), ["desktop-token"])
            store.write_desktop_token(None)
            self.assertFalse(path.exists())
            self.assertIsNone(store.read_desktop_token())


if __name__ == "__main__":
    unittest.main()
