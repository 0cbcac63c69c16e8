"""The eval report, typed: each judged case (CaseRecord), the lines that could not run, the run's metadata, EvalReport."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.eval.metrics import Metrics

__all__ = ["BadLine", "CaseInputs", "CaseRecord", "EvalReport", "GATE_STATUSES", "REPORT_VERSION", "RunMeta"]

REPORT_VERSION = 1
GATE_STATUSES = ("passed", "failed", "pending", "skipped")  # judge.verdict.GateStatus, in the order reports count


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
    # Each gate's result in evaluation order (judge.verdict.GateResult as JSON), and seed 004's outcome in camelCase
    # (accepted, missingFields, rejectionReasons, nextAction); None in a report written before gates existed.
    gates: tuple[dict[str, Any], ...] = ()
    outcome: dict[str, Any] | None = None

    @property
    def correct(self) -> bool:
        return self.expected_valid == self.valid

    @property
    def rule_correct(self) -> bool:
        """Right verdict and, for an expected rejection with a rule, the same rule id: the one test of "judged right"."""
        return self.correct and (self.expected_valid or self.expected_rule in (None, self.rule))

    @property
    def gate_statuses(self) -> dict[str, int]:
        """How many of the case's gates passed, failed, are pending or were skipped (only the statuses seen)."""
        counts: dict[str, int] = {}
        for gate in self.gates:
            status = str(gate.get("status"))
            counts[status] = counts.get(status, 0) + 1
        return counts

    @property
    def expected_text(self) -> str:
        if self.expected_valid:
            return "valid"
        return f"invalid: {self.expected_rule}" if self.expected_rule else "invalid"

    @property
    def got_text(self) -> str:
        if self.valid:
            return "valid"
        return f"invalid: {self.rule}" if self.rule else "invalid"

    def to_json(self) -> dict[str, Any]:
        """camelCase, as every JSON contract of judge (schemas/eval-report.schema.json, `cases`)."""
        return {_CAMEL.get(f.name, f.name): (list(value) if isinstance(value, tuple) else value)
                for f in fields(self) for value in (getattr(self, f.name),)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "CaseRecord":
        values = {name: data[key] for name, key in _FIELD_OF_KEY.items() if key in data}
        values["tags"] = tuple(values.get("tags") or ())
        values["gates"] = tuple(gate for gate in values.get("gates") or () if isinstance(gate, dict))
        if not isinstance(values.get("outcome"), dict):
            values["outcome"] = None
        values.setdefault("inputs_hash", "")  # reports written by hand or by other tools may leave these out
        values.setdefault("decided_by", "rules")
        values.setdefault("expected_rule", None)
        values.setdefault("rule", None)
        values.setdefault("reason", "")
        return cls(**values)


_CAMEL = {
    "case_id": "id", "inputs_hash": "inputsHash", "expected_valid": "expectedValid", "expected_rule": "expectedRule",
    "decided_by": "decidedBy", "llm_calls": "llmCalls", "prompt_tokens": "promptTokens",
    "completion_tokens": "completionTokens", "cost_usd": "costUsd", "latency_ms": "latencyMs",
}
_FIELD_OF_KEY = {f.name: _CAMEL.get(f.name, f.name) for f in fields(CaseRecord)}


@dataclass(frozen=True)
class BadLine:
    """A line of the eval set that could not run, and why."""

    line: int
    problem: str


@dataclass(frozen=True)
class CaseInputs:
    """The step and result of a case judged wrong, kept for the HTML report (a long patch is cut)."""

    id: str
    step: dict
    result: dict


# The run's metadata, in the order the JSON report writes it.
_META_KEYS = ("runId", "source", "setSha256", "setFileSha256", "shard", "judgeVersion", "promptSha256", "settings",
              "seconds", "resumed", "parts")


@dataclass(frozen=True)
class RunMeta:
    run_id: str | None = None
    source: str | None = None
    set_sha256: str | None = None  # over the judged cases' ids and inputs, in file order (a shard's own cases)
    set_file_sha256: str | None = None  # of the whole set file's bytes, labels included: every shard's is the same
    shard: str | None = None
    judge_version: str | None = None
    prompt_sha256: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    seconds: float | None = None
    resumed: int | None = None
    parts: tuple[str, ...] | None = None  # the shard reports a merged report was joined from

    def to_json(self) -> dict[str, Any]:
        values = dict(zip(_META_KEYS, (self.run_id, self.source, self.set_sha256, self.set_file_sha256, self.shard,
                                       self.judge_version, self.prompt_sha256, self.settings, self.seconds,
                                       self.resumed, None if self.parts is None else list(self.parts))))
        if self.parts is None:
            del values["parts"]
        return values

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "RunMeta":
        parts = data.get("parts")
        return cls(data.get("runId"), data.get("source"), data.get("setSha256"), data.get("setFileSha256"),
                   data.get("shard"), data.get("judgeVersion"), data.get("promptSha256"), data.get("settings") or {},
                   data.get("seconds"), data.get("resumed"), None if parts is None else tuple(parts))

    @property
    def model(self) -> str:
        """What judged: the model and its samples, or the rules alone."""
        if not self.settings.get("model") or self.settings.get("semantic") == "off":
            return "no model (contract and rules only)"
        samples = self.settings.get("samples") or 1
        return str(self.settings["model"]) + (f", {samples} samples" if samples > 1 else "")


@dataclass(frozen=True)
class EvalReport:
    """One eval run (or shards merged): what the JSON report holds, and what every renderer, merge and compare read.

    ``stored_metrics``: a report read back from JSON keeps the metrics it was written with, so a report
    from before a metric existed reads as n/a for it; a fresh one computes its metrics once, from its records.
    """

    meta: RunMeta
    records: tuple[CaseRecord, ...]
    bad_lines: tuple[BadLine, ...] = ()
    wrong_inputs: tuple[CaseInputs, ...] | None = None  # None: not kept (a merged report)
    stored_metrics: dict[str, Any] | None = None

    @cached_property
    def metrics(self) -> "Metrics":
        from judge.eval.metrics import compute_metrics, llm_options

        return compute_metrics(self.records, **llm_options(self.meta.settings))

    @cached_property
    def metrics_json(self) -> dict[str, Any]:
        return self.stored_metrics if self.stored_metrics is not None else self.metrics.to_json()

    @property
    def gated(self) -> tuple[CaseRecord, ...]:
        """The cases whose verdict carries gate results, in report order."""
        return tuple(record for record in self.records if record.gates)

    def gate_statuses(self) -> dict[str, int]:
        """Every gate result of the run counted by status, in the order passed, failed, pending, skipped (then any
        other a hand-edited report holds)."""
        counts: dict[str, int] = {}
        for record in self.records:
            for status, count in record.gate_statuses.items():
                counts[status] = counts.get(status, 0) + count
        order = {status: i for i, status in enumerate(GATE_STATUSES)}
        return dict(sorted(counts.items(), key=lambda item: (order.get(item[0], len(order)), item[0])))

    @property
    def wrong(self) -> tuple[CaseRecord, ...]:
        return tuple(record for record in self.records if not record.rule_correct)

    def to_json(self) -> dict[str, Any]:
        """camelCase, schemas/eval-report.schema.json."""
        report = {
            "reportVersion": REPORT_VERSION,
            **self.meta.to_json(),
            "metrics": self.metrics_json,
            "badLines": [{"line": b.line, "problem": b.problem} for b in self.bad_lines],
            "cases": [record.to_json() for record in self.records],
        }
        if self.wrong_inputs is not None:
            report["wrong"] = [{"id": w.id, "step": w.step, "result": w.result} for w in self.wrong_inputs]
        return report

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "EvalReport":
        wrong = data.get("wrong")
        return cls(
            meta=RunMeta.from_json(data),
            records=tuple(CaseRecord.from_json(case) for case in data.get("cases") or ()),
            bad_lines=tuple(BadLine(b["line"], b["problem"]) for b in data.get("badLines") or ()),
            wrong_inputs=None if wrong is None else tuple(CaseInputs(w["id"], w.get("step") or {}, w.get("result") or {})
                                                          for w in wrong),
            stored_metrics=data.get("metrics"),
        )
