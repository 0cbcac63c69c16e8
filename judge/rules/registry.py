"""The deterministic rules in the order they decide: the first reject finding is the verdict.

The order puts the cheapest, least ambiguous facts first: what the result says
about itself, then whether its patch can be read at all, then whether its paths
are safe, then whether its claims agree with its patch, then whether they agree
with the workspace (git, evidence file, ledger, command runs: only when the caller
gives them), then scope, then impact.
"""

from __future__ import annotations

from typing import Callable, Iterator

from judge.rules import (declarations, execution_records, judge_manipulation, junk_files, malformed_patch, mode,
                         placeholder_only, reversal, scope, stub_or_disabled_code, success_flag, superficial_only,
                         unsafe_path, workspace)
from judge.rules.tests_weakened import by_collection, by_edits
from judge.rules.signals import (checks_suppressed, exception_swallowed, gates_lowered, guard_never_true,
                                 only_new_scripts, only_test_files, special_cased_input, unused_function)
from judge.context import StepContext
from judge.errors import CheckFailed
from judge.verdict import Finding

__all__ = ["RULES", "Rule", "run_rules"]

Rule = Callable[[StepContext], Iterator[Finding]]

RULES: tuple[Rule, ...] = (
    mode.invalid_mode,
    mode.mode_mismatch,
    success_flag.failure_with_patch,
    success_flag.failure_without_summary,
    judge_manipulation.judge_manipulation,
    success_flag.missing_patch,
    success_flag.missing_files_written,
    malformed_patch.malformed_patch,
    unsafe_path.unsafe_path,
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
    execution_records.execution_evidence_invalid,
    execution_records.execution_failed,
    scope.scope_excluded,
    scope.scope_outside_allowed,
    scope.scope_fix_regression,
    junk_files.junk_files,
    by_edits.tests_weakened,
    by_collection.tests_weakened,
    stub_or_disabled_code.stub_or_disabled_code,
    reversal.reversal,
    placeholder_only.placeholder_only,
    superficial_only.superficial_only,
    only_new_scripts.only_new_scripts,
    only_test_files.only_test_files,
    checks_suppressed.checks_suppressed,
    gates_lowered.gates_lowered,
    exception_swallowed.exception_swallowed,
    unused_function.unused_function,
    guard_never_true.guard_never_true,
    special_cased_input.special_cased_input,
)


def run_rules(ctx: StepContext, rules: tuple[Rule, ...] = RULES) -> tuple[Finding, ...]:
    """Every finding of every rule, in registry order; CheckFailed naming the rule that raised."""
    findings: list[Finding] = []
    for rule in rules:
        try:
            findings.extend(rule(ctx))
        except Exception as exc:
            module = rule.__module__.rpartition(".")[2]  # two functions may share a rule id: say which one
            raise CheckFailed("rule", rule.__name__ if module == rule.__name__ else f"{rule.__name__} ({module})") \
                from exc
    return tuple(findings)
