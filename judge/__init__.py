"""judge: decide whether a coding agent really did the plan step it was asked to do.

Re-exports only, loaded on first use (PEP 562): `import judge` costs nothing until a name is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_HOMES = {
    "validate": "judge.pipeline",
    "drive": "judge.driver.loop",
    "adrive": "judge.driver.loop",
    "DriveOutcome": "judge.driver.loop",
    "CommandExecutor": "judge.driver.executor",
    "avalidate": "judge.pipeline",
    "Verdict": "judge.verdict",
    "Finding": "judge.verdict",
    "StageReport": "judge.verdict",
    "GateResult": "judge.verdict",
    "Outcome": "judge.verdict",
    "Gate": "judge.contract.gates",
    "EvidenceDoc": "judge.contract.gates",
    "PolicyLayer": "judge.contract.gates",
    "append_approval": "judge.workspace.approvals",
    "JudgeConfig": "judge.config",
    "Workspace": "judge.workspace.facts",
    "EMPTY_TREE": "judge.workspace.git",
    "record_execution": "judge.runs.artifacts",
    "evidence_hash": "judge.runs.record",
    "Step": "judge.contract.models",
    "ExecuteStepResult": "judge.contract.models",
    "ExecutionEvidence": "judge.contract.models",
    "EvidenceFile": "judge.contract.models",
    "EvalCase": "judge.contract.models",
    "JudgeError": "judge.errors",
    "InputError": "judge.errors",
    "ContractViolation": "judge.errors",
    "MalformedPatch": "judge.errors",
    "__version__": "judge.version",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'judge' has no attribute {name!r}")
    value = getattr(import_module(_HOMES[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


if TYPE_CHECKING:  # for type checkers and editors; never executed
    from judge.config import JudgeConfig
    from judge.driver.executor import CommandExecutor
    from judge.driver.loop import DriveOutcome, adrive, drive
    from judge.contract.models import EvalCase, EvidenceFile, ExecuteStepResult, ExecutionEvidence, Step
    from judge.errors import ContractViolation, InputError, JudgeError, MalformedPatch
    from judge.pipeline import avalidate, validate
    from judge.runs.artifacts import record_execution
    from judge.runs.record import evidence_hash
    from judge.contract.gates import EvidenceDoc, Gate, PolicyLayer
    from judge.verdict import Finding, GateResult, Outcome, StageReport, Verdict
    from judge.workspace.approvals import append_approval
    from judge.version import __version__
    from judge.workspace.facts import Workspace
    from judge.workspace.git import EMPTY_TREE
