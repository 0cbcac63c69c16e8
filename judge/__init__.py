"""judge: decide whether a coding agent really did the plan step it was asked to do."""

from judge.config import JudgeConfig
from judge.errors import InputError, JudgeError
from judge.evidence import EMPTY_TREE, Workspace, WorkspaceFacts, evidence_hash, gather_workspace, record_execution
from judge.models import EvalCase, EvidenceFile, ExecuteStepResult, ExecutionEvidence, Step
from judge.pipeline import avalidate, validate
from judge.verdict import Finding, StageReport, Verdict
from judge.version import __version__

__all__ = [
    "EMPTY_TREE",
    "EvalCase",
    "EvidenceFile",
    "ExecuteStepResult",
    "ExecutionEvidence",
    "Finding",
    "InputError",
    "JudgeConfig",
    "JudgeError",
    "StageReport",
    "Step",
    "Verdict",
    "Workspace",
    "WorkspaceFacts",
    "__version__",
    "avalidate",
    "evidence_hash",
    "gather_workspace",
    "record_execution",
    "validate",
]
