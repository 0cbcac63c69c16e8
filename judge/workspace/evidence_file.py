"""Evidence files (seed 000): `.orchestrator/evidence/<stepId>.json`, the proof of work that changed no tracked file."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from judge.errors import ContractViolation
from judge.contract.jsonio import loads
from judge.contract.schema import parse_evidence_file
from judge.errors import InputError
from judge.workspace.confine import confined, segment_problem
from judge.workspace.plainfile import TooLarge, read_plain
from judge.contract.models import EvidenceFile

__all__ = ["EVIDENCE_DIR", "EvidenceFileFacts", "evidence_path", "read_evidence_file"]

EVIDENCE_DIR = ".orchestrator/evidence"
_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True)
class EvidenceFileFacts:
    """An evidence file that exists; ``problem`` says why it does not count, None when it does."""

    path: str  # relative to the repository root
    evidence: EvidenceFile | None
    problem: str | None

    @property
    def valid(self) -> bool:
        return self.problem is None


def evidence_path(step_id: str) -> str:
    return f"{EVIDENCE_DIR}/{step_id}.json"


def read_evidence_file(root: str | os.PathLike[str], step_id: str) -> EvidenceFileFacts | None:
    """The evidence file for ``step_id`` under ``root``; None when there is none (or the id cannot name one)."""
    if segment_problem(step_id) or segment_problem(f"{step_id}.json"):
        return None
    relative = evidence_path(step_id)
    location = Path(root) / relative
    if not os.path.lexists(location):
        return None
    try:
        confined(Path(root), *relative.split("/"))
    except InputError:
        return EvidenceFileFacts(relative, None, "it is a symlink, or lies under one, that leads outside the repository")
    try:
        data = _read_json(location)
    except ValueError as exc:
        return EvidenceFileFacts(relative, None, str(exc))
    try:
        evidence = parse_evidence_file(data)
    except ContractViolation as violation:
        problem = f"{violation.path.replace('$.evidence-file', '$')}: {violation.problem}"
        return EvidenceFileFacts(relative, None, f"it breaks schemas/evidence-file.schema.json at {problem}")
    if evidence.node_id != step_id:
        return EvidenceFileFacts(relative, evidence, f"its nodeId is {evidence.node_id[:80]!r}, not this step's id {step_id!r}")
    return EvidenceFileFacts(relative, evidence, None)


def _read_json(location: Path) -> object:
    """The parsed file, read without following a final symlink and never more than _MAX_BYTES."""
    if location.is_symlink():
        raise ValueError("it is a symlink; write the evidence file itself")
    try:
        data = read_plain(location, _MAX_BYTES)
    except OSError as exc:
        raise ValueError(f"it cannot be read ({exc.strerror or exc})") from None
    except TooLarge:
        raise ValueError(f"it is larger than {_MAX_BYTES // 1024} KiB") from None
    if data is None:
        raise ValueError("it is not a regular file")
    try:
        return loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"it is not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"it is not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise ValueError("its JSON is nested too deeply") from None
