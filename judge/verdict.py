"""The Verdict: judge's full answer, whose ``contract()`` is the strict {valid, reason}; and what the semantic stage records on it.

Finding, StageReport and Outcome are the pydantic form of judge.findings' plain records, which the stages make.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from judge.contract.models import ExecutionEvidence
from judge.findings import GateStatus, NextAction, Severity, StageName, StageStatus

__all__ = ["CallRecord", "Finding", "GateResult", "NextAction", "Outcome", "SampleRecord", "SemanticReport",
           "StageReport", "Verdict"]

class _Out(BaseModel):
    """judge's output models: frozen, and camelCase in JSON like every contract of judge's (snake_case is read
    too, so verdicts stored before are still read)."""

    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True)


class CallRecord(_Out):

    sample: int
    purpose: Literal["ask", "reask"]
    attempts: int
    latency_ms: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: Optional[float] = None
    error: Optional[str] = None


class SampleRecord(_Out):
    """One independent judgement; ``valid`` is None when the model gave no usable answer."""

    valid: Optional[bool]
    rule: Optional[str] = None
    reason: Optional[str] = None
    error: Optional[str] = None
    raw_replies: tuple[str, ...] = ()


class SemanticReport(_Out):
    model: str
    prompt_version: str
    prompt_sha256: str
    output_mode: str
    patch_reduction: str = ""
    samples: tuple[SampleRecord, ...] = ()
    agreement: float = 0.0
    calls: tuple[CallRecord, ...] = ()

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.calls)

    @property
    def cost_usd(self) -> float | None:
        costs = [c.cost_usd for c in self.calls if c.cost_usd is not None]
        return round(sum(costs), 8) if costs else None


class Finding(_Out):
    """One thing a stage found. A ``reject`` finding fails the step; a ``signal`` only informs."""

    rule: str = Field(description="Stable rule id, e.g. undeclared_file.")
    message: str = Field(description="What is wrong and what to do, fit to send back to the executor.")
    severity: Severity = "reject"
    stage: StageName = "rules"
    files: tuple[str, ...] = ()
    retryable: bool = Field(default=True, description="False when a new attempt by the executor cannot help: the "
                            "environment, the policies or the orchestrator's input must change (next_action diagnose).")

    @property
    def reason(self) -> str:
        return f"{self.rule}: {self.message}"


class StageReport(_Out):
    stage: StageName
    status: StageStatus
    detail: str = ""
    duration_ms: float = 0.0


class GateResult(_Out):
    """One gate's result, in the order gates were evaluated."""

    index: int = Field(description="The gate's position in the effective list: the template's gates, then the step's.")
    type: str
    description: str = ""
    source: Literal["template", "step", "policy", "claim"] = "step"
    status: GateStatus
    rule: Optional[str] = Field(default=None, description="The finding's rule id when the gate did not pass.")
    message: str = ""


class Outcome(_Out):
    """What the orchestrator does next: accepted, what is missing, every rejection, the next action."""

    accepted: bool
    missing_fields: tuple[str, ...] = ()
    rejection_reasons: tuple[str, ...] = ()
    next_action: NextAction


class Verdict(_Out):
    """Everything judge decided about one step; ``contract()`` is what an orchestrator consumes."""

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
        default=(), alias="records",
        description="The execution records of this validation: those attached, as given, then those "
        "judge's command gates made."
    )
    gates: tuple[GateResult, ...] = Field(default=(), description="Each gate's result, in evaluation order.")
    outcome: Optional[Outcome] = Field(default=None,
                                       description="What the orchestrator does next; set on every verdict judge gives.")

    def full_json(self) -> dict:
        """The whole verdict as JSON (camelCase): what `--explain` over HTTP and MCP, and reports, carry."""
        return self.model_dump(mode="json", by_alias=True)

    def contract(self) -> dict:
        """The strict output, exactly ``{"valid": bool, "reason": str}``."""
        return {"valid": self.valid, "reason": self.reason}

    @property
    def signals(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "signal")

    @property
    def semantic(self) -> StageReport | None:
        return next((s for s in self.stages if s.stage == "semantic"), None)
