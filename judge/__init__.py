"""judge: decide whether a coding agent really did the plan step it was asked to do."""

from judge.config import JudgeConfig
from judge.errors import InputError, JudgeError
from judge.models import EvalCase, ExecuteStepResult, Step
from judge.pipeline import avalidate, validate
from judge.verdict import Finding, StageReport, Verdict
from judge.version import __version__

__all__ = [
    "EvalCase",
    "ExecuteStepResult",
    "Finding",
    "InputError",
    "JudgeConfig",
    "JudgeError",
    "StageReport",
    "Step",
    "Verdict",
    "__version__",
    "avalidate",
    "validate",
]
