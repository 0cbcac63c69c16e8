"""Runs every case of an eval set through the validator, keeping bad lines as errors, not crashes."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable

from judge.config import JudgeConfig
from judge.contract import ContractViolation, parse_eval_case
from judge.errors import InputError
from judge.inputs import iter_jsonl
from judge.models import EvalCase
from judge.pipeline import validate

__all__ = ["CaseOutcome", "BadLine", "run_eval", "judge_cases"]


@dataclass(frozen=True)
class CaseOutcome:
    case_id: str
    expected_valid: bool
    expected_rule: str | None
    got_valid: bool
    got_rule: str | None
    reason: str
    tags: tuple[str, ...]
    seconds: float

    @property
    def correct(self) -> bool:
        return self.expected_valid == self.got_valid

    @property
    def rule_correct(self) -> bool:
        return self.correct and (self.expected_valid or self.expected_rule in (None, self.got_rule))


@dataclass(frozen=True)
class BadLine:
    line: int
    problem: str


def run_eval(source: str, config: JudgeConfig | None = None) -> tuple[list[CaseOutcome], list[BadLine]]:
    cases: list[EvalCase] = []
    bad: list[BadLine] = []
    seen: set[str] = set()
    for number, item in iter_jsonl(source, "eval set"):
        if isinstance(item, InputError):
            bad.append(BadLine(number, str(item)))
            continue
        try:
            case = parse_eval_case(item)
        except ContractViolation as exc:
            bad.append(BadLine(number, f"line {number}: {exc}"))
            continue
        if case.id in seen:
            bad.append(BadLine(number, f"line {number}: duplicate case id {case.id!r}"))
            continue
        seen.add(case.id)
        cases.append(case)
    return judge_cases(cases, config), bad


def judge_cases(cases: Iterable[EvalCase], config: JudgeConfig | None = None) -> list[CaseOutcome]:
    outcomes = []
    for case in cases:
        started = time.perf_counter()
        verdict = validate(case.step, case.result, config=config)
        outcomes.append(
            CaseOutcome(
                case_id=case.id,
                expected_valid=case.expected.valid,
                expected_rule=case.expected.rule,
                got_valid=verdict.valid,
                got_rule=verdict.rule,
                reason=verdict.reason,
                tags=case.tags,
                seconds=time.perf_counter() - started,
            )
        )
    return outcomes
