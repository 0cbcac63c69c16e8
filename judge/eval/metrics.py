"""Metrics of an eval run. The positive class is "reject": judge exists to catch bad steps.

A ratio with an empty denominator is undefined: ``None`` (JSON null), never 0.0, and the headline
metrics say why in ``undefinedMetrics`` (``{"falseAcceptRate": "no case is labelled invalid"}``), which
every renderer shows as "n/a (why)". Nothing here is ever NaN or infinite, so every report is strict JSON.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from judge.eval.report.model import CaseRecord

__all__ = ["HEADLINE", "Kappa", "Metrics", "RuleRow", "RuleStat", "TagRow", "Usage", "cohen_kappa", "compute_metrics",
           "llm_options", "percentile"]

# Stages that decide without a model: a case they decide costs no LLM call even when one is configured.
DETERMINISTIC_STAGES = ("contract", "rules", "gates")
_Z95 = 1.959963984540054  # two-sided 95% quantile of the standard normal

# The headline ratios: JSON key, Metrics property, and why it is undefined when its denominator is empty.
HEADLINE = (
    ("accuracy", "accuracy", "no cases"),
    ("precisionReject", "precision", "judge rejected no case"),
    ("recallReject", "recall", "no case is labelled invalid"),
    ("f1Reject", "f1", "no case is labelled invalid and judge rejected none"),
    ("falseAcceptRate", "false_accept_rate", "no case is labelled invalid"),
    ("falseRejectRate", "false_reject_rate", "no case is labelled valid"),
    ("ruleAttribution", "rule_attribution", "no case labelled invalid names a rule"),
)


@dataclass(frozen=True)
class RuleRow:
    """One expected rule: how many cases, how many rejected, how many with this very rule id."""

    rule: str
    cases: int
    rejected: int
    right_rule: int
    found: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class RuleStat:
    """One rule id, seen from both sides: labelled with it, judged with it, both (same case)."""

    rule: str
    expected: int
    judged: int
    agreed: int

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "expected": self.expected, "judged": self.judged, "agreed": self.agreed,
                "recall": _r(_ratio_or_none(self.agreed, self.expected)),
                "precision": _r(_ratio_or_none(self.agreed, self.judged))}


@dataclass(frozen=True)
class TagRow:
    """One tag: verdicts right (valid/invalid), verdicts right with the right rule, the two kinds of error."""

    tag: str
    cases: int
    correct: int
    right_rule: int
    false_accept: int
    false_reject: int

    def to_json(self) -> dict[str, Any]:
        return {"tag": self.tag, "cases": self.cases, "correct": self.correct, "rightRule": self.right_rule,
                "accuracy": round(_ratio(self.correct, self.cases), 6),
                "ruleAccuracy": round(_ratio(self.right_rule, self.cases), 6),
                "falseAccept": self.false_accept, "falseReject": self.false_reject}


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa between expected and judged validity, with its 95% confidence interval.

    The interval is kappa +/- 1.96 standard errors, clipped to [-1, 1], with the large-sample
    standard error of Fleiss, Cohen & Everitt (1969) (Fleiss, Levin & Paik, *Statistical Methods
    for Rates and Proportions*, 3rd ed., eq. 18.14) — no resampling, so it is deterministic. It is
    an asymptotic interval: with few cases, or at perfect agreement (standard error 0), read it as
    a rough guide. ``undefined`` says why ``value`` is None (no cases; every label one class, where
    kappa is 0 or undefined whatever the judge does).
    """

    value: float | None = None
    standard_error: float | None = None
    low: float | None = None
    high: float | None = None
    undefined: str | None = "no cases"

    def to_json(self) -> dict[str, Any]:
        ci = None
        if self.value is not None:
            ci = {"level": 0.95, "low": _r(self.low), "high": _r(self.high), "standardError": _r(self.standard_error),
                  "method": "fleiss-cohen-everitt-1969"}
        return {"kappa": _r(self.value), "kappaCi": ci, "kappaUndefined": self.undefined}


@dataclass(frozen=True)
class Usage:
    """What the run cost: model calls made and avoided, cache hits, tokens, money, time per case."""

    model_configured: bool = False
    samples: int = 1
    calls_made: int = 0
    calls_saved: int = 0  # samples x cases the contract, rules or gates decided while a model was configured
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None  # None: no case had a price (local model, no model, all cached)
    latency_p50: float | None = None
    latency_p95: float | None = None
    latency_max: float | None = None
    self_agreement: float | None = None  # mean agreement of cases judged with more than one sample
    self_agreement_cases: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "llm": {"modelConfigured": self.model_configured, "samples": self.samples, "callsMade": self.calls_made,
                    "callsSaved": self.calls_saved, "cacheHits": self.cache_hits},
            "latencyMs": {"p50": _r(self.latency_p50), "p95": _r(self.latency_p95), "max": _r(self.latency_max)},
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens,
                       "total": self.prompt_tokens + self.completion_tokens},
            "costUsd": _r(self.cost_usd),
            "selfAgreement": _r(self.self_agreement),
            "selfAgreementCases": self.self_agreement_cases,
        }


