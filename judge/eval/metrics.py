"""Metrics of an eval run. The positive class is "reject": judge exists to catch bad steps."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from judge.eval.record import CaseRecord

__all__ = ["Metrics", "RuleRow", "compute_metrics"]


@dataclass(frozen=True)
class RuleRow:
    """One expected rule: how many cases, how many rejected, how many with this very rule id."""

    rule: str
    cases: int
    rejected: int
    right_rule: int
    found: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Metrics:
    cases: int
    true_reject: int  # expected invalid, judged invalid
    false_accept: int  # expected invalid, judged valid: the costliest error
    true_accept: int
    false_reject: int
    rule_attribution: float  # among expected-invalid cases with a rule, share judged with that rule
    rules: tuple[RuleRow, ...]

    @property
    def accuracy(self) -> float:
        return _ratio(self.true_reject + self.true_accept, self.cases)

    @property
    def false_accept_rate(self) -> float:
        return _ratio(self.false_accept, self.false_accept + self.true_reject)

    @property
    def false_reject_rate(self) -> float:
        return _ratio(self.false_reject, self.false_reject + self.true_accept)

    @property
    def precision(self) -> float:
        return _ratio(self.true_reject, self.true_reject + self.false_reject)

    @property
    def recall(self) -> float:
        return _ratio(self.true_reject, self.true_reject + self.false_accept)

    def to_json(self) -> dict:
        return {
            "cases": self.cases,
            "confusion": {
                "expectedInvalid": {"judgedInvalid": self.true_reject, "judgedValid": self.false_accept},
                "expectedValid": {"judgedInvalid": self.false_reject, "judgedValid": self.true_accept},
            },
            "accuracy": round(self.accuracy, 6),
            "precisionReject": round(self.precision, 6),
            "recallReject": round(self.recall, 6),
            "falseAcceptRate": round(self.false_accept_rate, 6),
            "falseRejectRate": round(self.false_reject_rate, 6),
            "ruleAttribution": round(self.rule_attribution, 6),
            "rules": [
                {"rule": r.rule, "cases": r.cases, "rejected": r.rejected, "rightRule": r.right_rule, "found": r.found}
                for r in self.rules
            ],
        }


def compute_metrics(outcomes: list[CaseRecord]) -> Metrics:
    counts = Counter((o.expected_valid, o.valid) for o in outcomes)
    by_rule: dict[str, list[CaseRecord]] = defaultdict(list)
    for outcome in outcomes:
        by_rule[outcome.expected_rule or ("(valid)" if outcome.expected_valid else "(any)")].append(outcome)
    rows = tuple(
        RuleRow(
            rule=rule,
            cases=len(group),
            rejected=sum(not o.valid for o in group),
            right_rule=sum(o.rule_correct for o in group),
            found=dict(sorted(Counter(o.rule or "(valid)" for o in group).items())),
        )
        for rule, group in sorted(by_rule.items())
    )
    labelled = [o for o in outcomes if not o.expected_valid and o.expected_rule]
    return Metrics(
        cases=len(outcomes),
        true_reject=counts[(False, False)],
        false_accept=counts[(False, True)],
        true_accept=counts[(True, True)],
        false_reject=counts[(True, False)],
        rule_attribution=_ratio(sum(o.rule_correct for o in labelled), len(labelled)),
        rules=rows,
    )


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0
