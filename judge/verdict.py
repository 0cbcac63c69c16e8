"""The Verdict: judge's full answer, whose ``contract()`` is the strict {valid, reason}."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from judge.llm.report import SemanticReport
from judge.models import ExecutionEvidence

__all__ = ["Finding", "StageReport", "Verdict"]

Severity = Literal["reject", "signal"]
StageName = Literal["contract", "rules", "semantic"]
StageStatus = Literal["passed", "rejected", "skipped", "error"]


class Finding(BaseModel):
    """One thing a stage found. A ``reject`` finding fails the step; a ``signal`` only informs."""

    model_config = ConfigDict(frozen=True)

    rule: str = Field(description="Stable rule id, e.g. undeclared_file.")
    message: str = Field(description="What is wrong and what to do, fit to send back to the executor.")
    severity: Severity = "reject"
    stage: StageName = "rules"
    files: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        return f"{self.rule}: {self.message}"


class StageReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    stage: StageName
    status: StageStatus
    detail: str = ""
    duration_ms: float = 0.0


class Verdict(BaseModel):
    """Everything judge decided about one step; ``contract()`` is what an orchestrator consumes."""

    model_config = ConfigDict(frozen=True)

    valid: bool
    reason: str
    rule: Optional[str] = Field(default=None, description="The deciding finding's rule id; None when valid.")
    findings: tuple[Finding, ...] = ()
    stages: tuple[StageReport, ...] = ()
    judge_version: str = ""
    semantic_review: Optional[SemanticReport] = Field(
        default=None, description="Model, prompt hash, samples, calls, tokens and cost when the LLM stage ran."
    )
    evidence_method: Optional[Literal["file_changes", "evidence_file", "expects_no_changes", "none"]] = Field(
        default=None, description="How the step proved it worked, from its workspace; None when no repository was given."
    )
    execution_evidence: tuple[ExecutionEvidence, ...] = Field(
        default=(), description="The execution evidence records attached to this validation, as given."
    )

    def contract(self) -> dict:
        """The strict output, exactly ``{"valid": bool, "reason": str}``."""
        return {"valid": self.valid, "reason": self.reason}

    @property
    def signals(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "signal")

    @property
    def semantic(self) -> StageReport | None:
        return next((s for s in self.stages if s.stage == "semantic"), None)