@dataclass(frozen=True)
class Metrics:
    cases: int
    true_reject: int  # expected invalid, judged invalid
    false_accept: int  # expected invalid, judged valid: the costliest error
    true_accept: int
    false_reject: int
    rule_attribution: float | None  # among expected-invalid cases with a rule, share judged with that rule
    rules: tuple[RuleRow, ...]
    rule_stats: tuple[RuleStat, ...] = ()
    tags: tuple[TagRow, ...] = ()
    kappa: Kappa = Kappa()
    decided_by: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)  # llm_unavailable / judge_error: undecided cases
    usage: Usage = Usage()

    @property
    def accuracy(self) -> float | None:
        return _ratio_or_none(self.true_reject + self.true_accept, self.cases)

    @property
    def false_accept_rate(self) -> float | None:
        return _ratio_or_none(self.false_accept, self.false_accept + self.true_reject)

    @property
    def false_reject_rate(self) -> float | None:
        return _ratio_or_none(self.false_reject, self.false_reject + self.true_accept)

    @property
    def precision(self) -> float | None:
        return _ratio_or_none(self.true_reject, self.true_reject + self.false_reject)

    @property
    def recall(self) -> float | None:
        return _ratio_or_none(self.true_reject, self.true_reject + self.false_accept)

    @property
    def f1(self) -> float | None:
        return _ratio_or_none(2 * self.true_reject, 2 * self.true_reject + self.false_reject + self.false_accept)

    @property
    def undefined(self) -> dict[str, str]:
        """Each undefined headline metric (JSON key) with why; kappa's reason too."""
        reasons = {key: why for key, attribute, why in HEADLINE if getattr(self, attribute) is None}
        if self.kappa.undefined:
            reasons["kappa"] = self.kappa.undefined
        if self.usage.cost_usd is None:
            reasons["costUsd"] = ("no case had a price: no model was called, the model is local, or every answer "
                                  "was cached")
        return reasons

    def to_json(self) -> dict:
        return {
            "cases": self.cases,
            "confusion": {
                "expectedInvalid": {"judgedInvalid": self.true_reject, "judgedValid": self.false_accept},
                "expectedValid": {"judgedInvalid": self.false_reject, "judgedValid": self.true_accept},
            },
            **{key: _r(getattr(self, attribute)) for key, attribute, _ in HEADLINE},
            **self.kappa.to_json(),
            "undefinedMetrics": self.undefined,
            "rules": [
                {"rule": r.rule, "cases": r.cases, "rejected": r.rejected, "rightRule": r.right_rule, "found": r.found}
                for r in self.rules
            ],
            "ruleStats": [stat.to_json() for stat in self.rule_stats],
            "tags": [row.to_json() for row in self.tags],
            "decidedBy": dict(self.decided_by),
            "errors": dict(self.errors),
            **self.usage.to_json(),
        }


def compute_metrics(outcomes: Iterable[CaseRecord], *, model_configured: bool = False, samples: int = 1) -> Metrics:
    """``model_configured``/``samples``: the run's settings (records do not carry them), for calls saved."""
    outcomes = list(outcomes)
    counts = Counter((o.expected_valid, o.valid) for o in outcomes)
    labelled = [o for o in outcomes if not o.expected_valid and o.expected_rule]
    return Metrics(
        cases=len(outcomes),
        true_reject=counts[(False, False)],
        false_accept=counts[(False, True)],
        true_accept=counts[(True, True)],
        false_reject=counts[(True, False)],
        rule_attribution=_ratio_or_none(sum(o.rule_correct for o in labelled), len(labelled)),
        rules=_rule_rows(outcomes),
        rule_stats=_rule_stats(outcomes),
        tags=_tag_rows(outcomes),
        kappa=cohen_kappa(counts[(False, False)], counts[(False, True)], counts[(True, False)], counts[(True, True)]),
        decided_by=dict(sorted(Counter(o.decided_by for o in outcomes).items())),
        errors=dict(sorted(Counter(o.error for o in outcomes if o.error).items())),
        usage=_usage(outcomes, model_configured, samples),
    )


def llm_options(settings: dict[str, Any] | None) -> dict[str, Any]:
    """compute_metrics' keyword arguments from a report's ``settings`` (JudgeConfig dumped)."""
    settings = settings or {}
    configured = bool(settings.get("model")) and settings.get("semantic", "auto") != "off"
    return {"model_configured": configured, "samples": int(settings.get("samples") or 1)}


def _rule_rows(outcomes: list[CaseRecord]) -> tuple[RuleRow, ...]:
    by_rule: dict[str, list[CaseRecord]] = defaultdict(list)
    for outcome in outcomes:
        by_rule[outcome.expected_rule or ("(valid)" if outcome.expected_valid else "(any)")].append(outcome)
    return tuple(
        RuleRow(
            rule=rule,
            cases=len(group),
            rejected=sum(not o.valid for o in group),
            right_rule=sum(o.rule_correct for o in group),
            found=dict(sorted(Counter(o.rule or "(valid)" for o in group).items())),
        )
        for rule, group in sorted(by_rule.items())
    )


