"""Who may annotate: per-annotator tokens, stored hashed, and expiring session tickets.

Tokens live in `.streamlit/secrets.toml` (beside the project config or in the working
folder) as SHA-256 hashes:

    [baton]
    session_idle_minutes = 60   # optional: a session idle this long ends (default 60)

    [baton.annotators.alice]
    token_sha256 = "…"          # python -m app token alice
    role = "annotator"          # or "admin": sees everyone's annotations and the summary

Fail closed: a secrets file that is present but cannot be read, has an entry that does not
fit this layout, or yields no account makes `AccessConfig.is_broken` true, and the app then
serves nothing. Access control is off only when no secrets file exists at all.

Tokens are random and long, so a plain SHA-256 suffices (no password stretching); they
are compared in constant time. After sign-in the URL carries a *session ticket*, not the
token. A ticket is one session: it ends when idle for the configured time, when its
annotator signs out (every ticket of theirs ends), or when the account is removed. A new
session (a refresh, a restarted server) redeems the URL's ticket and gets a new one, so a
URL copied from history stops working as soon as its owner's page moves on.

No Streamlit here: app/ui/signin.py is the glue.
"""
from __future__ import annotations

import contextlib
import difflib
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

ROLES = ("annotator", "admin")
IDLE_MINUTES = 60.0  # default: a session idle this long ends
MAX_IDLE_MINUTES = 7 * 24 * 60.0
BATON_KEYS = ("annotators", "session_idle_minutes")
ACCOUNT_KEYS = ("token_sha256", "role")
_HEX64 = re.compile(r"[0-9a-fA-F]{64}")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Account:
    name: str
    token_sha256: str
    role: str = "annotator"

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


@dataclass(frozen=True)
class AccessConfig:
    """What the secrets files say: the accounts, every problem (naming file and entry), and the
    idle time they set. No file: access control is off. A file and any problem: broken."""
    files: tuple[Path, ...] = ()
    accounts: dict[str, Account] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    idle_minutes: float | None = None

    @property
    def is_open(self) -> bool:
        """No secrets file at all: anyone may sign in under any name."""
        return not self.files

    @property
    def is_broken(self) -> bool:
        """A secrets file exists but does not give a clean set of accounts: serve nothing."""
        return bool(self.files) and bool(self.problems)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def secrets_files(config_path: str | Path, cwd: str | Path | None = None) -> list[Path]:
    """Where accounts are looked for: beside the project, then the working folder. Anything
    at those paths counts (a folder or a dangling link too): it is reported, never skipped."""
    out = [Path(config_path).resolve().parent / ".streamlit" / "secrets.toml",
           Path(cwd or os.getcwd()).resolve() / ".streamlit" / "secrets.toml"]
    return list(dict.fromkeys(p for p in out if os.path.lexists(p)))


def load_access(files: list[Path]) -> AccessConfig:
    """Read every secrets file; a problem names the file, the entry and what is wrong."""
    accounts: dict[str, Account] = {}
    problems: list[str] = []
    idle: float | None = None
    for f in files:
        data = _read_toml(f, problems)
        if data is None:
            continue
        found, file_idle = _baton_table(f, data, problems)
        idle = file_idle if file_idle is not None else idle
        for acc in found.values():
            _merge(f, accounts, acc, problems)
    return AccessConfig(tuple(files), accounts, tuple(problems), idle)


def load_accounts(files: list[Path]) -> tuple[dict[str, Account], list[str]]:
    """The accounts of the secrets files and their problems (see load_access)."""
    cfg = load_access(files)
    return cfg.accounts, list(cfg.problems)


def _read_toml(f: Path, problems: list[str]) -> dict | None:
    try:
        return tomllib.loads(f.read_bytes().decode("utf-8"))
    except OSError as e:
        problems.append(f"{f}: cannot be read: {e.strerror or e}")
    except UnicodeDecodeError:
        problems.append(f"{f}: not UTF-8 text")
    except tomllib.TOMLDecodeError as e:
        problems.append(f"{f}: not valid TOML: {e}")
    except RecursionError:
        problems.append(f"{f}: not valid TOML: nested too deeply")
    return None


