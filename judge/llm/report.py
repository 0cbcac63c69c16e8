"""What the semantic stage records on a Verdict: model, prompt hash, every sample and call, tokens, cost."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict

__all__ = ["CallRecord", "SampleRecord", "SemanticReport"]


class CallRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    sample: int
    purpose: Literal["ask", "reask"]
    attempts: int
    latency_ms: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: Optional[float] = None
    error: Optional[str] = None


class SampleRecord(BaseModel):
    """One independent judgement; ``valid`` is None when the model gave no usable answer."""

    model_config = ConfigDict(frozen=True)

    valid: Optional[bool]
    rule: Optional[str] = None
    reason: Optional[str] = None
    error: Optional[str] = None
    raw_replies: tuple[str, ...] = ()


class SemanticReport(BaseModel):
    model_config = ConfigDict(frozen=True)

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
