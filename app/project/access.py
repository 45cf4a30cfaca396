"""Who may annotate: per-annotator tokens, stored hashed, and rotating session tickets.

Tokens live in `.streamlit/secrets.toml` (beside the project config or in the working
folder) as SHA-256 hashes:

    [baton.annotators.alice]
    token_sha256 = "…"          # python -m app token alice
    role = "annotator"          # or "admin": sees everyone's annotations and the summary

Tokens are random and long, so a plain SHA-256 suffices (no password stretching); they
are compared in constant time. After sign-in the URL carries a *session ticket*, not the
token: a random value valid once and for a limited time. Each new session (a refresh, a
restarted server) redeems the ticket and gets a new one, so a URL copied from history or
a screen share stops working as soon as its owner's page moves on.
"""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

ROLES = ("annotator", "admin")
TICKET_TTL = 12 * 3600.0  # seconds a ticket stays valid if not redeemed


@dataclass(frozen=True)
class Account:
    name: str
    token_sha256: str
    role: str = "annotator"

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def secrets_files(config_path: str | Path, cwd: str | Path | None = None) -> list[Path]:
    """Where accounts are looked for: beside the project, then the working folder."""
    out = [Path(config_path).resolve().parent / ".streamlit" / "secrets.toml",
           Path(cwd or os.getcwd()).resolve() / ".streamlit" / "secrets.toml"]
    return list(dict.fromkeys(p for p in out if p.is_file()))


def load_accounts(files: list[Path]) -> tuple[dict[str, Account], list[str]]:
    """Accounts from the secrets files, and problems naming file and key."""
    accounts: dict[str, Account] = {}
    problems: list[str] = []
    for f in files:
        try:
            data = tomllib.loads(f.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            problems.append(f"{f}: cannot read: {e}")
            continue
        table = data.get("baton", {}).get("annotators", {})
        if not isinstance(table, dict):
            problems.append(f"{f}: baton.annotators: expected a table of annotators")
            continue
        for name, entry in table.items():
            where = f"{f}: baton.annotators.{name}"
            if not isinstance(entry, dict):
                problems.append(f"{where}: expected a table with token_sha256 and role")
                continue
            digest = str(entry.get("token_sha256", "")).lower()
            role = entry.get("role", "annotator")
            if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
                problems.append(f"{where}.token_sha256: expected 64 hex digits (python -m app token {name})")
                continue
            if role not in ROLES:
                problems.append(f"{where}.role: expected one of {', '.join(ROLES)}, got {role!r}")
                continue
            accounts.setdefault(name, Account(name, digest, role))
    return accounts, problems


def authenticate(accounts: dict[str, Account], token: str) -> Account | None:
    """The account whose token this is; every account is compared, in constant time each."""
    digest = hash_token(token or "")
    found = None
    for acc in accounts.values():
        if hmac.compare_digest(acc.token_sha256, digest):
            found = acc
    return found


_PATH_LOCKS: dict[str, threading.Lock] = {}
_PATH_LOCKS_GUARD = threading.Lock()


def _path_lock(path: Path) -> threading.Lock:
    """One lock per tickets file for the whole process: the app makes a new `Tickets` for
    each call, and Streamlit runs every session's script in a thread of its own."""
    key = os.path.abspath(path)
    with _PATH_LOCKS_GUARD:
        return _PATH_LOCKS.setdefault(key, threading.Lock())


class Tickets:
    """One-time, expiring session tickets, kept (hashed) in a small JSON file so they
    survive a server restart. Only hashes are stored: the file grants nothing.

    Every read-modify-write holds a lock shared by all threads of the process and, where
    the OS has `flock`, a lock file shared with other processes (two servers on one
    project), so concurrent sign-ins and refreshes never lose each other's tickets."""

    def __init__(self, path: Path, ttl: float = TICKET_TTL):
        self.path = Path(path)
        self.ttl = ttl
        self._lock = _path_lock(self.path)

    @contextlib.contextmanager
    def _locked(self):
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if fcntl is None:  # pragma: no cover - Windows: one server process per project
                yield
                return
            with open(self.path.with_name(f".{self.path.name}.lock"), "a") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    fcntl.flock(fh, fcntl.LOCK_UN)

    def _read(self, now: float) -> dict[str, dict]:
        """Unexpired, well-formed entries (a damaged file signs everyone out, nothing worse)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("annotator"), str)
                and isinstance(v.get("expires"), (int, float)) and v["expires"] > now}

    def _write(self, data: dict) -> None:
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def issue(self, annotator: str, now: float | None = None) -> str:
        now = time.time() if now is None else now
        ticket = secrets.token_urlsafe(24)
        with self._locked():
            data = self._read(now)
            data[hash_token(ticket)] = {"annotator": annotator, "expires": now + self.ttl}
            self._write(data)
        return ticket

    def redeem(self, ticket: str, now: float | None = None) -> tuple[str, str] | None:
        """(annotator, a fresh ticket) if the ticket is valid; it can never be used again."""
        now = time.time() if now is None else now
        with self._locked():
            data = self._read(now)
            entry = data.pop(hash_token(ticket or ""), None)
            if entry is None:  # unknown, used or expired: nothing to change on disk
                return None
            fresh = secrets.token_urlsafe(24)
            data[hash_token(fresh)] = {"annotator": entry["annotator"], "expires": now + self.ttl}
            self._write(data)
        return entry["annotator"], fresh

    def revoke_all(self, annotator: str) -> None:
        with self._locked():
            self._write({k: v for k, v in self._read(time.time()).items() if v.get("annotator") != annotator})
