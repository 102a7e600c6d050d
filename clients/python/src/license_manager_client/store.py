"""Where the client keeps license files and the trusted time between runs."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

FETCHED_FILE_NAME = "license.json"
SERVER_TIME_FILE_NAME = "server-time"
# A clock set back that the server was not told of yet (sent as clockTamperedAt with the next request).
CLOCK_TAMPERED_FILE_NAME = "clock-tampered"
# The access token of a desktop sign-in (DESIGN.md section 6f), readable by its owner only.
DESKTOP_TOKEN_FILE_NAME = "desktop-token"
# The stored file the server last confirmed (304) and when, "<tag> <epoch ms>\n" as every client keeps
# it: the next run counts its refresh from then. Not a .json/.lic name, so never a candidate license file.
CONFIRMED_FILE_NAME = "confirmed.state"


class MemoryStore:
    """A store in memory: nothing survives a restart (tests, or software that keeps the file elsewhere)."""

    def __init__(self, files: dict[str, str] | None = None) -> None:
        self.files = dict(files or {})
        self.server_time: str | None = None
        self.clock_tampered: str | None = None
        self.desktop_token: str | None = None
        self.confirmed: str | None = None

    def list(self) -> list[tuple[str, str]]:
        return list(self.files.items())

    def save(self, text: str) -> None:
        self.files[FETCHED_FILE_NAME] = text

    def remove(self, name: str) -> None:
        self.files.pop(name, None)

    def read_server_time(self) -> str | None:
        return self.server_time

    def write_server_time(self, token: str) -> None:
        self.server_time = token

    def read_clock_tampered(self) -> str | None:
        return self.clock_tampered

    def write_clock_tampered(self, at: str | None) -> None:
        self.clock_tampered = at

    def read_desktop_token(self) -> str | None:
        return self.desktop_token

    def write_desktop_token(self, token: str | None) -> None:
        self.desktop_token = token

    def read_confirmed(self) -> str | None:
        return self.confirmed

    def write_confirmed(self, state: str | None) -> None:
        self.confirmed = state


class DirectoryStore:
    """A folder of license files: every ``.lic`` and ``.json`` file in it is a candidate (an offline
    file the user copied there works); the fetched file is ``license.json``, the trusted time
    ``server-time``, the server's last confirmation ``confirmed.state``, a desktop sign-in's token
    ``desktop-token`` (mode 0600)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def list(self) -> list[tuple[str, str]]:
        if not self.directory.is_dir():
            return []
        files = []
        for path in sorted(self.directory.iterdir()):
            if path.suffix.lower() in (".lic", ".json") and path.is_file():
                try:
                    files.append((path.name, path.read_text("utf-8")))
                except (OSError, UnicodeDecodeError):
                    files.append((path.name, ""))
        return files

    def _write(self, name: str, text: str) -> None:
        # Written beside and renamed, so that a crash never leaves half a file.
        self.directory.mkdir(parents=True, exist_ok=True)
        # mkstemp creates the file readable and writable by its owner only (0600), from the start.
        handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, self.directory / name)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise

    def save(self, text: str) -> None:
        self._write(FETCHED_FILE_NAME, text)

    def remove(self, name: str) -> None:
        try:
            (self.directory / name).unlink()
        except FileNotFoundError:
            pass

    def read_server_time(self) -> str | None:
        try:
            return (self.directory / SERVER_TIME_FILE_NAME).read_text("utf-8")
        except OSError:
            return None

    def write_server_time(self, token: str) -> None:
        self._write(SERVER_TIME_FILE_NAME, token)

    def read_clock_tampered(self) -> str | None:
        try:
            return (self.directory / CLOCK_TAMPERED_FILE_NAME).read_text("utf-8").strip() or None
        except OSError:
            return None

    def write_clock_tampered(self, at: str | None) -> None:
        if at is None:
            self.remove(CLOCK_TAMPERED_FILE_NAME)
        else:
            self._write(CLOCK_TAMPERED_FILE_NAME, at)

    def read_desktop_token(self) -> str | None:
        try:
            return (self.directory / DESKTOP_TOKEN_FILE_NAME).read_text("utf-8").strip() or None
        except OSError:
            return None

    def write_desktop_token(self, token: str | None) -> None:
        """Keeps the token (None deletes it); never world-readable, not even while it is written."""
        if token is None:
            self.remove(DESKTOP_TOKEN_FILE_NAME)
            return
        self._write(DESKTOP_TOKEN_FILE_NAME, token)  # mkstemp: 0600 from the first byte
        if os.name == "posix":
            os.chmod(self.directory / DESKTOP_TOKEN_FILE_NAME, 0o600)

    def read_confirmed(self) -> str | None:
        try:
            return (self.directory / CONFIRMED_FILE_NAME).read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def write_confirmed(self, state: str | None) -> None:
        """Keeps the confirmation (None deletes it)."""
        if state is None:
            self.remove(CONFIRMED_FILE_NAME)
        else:
            self._write(CONFIRMED_FILE_NAME, state)
