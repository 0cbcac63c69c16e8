"""The append-only approvals file behind the human_approval gate: append a human's approval, read a step's approvals.

One approval is one JSON line (schemas/approval.schema.json). An append is one write(2) on an O_APPEND
descriptor, so humans approving at once never interleave within a line. A line that is not an approval
is corrupt: counted with its line number and skipped, never fatal. Neither side follows a link at the file.

The executor runs as the same user and could append a line too, so an approval counts only when it names the
exact work hash and carries a MAC under the orchestrator's key (the evidence key, which the executor cannot read):
an appended line without one, or for other work, approves nothing.
"""

from __future__ import annotations

import errno
import hmac
import json
import os
import re
import stat
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import BinaryIO

from pydantic import ValidationError

from judge.contract.approvals import MAX_BY, MAX_NOTE, MAX_STEP_ID, SHA256_HEX, Approval
from judge.errors import InputError
from judge.workspace.jsonl import json_lines

__all__ = ["APPROVALS_FILE", "ApprovalFacts", "ApprovalLine", "append_approval", "approval_for", "approval_mac",
           "read_approvals", "refused_approvals"]

APPROVALS_FILE = "approvals.jsonl"  # its name in judge's state directory, the default place
_MAC_DOMAIN = "judge approval v1"

# O_RDWR, not O_WRONLY: the last byte is read through the same descriptor to mend a torn last line.
# O_NONBLOCK: opening a fifo planted at the path cannot make judge wait.
_APPEND = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True)
class ApprovalLine:
    line: int  # 1-based, in the approvals file
    approval: Approval


@dataclass(frozen=True)
class ApprovalFacts:
    path: str
    step_id: str
    approvals: tuple[ApprovalLine, ...]  # this step's, in file order
    corrupt_lines: tuple[int, ...]


def append_approval(path: str | os.PathLike[str], *, step_id: str, by: str, work: str, key: bytes,
                    note: str | None = None, now: datetime | None = None) -> Approval:
    """Append one approval, signed with the orchestrator's ``key``, to the file at ``path`` (created, with its
    directories, when missing) and return it.

    ``work`` is the sha256 of the work approved; ``now`` an aware datetime. InputError naming the input at
    fault: a bad step id, name, note or hash, or a file that cannot take it.
    """
    approval = Approval.model_validate({
        "version": 1, "stepId": _text("step_id", step_id, MAX_STEP_ID), "by": _name(by),
        "note": None if note is None else _text("note", note, MAX_NOTE, low=0), "work": _work(work),
        "at": _utc(now or datetime.now(timezone.utc)),
    })
    approval = approval.model_copy(update={"mac": approval_mac(key, approval)})
    record = json.dumps(approval.to_json(), ensure_ascii=False, separators=(",", ":"))
    _append(path, record.encode("utf-8") + b"\n")
    return approval


def read_approvals(path: str | os.PathLike[str], step_id: str) -> ApprovalFacts:
    """The approvals of ``step_id`` in the file at ``path``; a missing file holds none.

    InputError when the file is a link, not a plain file, or cannot be read.
    """
    found, corrupt = [], []
    handle = _open_for_reading(path)
    if handle is not None:
        with handle:
            try:
                for number, entry in json_lines(handle):
                    approval = _approval(entry)
                    if approval is None:
                        corrupt.append(number)
                    elif approval.step_id == step_id:
                        found.append(ApprovalLine(number, approval))
            except OSError as exc:
                raise _unusable(path, exc, "read") from None
    return ApprovalFacts(str(path), step_id, tuple(found), tuple(corrupt))


def approval_mac(key: bytes, approval: Approval) -> str:
    """HMAC-SHA256 under ``key`` of what the approval says: step, who, note, work and when."""
    fields = [_MAC_DOMAIN, approval.step_id, approval.by, approval.note, approval.work, approval.at]
    return hmac.new(key, json.dumps(fields, ensure_ascii=True, separators=(",", ":")).encode("ascii"),
                    "sha256").hexdigest()


