"""Updates for entitled licenses (DESIGN.md section 6i): the signed answer, the signed checksum of a
file, and a download kept only once verified, against a small server on 127.0.0.1."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from cryptography.hazmat.primitives.serialization import load_pem_private_key  # noqa: E402

from license_manager_client import PublicKey, UpdateArtifact, UpdateError, UpdateInfo, check_for_update, download_update  # noqa: E402

VECTORS = HERE.parent.parent / "test-vectors"
KEYS = PublicKey.load_keys_json((VECTORS / "keys.json").read_text("utf-8"))
KID = json.loads((VECTORS / "expected.json").read_text("utf-8"))["kid"]
PRIVATE_KEY = load_pem_private_key((VECTORS / "test-private-key.pem").read_bytes(), password=None)
FILE = os.urandom(300_000)


def sign(message: str) -> str:
    return base64.b64encode(PRIVATE_KEY.sign(message.encode("utf-8"))).decode("ascii")  # type: ignore[union-attr]


class Server(ThreadingHTTPServer):
    """Answers ``POST /api/client/v1/updates`` with ``answer`` (status, JSON) and ``GET /file`` with ``file``."""

    answer: tuple[int, Any] = (200, {})
    file: bytes = FILE
    downloads: int = 0
    requests: list[dict[str, Any]] = []


class Handler(BaseHTTPRequestHandler):
    server: Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.server.requests.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
        status, body = self.server.answer
        self._send(status, json.dumps(body).encode("utf-8"), "application/json")

    def do_GET(self) -> None:
        self.server.downloads += 1
        self._send(200, self.server.file, "application/octet-stream")


class Updates(unittest.TestCase):
    def setUp(self) -> None:
        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.requests = []
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.dir = Path(folder.name)

    def artifact(self, **changes: Any) -> dict[str, Any]:
        sha256 = hashlib.sha256(FILE).hexdigest()
        value = {"platform": "linux", "arch": "x86_64", "filename": "studio-2.1.0.tar.gz", "size": len(FILE), "sha256": sha256, "sig": sign(f"artifact/{sha256}"), "kid": KID, "url": f"{self.url}/file", "urlExpiresAt": "2030-01-01T00:00:00.000Z"}
        value.update(changes)
        return value

    def answer(self, payload: dict[str, Any]) -> dict[str, str]:
        enc = base64.b64encode(json.dumps(payload).encode("utf-8")).decode("ascii")
        return {"enc": enc, "sig": sign(f"updates/{enc}"), "alg": "ed25519", "kid": KID}

    def payload(self) -> dict[str, Any]:
        return {
            "latest": {"version": "2.1.0", "releasedAt": "2026-01-01T00:00:00.000Z", "notes": {"en": "Faster."}, "artifacts": [self.artifact()]},
            "newer": {"version": "3.0.0", "releasedAt": "2026-02-01T00:00:00.000Z", "reason": "free-updates-ended"},
            "issuedAt": "2026-02-02T00:00:00.000Z",
        }

    def check(self) -> UpdateInfo:
        return check_for_update(self.url, "Studio", "2.0.0", "M-1", "linux", "x86_64", KEYS, channel="beta")

    # -- the updates answer ------------------------------------------------------------------------

    def test_a_signed_answer_is_read(self) -> None:
        self.server.answer = (200, self.answer(self.payload()))
        update = self.check()
        self.assertEqual(self.server.requests, [{"machineId": "M-1", "product": "Studio", "version": "2.0.0", "platform": "linux", "arch": "x86_64", "channel": "beta"}])
        assert update.latest is not None and update.newer is not None
        self.assertEqual((update.latest.version, update.latest.notes, update.newer.version, update.newer.reason), ("2.1.0", {"en": "Faster."}, "3.0.0", "free-updates-ended"))
        self.assertEqual(update.latest.artifacts[0], UpdateArtifact.from_json(self.artifact()))
        self.assertEqual(update.issued_at, "2026-02-02T00:00:00.000Z")

    def test_nothing_newer(self) -> None:
        self.server.answer = (200, self.answer({"latest": None, "newer": None, "issuedAt": "2026-02-02T00:00:00.000Z"}))
        update = self.check()
        self.assertIsNone(update.latest)
        self.assertIsNone(update.newer)

    def test_an_answer_with_altered_enc_is_refused(self) -> None:
        signed = self.answer(self.payload())
        changed = self.payload()
        changed["latest"]["artifacts"][0]["url"] = "http://127.0.0.1:9/evil"
        signed["enc"] = base64.b64encode(json.dumps(changed).encode("utf-8")).decode("ascii")
        self.server.answer = (200, signed)
        with self.assertRaises(UpdateError) as caught:
            self.check()
        self.assertEqual(caught.exception.code, "BAD_SIGNATURE")

    def test_an_answer_signed_by_a_key_not_pinned_is_refused(self) -> None:
        self.server.answer = (200, {**self.answer(self.payload()), "kid": "not-pinned"})
        with self.assertRaises(UpdateError) as caught:
            self.check()
        self.assertEqual(caught.exception.code, "BAD_SIGNATURE")

    def test_a_refusal_carries_the_servers_code(self) -> None:
        self.server.answer = (404, {"error": "ERR_NO_LICENSE", "message": "no license for this machine"})
        with self.assertRaises(UpdateError) as caught:
            self.check()
        self.assertEqual(caught.exception.code, "ERR_NO_LICENSE")

    def test_an_answer_without_a_signature_is_malformed(self) -> None:
        self.server.answer = (200, {"enc": "e30="})
        with self.assertRaises(UpdateError) as caught:
            self.check()
        self.assertEqual(caught.exception.code, "MALFORMED")

    # -- downloads -----------------------------------------------------------------------------------

    def assert_refused(self, code: str, artifact: dict[str, Any]) -> None:
        with self.assertRaises(UpdateError) as caught:
            download_update(artifact, KEYS, self.dir)
        self.assertEqual(caught.exception.code, code)
        self.assertEqual(os.listdir(self.dir), [], "nothing is kept")

    def test_a_verified_download_is_kept_under_its_own_name(self) -> None:
        path = download_update(UpdateArtifact.from_json(self.artifact()), KEYS, self.dir)
        self.assertEqual(path, self.dir / "studio-2.1.0.tar.gz")
        self.assertEqual(path.read_bytes(), FILE)
        self.assertEqual(os.listdir(self.dir), ["studio-2.1.0.tar.gz"])

    def test_an_artifact_with_altered_sha256_is_refused_before_downloading(self) -> None:
        self.assert_refused("BAD_SIGNATURE", self.artifact(sha256=hashlib.sha256(b"another file").hexdigest()))
        self.assertEqual(self.server.downloads, 0)

    def test_an_artifact_signed_by_a_key_not_pinned_is_refused(self) -> None:
        self.assert_refused("BAD_SIGNATURE", self.artifact(kid="not-pinned"))

    def test_a_download_whose_bytes_differ_is_refused_and_nothing_kept(self) -> None:
        changed = bytearray(FILE)
        changed[100] ^= 1
        self.server.file = bytes(changed)
        self.assert_refused("CHECKSUM_MISMATCH", self.artifact())

    def test_a_download_of_another_size_is_refused_and_nothing_kept(self) -> None:
        self.server.file = FILE + b"x"
        self.assert_refused("SIZE_MISMATCH", self.artifact())
        self.server.file = FILE[:-1]
        self.assert_refused("SIZE_MISMATCH", self.artifact())

    def test_a_file_name_cannot_leave_the_folder(self) -> None:
        path = download_update(self.artifact(filename="../../evil/studio.tar.gz"), KEYS, self.dir)
        self.assertEqual(path, self.dir / "studio.tar.gz")
        os.remove(path)
        path = download_update(self.artifact(filename="..\\..\\studio.exe"), KEYS, self.dir)
        self.assertEqual(path, self.dir / "studio.exe")
        os.remove(path)
        self.assert_refused("BAD_FILENAME", self.artifact(filename="studio/.."))
        self.assert_refused("BAD_FILENAME", self.artifact(filename=""))

    def test_a_failed_download_keeps_nothing(self) -> None:
        self.assert_refused("UNREACHABLE", self.artifact(url="http://127.0.0.1:9/file"))


if __name__ == "__main__":
    unittest.main()