def _unknown(where: str, key: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f'; did you mean "{close[0]}"?' if close else f"; expected {', '.join(known)}"
    return f"{where}.{_key(key)}: unknown key{hint}"


def _key(name: str) -> str:
    """A TOML key as written in a table header: bare when it can be, else quoted."""
    return name if _BARE_KEY.fullmatch(name) else json.dumps(name, ensure_ascii=False)


def _baton_table(f: Path, data: dict, problems: list[str]) -> tuple[dict[str, Account], float | None]:
    """The accounts and idle time of one file's `[baton]` table."""
    before = len(problems)
    baton = data.get("baton")
    if not isinstance(baton, dict):
        what = "no [baton] table" if baton is None else "baton: expected a table"
        problems.append(f"{f}: {what}; expected [baton.annotators.NAME] tables "
                        "with token_sha256 (python -m app token NAME)")
        return {}, None
    for key in baton:
        if key not in BATON_KEYS:
            problems.append(f"{f}: {_unknown('baton', key, BATON_KEYS)}")
    idle = _idle(f"{f}: baton.session_idle_minutes", baton.get("session_idle_minutes"), problems)
    table = baton.get("annotators")
    if not isinstance(table, dict):
        got = "missing" if table is None else f"expected a table of annotators, got {type(table).__name__}"
        problems.append(f"{f}: baton.annotators: {got}; expected [baton.annotators.NAME] tables "
                        "with token_sha256 (python -m app token NAME)")
        return {}, idle
    found = {}
    for name, entry in table.items():
        acc = _account(f"{f}: baton.annotators.{_key(name)}", name, entry, problems)
        if acc is not None:
            found[name] = acc
    if not found and len(problems) == before:
        problems.append(f"{f}: baton.annotators: no account; expected [baton.annotators.NAME] tables "
                        "with token_sha256 (python -m app token NAME)")
    return found, idle


def _idle(where: str, value, problems: list[str]) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_IDLE_MINUTES:
        problems.append(f"{where}: expected a number of minutes above 0 and at most {MAX_IDLE_MINUTES:g}, "
                        f"got {value!r}")
        return None
    return float(value)


def _account(where: str, name: str, entry, problems: list[str]) -> Account | None:
    """One `[baton.annotators.NAME]` entry, or None with its problems recorded."""
    before = len(problems)
    if name != " ".join(name.split()) or not name or len(name) > 64 or any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        problems.append(f"{where}: expected a name of 1 to 64 characters without control characters "
                        "or leading, trailing or repeated spaces")
    if not isinstance(entry, dict):
        problems.append(f"{where}: expected a table with token_sha256 and role")
        return None
    for key in entry:
        if key not in ACCOUNT_KEYS:
            problems.append(_unknown(where, key, ACCOUNT_KEYS))
    digest = entry.get("token_sha256")
    if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
        got = "nothing" if digest is None else repr(digest if not isinstance(digest, str) else digest[:80])
        problems.append(f"{where}.token_sha256: expected 64 hex digits, got {got} "
                        f"(python -m app token {_key(name)})")
    role = entry.get("role", "annotator")
    if role not in ROLES:
        problems.append(f"{where}.role: expected one of {', '.join(ROLES)}, got {role!r}")
    if len(problems) > before:
        return None
    return Account(name, digest.lower(), role)


def _merge(f: Path, accounts: dict[str, Account], acc: Account, problems: list[str]) -> None:
    """Add an account; the same name in two files must say the same, else it is a problem."""
    seen = accounts.get(acc.name)
    if seen is None:
        accounts[acc.name] = acc
    elif seen != acc:
        problems.append(f"{f}: baton.annotators.{_key(acc.name)}: also in another secrets file with "
                        "a different token or role; keep one")


def idle_seconds(access_minutes: float | None, project_minutes: float | None) -> float:
    """How long a session may sit idle: the secrets' setting, else the project's, else the default."""
    for minutes in (access_minutes, project_minutes):
        if minutes is not None:
            return float(minutes) * 60.0
    return IDLE_MINUTES * 60.0


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
    """Session tickets, kept (hashed) in a small JSON file so they survive a server restart.
    Only hashes are stored: the file grants nothing. An entry is `{annotator, seen}`: a
    ticket is live while `seen + ttl` (the idle time) is in the future, and each use moves
    `seen` on (written at most every `grace` seconds, not on every click).

    Every read-modify-write holds a lock shared by all threads of the process and, where
    the OS has `flock`, a lock file shared with other processes (two servers on one
    project), so concurrent sign-ins and refreshes never lose each other's tickets."""

    def __init__(self, path: Path, ttl: float = IDLE_MINUTES * 60.0):
        self.path = Path(path)
        self.ttl = float(ttl)
        self.grace = min(60.0, self.ttl / 10)
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
        """Live, well-formed entries (a damaged file signs everyone out, nothing worse)."""
        return {k: v for k, v in _entries(self.path).items() if v["seen"] + self.ttl > now}

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
            data[hash_token(ticket)] = {"annotator": annotator, "seen": now}
            self._write(data)
        return ticket

    def redeem(self, ticket: str, now: float | None = None) -> tuple[str, str] | None:
        """(annotator, a fresh ticket) if the ticket is live: a new session takes it over, and
        it can never be used again (the session that held it ends at its next click)."""
        now = time.time() if now is None else now
        with self._locked():
            data = self._read(now)
            entry = data.pop(hash_token(ticket or ""), None)
            if entry is None:  # unknown, used or expired: nothing to change on disk
                return None
            fresh = secrets.token_urlsafe(24)
            data[hash_token(fresh)] = {"annotator": entry["annotator"], "seen": now}
            self._write(data)
        return entry["annotator"], fresh

    def active(self, ticket: str | None, now: float | None = None) -> str | None:
        """The annotator of a live ticket, else None. Only reads (a stat when the file is as
        last read): cheap enough for every click."""
        now = time.time() if now is None else now
        entry = self._live(hash_token(ticket or ""), now)
        return entry["annotator"] if entry else None

    def _live(self, key: str, now: float) -> dict | None:
        entry = _entries(self.path, cached=True).get(key)
        return entry if entry and entry["seen"] + self.ttl > now else None

    def touch(self, ticket: str | None, now: float | None = None) -> str | None:
        """`active`, and the ticket's idle time starts again (written once per `grace`)."""
        now = time.time() if now is None else now
        key = hash_token(ticket or "")
        entry = self._live(key, now)
        if entry is None or now - entry["seen"] < self.grace:
            return entry["annotator"] if entry else None
        who = entry["annotator"]
        with self._locked():
            data = self._read(now)
            if key not in data:  # ended meanwhile (signed out elsewhere)
                return None
            data[key] = {"annotator": who, "seen": now}
            self._write(data)
        return who

    def revoke_all(self, annotator: str) -> None:
        """Sign-out: every session of this annotator ends."""
        with self._locked():
            self._write({k: v for k, v in self._read(time.time()).items() if v["annotator"] != annotator})


_ENTRIES: dict[str, tuple[tuple, dict[str, dict]]] = {}  # tickets file -> (its stat, its entries)


def _entries(path: Path, cached: bool = False) -> dict[str, dict]:
    """Well-formed entries of a tickets file (expired ones too). With `cached`, the last read
    is reused while the file's stat is unchanged (a write replaces it: a new inode)."""
    try:
        st = os.stat(path)
    except OSError:
        return {}
    sig = (st.st_mtime_ns, st.st_size, st.st_ino)
    hit = _ENTRIES.get(str(path))
    if cached and hit and hit[0] == sig:
        return hit[1]
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        data = {}
    out = {k: v for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("annotator"), str)
           and isinstance(v.get("seen"), (int, float)) and not isinstance(v.get("seen"), bool)} \
        if isinstance(data, dict) else {}
    _ENTRIES[str(path)] = (sig, out)
    return out