def _rule_stats(outcomes: list[CaseRecord]) -> tuple[RuleStat, ...]:
    expected = Counter(o.expected_rule for o in outcomes if not o.expected_valid and o.expected_rule)
    judged = Counter(o.rule for o in outcomes if not o.valid and o.rule)
    agreed = Counter(o.rule for o in outcomes if not o.expected_valid and not o.valid and o.rule
                     and o.rule == o.expected_rule)
    return tuple(RuleStat(rule, expected[rule], judged[rule], agreed[rule]) for rule in sorted(expected | judged))


def _tag_rows(outcomes: list[CaseRecord]) -> tuple[TagRow, ...]:
    by_tag: dict[str, list[CaseRecord]] = defaultdict(list)
    for outcome in outcomes:
        for tag in dict.fromkeys(outcome.tags):  # a tag listed twice counts the case once
            by_tag[tag].append(outcome)
    return tuple(
        TagRow(
            tag=tag,
            cases=len(group),
            correct=sum(o.correct for o in group),
            right_rule=sum(o.rule_correct for o in group),
            false_accept=sum(not o.expected_valid and o.valid for o in group),
            false_reject=sum(o.expected_valid and not o.valid for o in group),
        )
        for tag, group in sorted(by_tag.items())
    )


def _usage(outcomes: list[CaseRecord], model_configured: bool, samples: int) -> Usage:
    latencies = sorted(o.latency_ms for o in outcomes if math.isfinite(o.latency_ms))
    costs = [o.cost_usd for o in outcomes if o.cost_usd is not None and math.isfinite(o.cost_usd)]
    agreements = [o.agreement for o in outcomes if o.samples > 1 and o.agreement is not None
                  and math.isfinite(o.agreement)]
    deterministic = sum(o.decided_by in DETERMINISTIC_STAGES for o in outcomes)
    return Usage(
        model_configured=model_configured,
        samples=samples,
        calls_made=sum(o.llm_calls for o in outcomes),
        calls_saved=deterministic * samples if model_configured else 0,
        cache_hits=sum(o.cached for o in outcomes),
        prompt_tokens=sum(o.prompt_tokens for o in outcomes),
        completion_tokens=sum(o.completion_tokens for o in outcomes),
        cost_usd=math.fsum(costs) if costs else None,
        latency_p50=percentile(latencies, 0.50),
        latency_p95=percentile(latencies, 0.95),
        latency_max=latencies[-1] if latencies else None,
        self_agreement=math.fsum(agreements) / len(agreements) if agreements else None,
        self_agreement_cases=len(agreements),
    )


def percentile(ordered: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default, Hyndman & Fan type 7); None when empty."""
    if not ordered:
        return None
    position = (len(ordered) - 1) * q
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def cohen_kappa(true_reject: int, false_accept: int, false_reject: int, true_accept: int) -> Kappa:
    """Kappa of the 2x2 table (rows: expected invalid/valid; columns: judged invalid/valid); see Kappa."""
    n = true_reject + false_accept + false_reject + true_accept
    if n == 0:
        return Kappa(undefined="no cases")
    if true_reject + false_accept == 0 or false_reject + true_accept == 0:
        label = "valid" if true_reject + false_accept == 0 else "invalid"
        return Kappa(undefined=f"every case is labelled {label}: kappa needs both classes in the set")
    p = ((true_reject / n, false_accept / n), (false_reject / n, true_accept / n))
    rows = (p[0][0] + p[0][1], p[1][0] + p[1][1])
    cols = (p[0][0] + p[1][0], p[0][1] + p[1][1])
    observed = p[0][0] + p[1][1]
    chance = rows[0] * cols[0] + rows[1] * cols[1]  # < 1: both rows are non-empty
    kappa = (observed - chance) / (1 - chance)
    error = _kappa_standard_error(p, rows, cols, kappa, chance, n)
    return Kappa(value=kappa, standard_error=error, low=max(-1.0, kappa - _Z95 * error),
                 high=min(1.0, kappa + _Z95 * error), undefined=None)


def _kappa_standard_error(p, rows, cols, kappa: float, chance: float, n: int) -> float:
    """Fleiss, Cohen & Everitt (1969): sqrt(A + B - C) / ((1 - p_e) sqrt(n)), with
    A = sum_i p_ii [1 - (p_i. + p_.i)(1 - k)]^2, B = (1 - k)^2 sum_{i != j} p_ij (p_.i + p_j.)^2,
    C = [k - p_e (1 - k)]^2."""
    a = sum(p[i][i] * (1 - (rows[i] + cols[i]) * (1 - kappa)) ** 2 for i in range(2))
    b = (1 - kappa) ** 2 * sum(p[i][j] * (cols[i] + rows[j]) ** 2 for i in range(2) for j in range(2) if i != j)
    c = (kappa - chance * (1 - kappa)) ** 2
    return math.sqrt(max(0.0, a + b - c)) / ((1 - chance) * math.sqrt(n))


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _ratio_or_none(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _r(value: float | None) -> float | None:
    """Six decimals for JSON; None stays None, and a non-finite value (never expected) becomes None."""
    return round(value, 6) if value is not None and math.isfinite(value) else None
