"""Evidence keys: the orchestrator's secret that signs execution records, so a record the executor forged is caught.

``evidenceHash`` is unkeyed: anyone who edits a record can recompute it, so it only catches edits.
``evidenceMac`` is HMAC-SHA256 under a key kept in the orchestrator's state directory (default
``~/.local/state/judge/evidence.key``, judge.runs.state): a record made anywhere else, or rewritten,
does not carry a MAC this key gives. That holds only while the executor cannot read the key file:
judge refuses a key other users may read, and one inside a repository.

The key file holds 64 hex digits (32 random bytes) and a newline, mode 0600. It is made by one
atomic link of a complete file, so processes racing to make it all end with the one key.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from judge.errors import InputError
from judge.runs.dirfd import open_real_dir

if TYPE_CHECKING:  # records are pydantic models; a run without any never loads them
    from judge.contract.models import ExecutionEvidence

__all__ = ["KEY_FILE", "EvidenceKey", "configured_key", "evidence_mac", "load_or_create_key", "mac_problem",
           "read_key", "sign"]

KEY_FILE = "evidence.key"
_KEY_BYTES = 32
_MAX_FILE = 256  # a key file is 65 bytes; read no more than this of whatever is there
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
_MAC_DOMAIN = "judge execution evidence v1"  # a MAC of these fields means nothing in another context
_BOUND_MAC_DOMAIN = "judge execution evidence v2"  # the same, bound to the work the command ran on


@dataclass(frozen=True)
class EvidenceKey:
    """A key read from ``path``; its bytes never appear in a repr (a traceback or a log line)."""

    path: str
    secret: bytes = field(repr=False)

    def run_hint(self) -> str:
        """The `judge run` options that sign with this key."""
        where = Path(self.path)
        if where.name == KEY_FILE:
            return f"judge run --root {where.parent}"
        return f"judge run --evidence-key {self.path}"


def load_or_create_key(path: str | os.PathLike[str]) -> bytes:
    """The key in ``path``, made (32 random bytes, mode 0600) when missing; InputError for a file that is not a key."""
    where = Path(path)
    dir_fd = open_real_dir(where.parent, create=True)
    try:
        key = _read(dir_fd, where)
        if key is None:
            key = _create(dir_fd, where)
        return key
    finally:
        os.close(dir_fd)


def read_key(path: str | os.PathLike[str]) -> bytes | None:
    """The key in ``path``, None when there is no such file; InputError for a file that is not a private key."""
    where, parent = _where(os.fspath(path))
    try:  # the directory as the orchestrator named it (a link it made is its choice); the file itself no-follow
        dir_fd = os.open(parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"{where.parent}: cannot open the evidence key's directory ({exc.strerror or exc})") from None
    try:
        return _read(dir_fd, where)
    finally:
        os.close(dir_fd)


def configured_key(explicit: str | None, artifacts_root: str) -> EvidenceKey | None:
    """The key validation checks records and approvals with: ``explicit`` (which must exist), else
    ``<artifacts_root>/evidence.key`` when that file exists, else None (then no record backs a claim and no
    approval counts, unless the policies accept unsigned records)."""
    path = explicit if explicit is not None else _default_path(artifacts_root)
    secret = read_key(path)
    if secret is None:
        if explicit is not None:
            raise InputError(f"{path}: no such evidence key; `judge run --evidence-key {path}` makes one, "
                             "or leave the setting out", field="evidence_key")
        return None
    return EvidenceKey(path, secret)


@lru_cache(maxsize=64)
def _default_path(artifacts_root: str) -> str:
    return str(Path(artifacts_root) / KEY_FILE)


@lru_cache(maxsize=64)
def _where(path: str) -> tuple[Path, str]:
    """The key's path and its directory's, as the messages name them: every validation reads the key, few paths."""
    where = Path(path)
    return where, str(where.parent)


def evidence_mac(key: bytes, record: ExecutionEvidence) -> str:
    """HMAC-SHA256 of what the record says happened and when. Command and output are covered through
    ``evidenceHash``, so a MAC proves content only together with a hash check (``mac_problem`` does not redo it)."""
    import hmac  # here and below, not at the top: a run without records or keys reads no MAC (hmac, secrets: ~3 ms)

    return hmac.new(key, _signed_bytes(record), "sha256").hexdigest()


def sign(key: bytes, record: ExecutionEvidence) -> ExecutionEvidence:
    """The record carrying its ``evidenceMac`` under ``key``."""
    return record.model_copy(update={"evidence_mac": evidence_mac(key, record)})


def mac_problem(key: bytes, record: ExecutionEvidence) -> str | None:
    """Why the record's ``evidenceMac`` is not this key's MAC of it (missing or different), or None."""
    import hmac

    if record.evidence_mac is None:
        return "carries no evidenceMac"
    if not hmac.compare_digest(record.evidence_mac, evidence_mac(key, record)):
        return "carries an evidenceMac this key did not make"
    return None


def _signed_bytes(record: ExecutionEvidence) -> bytes:
    # Not status (derived from these), not artifacts (their paths follow from the ids). durationSeconds as a float:
    # a JSON tool that rewrites 1.0 as 1 must not break the MAC. A record bound to work (judge.runs.binding) is
    # signed in its own domain with the binding: stripping the binding breaks the MAC, and an older record's MAC
    # still verifies (it is genuine, only bound to nothing).
    fields = [_MAC_DOMAIN, record.evidence_hash, record.step_id, record.run_id, record.exit_code, record.timed_out,
              record.error, record.started_at, record.finished_at, float(record.duration_seconds),
              record.stdout_bytes, record.stderr_bytes]
    if record.work_hash is not None or record.repository is not None or record.base is not None:
        fields = [_BOUND_MAC_DOMAIN, *fields[1:], record.repository, record.base, record.work_hash]
    return json.dumps(fields, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _read(dir_fd: int, where: Path) -> bytes | None:
    try:
        fd = os.open(where.name, _READ_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(where):
            raise InputError(f"{where}: is a symlink; judge reads its evidence key only from a regular file: "
                             "replace the link by the file it points to") from None
        raise InputError(f"{where}: cannot read the evidence key ({exc.strerror or exc})") from None
    try:
        _check_file(os.fstat(fd), where)
        data = os.read(fd, _MAX_FILE)
    finally:
        os.close(fd)
    return _parsed(data, where)


def _check_file(info: os.stat_result, where: Path) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{where}: is not a regular file; an evidence key is a file of 64 hex digits")
    if info.st_mode & 0o077:
        raise InputError(f"{where}: other users may read or write it (mode {stat.S_IMODE(info.st_mode):04o}); "
                         f"an evidence key must be private: chmod 600 {where}")
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        raise InputError(f"{where}: belongs to user id {info.st_uid}, not to the user judge runs as; "
                         "an evidence key must be the orchestrator's own file")


def _parsed(data: bytes, where: Path) -> bytes:
    text = data.rstrip(b"\r\n")
    fix = "restore it, or delete it to have judge make a new one (records signed with the old key then fail)"
    if len(text) != 2 * _KEY_BYTES:
        raise InputError(f"{where}: holds {len(data)} bytes, not an evidence key of {2 * _KEY_BYTES} hex digits; {fix}")
    try:
        return bytes.fromhex(text.decode("ascii"))
    except ValueError:
        raise InputError(f"{where}: is not an evidence key of {2 * _KEY_BYTES} hex digits; {fix}") from None


def _create(dir_fd: int, where: Path) -> bytes:
    """Write a new key to a private file of a temporary name, then link it to the key's name: the name appears
    complete or not at all, and when another process linked its key first, that key is read and used."""
    import secrets

    key = secrets.token_bytes(_KEY_BYTES)
    temporary = f".{where.name}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(temporary, _NEW_FLAGS, 0o600, dir_fd=dir_fd)
    except OSError as exc:
        raise InputError(f"{where}: cannot create the evidence key ({exc.strerror or exc})") from None
    try:
        try:
            os.fchmod(fd, 0o600)  # whatever the umask
            os.write(fd, (key.hex() + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.link(temporary, where.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
    except FileExistsError:
        existing = _read(dir_fd, where)
        if existing is None:  # linked, then removed by someone else: do not guess, say so
            raise InputError(f"{where}: the evidence key vanished while judge made it; run again") from None
        return existing
    except OSError as exc:
        raise InputError(f"{where}: cannot create the evidence key ({exc.strerror or exc})") from None
    finally:
        try:
            os.unlink(temporary, dir_fd=dir_fd)
        except OSError:
            pass
    return key
