"""The deterministic rules in the order they decide: the first reject finding is the verdict.

The order puts the cheapest, least ambiguous facts first: what the result says
about itself, then whether its patch can be read at all, then whether its paths
are safe, then whether its claims agree with its patch, then whether they agree
with the workspace (git, evidence file, ledger, command runs: only when the caller
gives them), then scope, then impact.
"""

from __future__ import annotations

from typing import Callable, Iterator

from judge.rules import (declarations, execution, impact, junk, mode, outcome, placeholder, reversal, safety, scope,
                         structure, stubs, workspace)
from judge.rules import manipulation, signals
from judge.rules import tampering
from judge.rules import collection
from judge.context import StepContext
from judge.verdict import Finding

__all__ = ["RULES", "Rule", "RuleFailed", "run_rules"]

Rule = Callable[[StepContext], Iterator[Finding]]

RULES: tuple[Rule, ...] = (
    mode.invalid_mode,
    mode.mode_mismatch,
    outcome.failure_with_patch,
    outcome.failure_without_summary,
    manipulation.judge_manipulation,
    outcome.missing_patch,
    outcome.missing_files_written,
    structure.malformed_patch,
    safety.unsafe_path,
    declarations.undeclared_file,
    declarations.file_not_in_patch,
    declarations.files_touched_incomplete,
    workspace.changed_but_unclaimed,
    workspace.claimed_but_unchanged,
    workspace.patch_does_not_apply,
    workspace.patch_mismatch,
    workspace.head_not_judged,
    workspace.ignored_code,
    workspace.evidence_file_invalid,
    workspace.no_work_evidence,
    workspace.ledger_missing_operation,
    workspace.ledger_corrupt,
    execution.execution_evidence_invalid,
    execution.execution_failed,
    scope.scope_excluded,
    scope.scope_outside_allowed,
    scope.scope_fix_regression,
    junk.junk_files,
    tampering.tests_weakened,
    collection.tests_weakened,
    stubs.stub_or_disabled_code,
    reversal.reversal,
    placeholder.placeholder_only,
    impact.superficial_only,
    signals.only_new_scripts,
    signals.only_test_files,
    signals.checks_suppressed,
    signals.gates_lowered,
    signals.exception_swallowed,
    signals.unused_function,
    signals.guard_never_true,
    signals.special_cased_input,
)


class RuleFailed(Exception):
    """A rule raised: judge's own failure, named by the rule (its cause is the exception it raised)."""

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


def run_rules(ctx: StepContext, rules: tuple[Rule, ...] = RULES) -> tuple[Finding, ...]:
    """Every finding of every rule, in registry order; RuleFailed naming the rule that raised."""
    findings: list[Finding] = []
    for rule in rules:
        try:
            findings.extend(rule(ctx))
        except Exception as exc:
            raise RuleFailed(rule.__name__) from exc
    return tuple(findings)
