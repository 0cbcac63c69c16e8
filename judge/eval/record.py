"""What one judged eval case produced: a flat, JSON-ready record that stores, reports and metrics share."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

__all__ = ["CaseRecord"]


@dataclass(frozen=True)
class CaseRecord:
    case_id: str
    inputs_hash: str  # sha256 of the case's canonical step + result (judge.eval.cases.inputs_hash)
    tags: tuple[str, ...]
    expected_valid: bool
    expected_rule: str | None
    valid: bool
    rule: str | None
    reason: str
    decided_by: str  # the stage that decided: contract, rules, semantic; "skipped" when rules passed, no model
    llm_calls: int = 0  # HTTP calls made for this case (0 when cached or decided before the LLM)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float = 0.0
    samples: int = 0
    agreement: float | None = None  # the judge's self-agreement over its samples, when it ran
    error: str | None = None  # llm_unavailable / judge_error: the judge could not decide
    cached: bool = False

    @property
    def correct(self) -> bool:
        return self.expected_valid == self.valid

    @property
    def rule_correct(self) -> bool:
        """Right verdict and, for an expected rejection with a rule, the same rule id."""
        return self.correct and (self.expected_valid or self.expected_rule in (None, self.rule))

    def to_json(self) -> dict[str, Any]:
        """camelCase, as every JSON contract of judge (schemas/eval-report.schema.json, `cases`)."""
        return {_CAMEL.get(f.name, f.name): (list(self.tags) if f.name == "tags" else getattr(self, f.name))
                for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "CaseRecord":
        values = {name: data[key] for name, key in _FIELD_OF_KEY.items() if key in data}
        values["tags"] = tuple(values.get("tags", ()))
        return cls(**values)


_CAMEL = {
    "case_id": "id", "inputs_hash": "inputsHash", "expected_valid": "expectedValid", "expected_rule": "expectedRule",
    "decided_by": "decidedBy", "llm_calls": "llmCalls", "prompt_tokens": "promptTokens",
    "completion_tokens": "completionTokens", "cost_usd": "costUsd", "latency_ms": "latencyMs",
}
_FIELD_OF_KEY = {f.name: _CAMEL.get(f.name, f.name) for f in fields(CaseRecord)}