def approval_for(facts: ApprovalFacts, work: str, key: bytes | None) -> Approval | None:
    """The first approval of exactly ``work`` (a sha256 hex) that carries ``key``'s MAC; None without a key."""
    return next((line.approval for line in facts.approvals if _counts(line.approval, work, key)), None)


def refused_approvals(facts: ApprovalFacts, key: bytes | None) -> tuple[ApprovalLine, ...]:
    """The step's approvals that count for no work: without a work hash, or without ``key``'s MAC."""
    return tuple(line for line in facts.approvals if line.approval.work is None or not _signed(line.approval, key))


def _counts(approval: Approval, work: str, key: bytes | None) -> bool:
    return approval.work is not None and hmac.compare_digest(approval.work, work) and _signed(approval, key)


def _signed(approval: Approval, key: bytes | None) -> bool:
    return key is not None and approval.mac is not None and \
        hmac.compare_digest(approval.mac, approval_mac(key, approval))


def _utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _text(field: str, value: object, high: int, low: int = 1) -> str:
    if not isinstance(value, str) or not low <= len(value) <= high:
        raise InputError(f": must be a string of {low} to {high} characters", field=field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(": is not valid UTF-8 text", field=field) from None
    return value


def _name(by: object) -> str:
    if not isinstance(by, str) or not by.strip():
        raise InputError(": empty; give the name of the human who approves", field="by")
    return _text("by", by, MAX_BY)


def _work(work: object) -> str:
    if not (isinstance(work, str) and re.fullmatch(SHA256_HEX, work)):
        shown = repr(work) if len(repr(work)) <= 80 else repr(work)[:80] + "..."
        raise InputError(f"{shown}: not a sha256; give the 64 lowercase hex digits the pending verdict printed",
                         field="work")
    return work


def _approval(entry: dict | None) -> Approval | None:
    if entry is None:
        return None
    try:
        return Approval.model_validate(entry)
    except ValidationError:
        return None


def _append(path: str | os.PathLike[str], data: bytes) -> None:
    parent = os.path.dirname(os.fspath(path)) or "."
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{path}: cannot create its directory {parent} ({exc.strerror or exc})",
                         field="approvals") from None
    try:
        fd = os.open(path, _APPEND, 0o644)
    except OSError as exc:
        raise _unusable(path, exc, "write") from None
    try:
        _refuse_unless_plain(path, fd)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data  # a torn last line stays corrupt, but alone: the record gets a line of its own
        written = os.write(fd, data)
        if written != len(data):
            raise InputError(f"{path}: only {written} of {len(data)} bytes written; free space, then approve again",
                             field="approvals")
        os.fsync(fd)
    except OSError as exc:
        raise _unusable(path, exc, "write") from None
    finally:
        os.close(fd)


def _open_for_reading(path: str | os.PathLike[str]) -> BinaryIO | None:
    try:
        fd = os.open(path, _READ)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unusable(path, exc, "read") from None
    try:
        _refuse_unless_plain(path, fd)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _refuse_unless_plain(path: str | os.PathLike[str], fd: int) -> None:
    mode = os.fstat(fd).st_mode
    if stat.S_ISDIR(mode):
        raise InputError(f"{path}: is a directory; give the approvals .jsonl file", field="approvals")
    if not stat.S_ISREG(mode):
        raise InputError(f"{path}: not a plain file; give the approvals .jsonl file", field="approvals")


def _unusable(path: str | os.PathLike[str], exc: OSError, doing: str) -> InputError:
    if exc.errno == errno.ELOOP:
        problem = "is a symbolic link; judge does not follow links here: give the file itself"
    elif exc.errno == errno.EISDIR:
        problem = "is a directory; give the approvals .jsonl file"
    else:
        problem = f"cannot {doing} it ({exc.strerror or exc})"
    return InputError(f"{path}: {problem}", field="approvals")
