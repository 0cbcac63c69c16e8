"""A drive's attempts, and its transcript: one JSON line per attempt (schemas/drive-transcript.schema.json),
appended as the drive goes, so a killed drive can be read and resumed."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from judge.contract.schema import load_schema, schema_registry
from judge.errors import InputError
from judge.verdict import Verdict

__all__ = ["Attempt", "Stop", "Transcript", "step_sha256"]

Stop = Literal["accepted", "not_retryable", "max_attempts", "time_budget", "token_budget"]


@dataclass(frozen=True)
class Attempt:
    """One attempt: what was asked, what the executor gave (None: nothing usable), and judge's verdict on it."""

    number: int
    request: dict
    result: dict | None
    verdict: Verdict
    started_at: str
    executor_seconds: float = 0.0
    judge_seconds: float = 0.0
    exit_code: int | None = None
    timed_out: bool = False
    stderr_tail: str = ""
    tokens: int = 0  # judge's semantic-stage tokens plus what the executor reports in usage.totalTokens

    def line(self, step_sha: str, stop: Stop | None) -> dict:
        return {
            "version": 1,
            "stepId": self.request["step"].get("id"),
            "stepSha256": step_sha,
            "attempt": self.number,
            "startedAt": self.started_at,
            "request": self.request,
            "result": self.result,
            "executor": {"exitCode": self.exit_code, "timedOut": self.timed_out,
                         "seconds": self.executor_seconds, "stderrTail": self.stderr_tail},
            "verdict": self.verdict.full_json(),
            "judgeSeconds": self.judge_seconds,
            "tokens": self.tokens,
            "stop": stop,
        }

    @classmethod
    def of_line(cls, line: dict) -> "Attempt":
        executor = line["executor"]
        return cls(number=line["attempt"], request=line["request"], result=line["result"],
                   verdict=Verdict.model_validate(line["verdict"]), started_at=line["startedAt"],
                   executor_seconds=executor["seconds"], judge_seconds=line["judgeSeconds"],
                   exit_code=executor["exitCode"], timed_out=executor["timedOut"],
                   stderr_tail=executor["stderrTail"], tokens=line["tokens"])


def step_sha256(step: dict) -> str:
    """The step's identity in a transcript: a resumed drive must be of the same step."""
    canonical = json.dumps(step, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Transcript:
    """The JSONL file at ``path``."""

    path: str

    def read(self, step_sha: str) -> tuple[list[Attempt], Stop | None]:
        """The attempts already made for the step ``step_sha``, and where the drive stopped (None: it did not).
        A torn last line (a drive killed mid-write) is not an attempt; InputError for anything else wrong."""
        try:
            with open(self.path, "rb") as handle:
                raw = handle.read()
        except FileNotFoundError:
            return [], None
        except OSError as exc:
            raise InputError(f"cannot be read ({exc.strerror or exc}); check the path", field="transcript") from None
        lines = raw.split(b"\n")
        attempts: list[Attempt] = []
        stop = None
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            torn = number == len(lines)  # no newline after it: its write was cut short
            line = _parse(text)
            if line is None:
                if torn:
                    break
                raise InputError(f"line {number} is not a transcript line (schemas/drive-transcript.schema.json); "
                                 "judge writes one JSON object per attempt. Give a transcript judge drive wrote, or "
                                 "a new file", field="transcript")
            if line["stepSha256"] != step_sha:
                raise InputError(f"line {number} is of another step ({line.get('stepId')!r}, sha256 "
                                 f"{line['stepSha256'][:12]}…); resume with the step it was written for, or give a "
                                 "new transcript file", field="transcript")
            if stop is not None or line["attempt"] != len(attempts) + 1:
                raise InputError(f"line {number} is attempt {line['attempt']} after {len(attempts)} attempt(s)"
                                 f"{' and a stop' if stop else ''}; the file was edited or two drives wrote it. "
                                 "Give a new transcript file", field="transcript")
            attempts.append(Attempt.of_line(line))
            stop = line["stop"]
        return attempts, stop

    def check_writable(self) -> None:
        """InputError now, before an executor runs, when attempts could not be appended (creates the file)."""
        os.close(self._open())

    def _open(self) -> int:
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            return os.open(self.path, flags, 0o644)
        except OSError as exc:
            raise InputError(f"cannot be written ({exc.strerror or exc}); give a writable path",
                             field="transcript") from None

    def append(self, attempt: Attempt, step_sha: str, stop: Stop | None) -> None:
        """One line, in one write. A torn last line (read() did not count it) is cut off first, so that the file
        stays readable; a whole last line without its newline gets one."""
        data = (json.dumps(attempt.line(step_sha, stop), ensure_ascii=False) + "\n").encode("utf-8")
        fd = self._open()
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                whole = os.pread(fd, size, 0)
                start = whole.rfind(b"\n") + 1
                if _parse(whole[start:]) is None:
                    os.ftruncate(fd, start)
                else:
                    data = b"\n" + data
            os.write(fd, data)
        finally:
            os.close(fd)


def _parse(text: bytes) -> dict | None:
    """The line as a transcript line (its schema, and a verdict judge can read), or None when it is not one."""
    try:
        line: Any = json.loads(text)
        if not _line_schema().is_valid(line):
            return None
        Verdict.model_validate(line["verdict"])
    except (ValueError, RecursionError):
        return None
    return line


@lru_cache(maxsize=None)
def _line_schema() -> Any:
    from jsonschema import Draft202012Validator  # only when a transcript is read back

    return Draft202012Validator(load_schema("drive-transcript"), registry=schema_registry())
