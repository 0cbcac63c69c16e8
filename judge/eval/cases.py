"""Reading an eval set once: every line checked against its schema, bad lines kept as reports, shards chosen."""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from functools import cached_property
from typing import Iterator

from judge.contract.jsonio import iter_jsonl, read_text
from judge.contract.models import EvalCase
from judge.contract.schema import parse_eval_case
from judge.errors import ContractViolation, InputError
from judge.eval.report.model import BadLine
from judge.lazy_pattern import lazy_compile

__all__ = ["EvalSet", "LoadedCase", "inputs_hash", "parse_shard"]


def inputs_hash(case: EvalCase) -> str:
    """Canonical JSON of what the judge sees (step, result, execution records); labels and tags are not inputs.

    ``executions`` joins only when a case has some, so the hash of a case without records is the one it
    always had: stored runs resume and cached verdicts answer across the change.
    """
    inputs: dict = {"step": case.step, "result": case.result}
    if case.executions:
        inputs["executions"] = [record.to_json() for record in case.executions]
    canonical = json.dumps(inputs, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class LoadedCase:
    """A case as read, with its inputs hashed once (the store, the cache and the set's digest all use it)."""

    case: EvalCase
    inputs_hash: str


class EvalSet:
    """The cases of a .jsonl file (or stdin, ``-``), parsed once, one at a time so memory stays flat in its size."""

    def __init__(self, source: str) -> None:
        self.source = source
        # stdin can be read only once, and is read whole anyway; a file is streamed line by line.
        self._data = read_text("-", "eval set").encode("utf-8") if source == "-" else None

    def line_count(self) -> int:
        """Non-blank lines, counted without parsing: the progress bar's first estimate of the cases to judge."""
        return self._scanned[0]

    def file_sha256(self) -> str | None:
        """sha256 of the set's bytes (labels and all): what tells shards of one set file apart from others'.
        None when the file cannot be read (reading it for real says what is wrong)."""
        return self._scanned[1]

    @cached_property
    def _scanned(self) -> tuple[int, str | None]:
        """The non-blank lines and the sha256 of the bytes, in one read (0 and None when it cannot be read)."""
        digest, count = hashlib.sha256(), 0
        try:
            with (io.BytesIO(self._data) if self._data is not None else open(self.source, "rb")) as handle:
                for line in handle:
                    digest.update(line)
                    count += bool(line.strip())
        except OSError:
            return 0, None
        return count, digest.hexdigest()

    def items(self, shard: tuple[int, int] | None = None) -> Iterator[LoadedCase | BadLine]:
        """Cases and bad lines in file order. Duplicate ids are bad lines; with ``shard`` only that shard's
        cases are yielded (bad lines all)."""
        seen: set[str] = set()
        for number, item in iter_jsonl(self.source, "eval set", self._data):
            if isinstance(item, InputError):
                yield BadLine(number, str(item))
                continue
            try:
                case = parse_eval_case(item)
            except ContractViolation as exc:
                yield BadLine(number, f"eval set {self.source} line {number}: {exc}")
                continue
            if case.id in seen:
                yield BadLine(number, f"eval set {self.source} line {number}: duplicate case id {case.id!r}")
                continue
            seen.add(case.id)
            if shard is None or _shard_of(case.id, shard[1]) == shard[0] - 1:
                yield LoadedCase(case, inputs_hash(case))


    def check_holds_cases(self) -> None:
        """InputError when the set holds no case, or none of its first lines is one (a report or another JSON
        file given as a set): a run would only list every line as bad."""
        bad: list[BadLine] = []
        for item in self.items():
            if isinstance(item, LoadedCase):
                return
            bad.append(item)
            if len(bad) == _FIRST_LINES:
                raise InputError(f"{bad[0].problem} ... and none of its first {_FIRST_LINES} lines is a case: an eval "
                                 "set is JSONL, one case per line (is this a report, or another JSON file?)",
                                 field="cases")
        if not bad:
            raise InputError(f"eval set {self.source}: holds no case (the file is empty or blank); give a .jsonl "
                             "file with one case per line", field="cases")


_FIRST_LINES = 20  # bad lines in a row from the start that say the file is no eval set


def _shard_of(case_id: str, count: int) -> int:
    """Stable across machines and Python runs (no hash() salt): a case always lands in the same shard."""
    return int(hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16) % count


_SHARD = lazy_compile(r"^(\d+)/(\d+)$")


def parse_shard(text: str) -> tuple[int, int]:
    match = _SHARD.match(text.strip())
    if not match or not (1 <= int(match.group(1)) <= int(match.group(2))):
        raise InputError(f"{text}: expected I/N with 1 <= I <= N, e.g. 2/4", field="shard")
    return int(match.group(1)), int(match.group(2))
