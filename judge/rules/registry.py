"""The deterministic rules in the order they decide: the first reject finding is the verdict.

The order puts the cheapest, least ambiguous facts first: what the result says
about itself, then whether its patch can be read at all, then whether its paths
are safe, then whether its claims agree with its patch, then whether they agree
with the workspace (git, evidence file, ledger, command runs: only when the caller
gives them), then scope, then impact.
"""

from __future__ import annotations

from importlib import import_module
from typing import Callable, Iterator

from judge.context import StepContext
from judge.errors import CheckFailed
from judge.findings import Finding

__all__ = ["RULES", "Rule", "run_rules"]

Rule = Callable[[StepContext], Iterator[Finding]]


class _Rule:
    """A rule named by its module and function, imported when it first runs: importing the registry (the pipeline
    does, for every interface) loads no rule module, and a run loads each once."""

    __slots__ = ("module", "__name__", "_function")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.__name__ = module, name
        self._function: Rule | None = None

    def __call__(self, ctx: StepContext) -> Iterator[Finding]:
        function = self._function
        if function is None:
            function = self._function = getattr(import_module(self.module), self.__name__)
        return function(ctx)

    def __repr__(self) -> str:
        return f"<rule {self.module}.{self.__name__}>"


RULES: tuple[Rule, ...] = (
    _Rule("judge.rules.mode", "invalid_mode"),
    _Rule("judge.rules.mode", "mode_mismatch"),
    _Rule("judge.rules.success_flag", "failure_with_patch"),
    _Rule("judge.rules.success_flag", "failure_without_summary"),
    _Rule("judge.rules.judge_manipulation", "judge_manipulation"),
    _Rule("judge.rules.success_flag", "missing_patch"),
    _Rule("judge.rules.success_flag", "missing_files_written"),
    _Rule("judge.rules.malformed_patch", "malformed_patch"),
    _Rule("judge.rules.unsafe_path", "unsafe_path"),
    _Rule("judge.rules.declarations", "undeclared_file"),
    _Rule("judge.rules.declarations", "file_not_in_patch"),
    _Rule("judge.rules.declarations", "files_touched_incomplete"),
    _Rule("judge.rules.workspace", "changed_but_unclaimed"),
    _Rule("judge.rules.workspace", "claimed_but_unchanged"),
    _Rule("judge.rules.workspace", "patch_does_not_apply"),
    _Rule("judge.rules.workspace", "patch_mismatch"),
    _Rule("judge.rules.workspace", "head_not_judged"),
    _Rule("judge.rules.workspace", "ignored_code"),
    _Rule("judge.rules.workspace", "evidence_file_invalid"),
    _Rule("judge.rules.workspace", "no_work_evidence"),
    _Rule("judge.rules.workspace", "ledger_missing_operation"),
    _Rule("judge.rules.workspace", "ledger_corrupt"),
    _Rule("judge.rules.execution_records", "execution_evidence_invalid"),
    _Rule("judge.rules.execution_records", "execution_failed"),
    _Rule("judge.rules.scope", "scope_excluded"),
    _Rule("judge.rules.scope", "scope_outside_allowed"),
    _Rule("judge.rules.scope", "scope_fix_regression"),
    _Rule("judge.rules.junk_files", "junk_files"),
    _Rule("judge.rules.tests_weakened.by_edits", "tests_weakened"),
    _Rule("judge.rules.tests_weakened.by_collection", "tests_weakened"),
    _Rule("judge.rules.stub_or_disabled_code", "stub_or_disabled_code"),
    _Rule("judge.rules.reversal", "reversal"),
    _Rule("judge.rules.placeholder_only", "placeholder_only"),
    _Rule("judge.rules.superficial_only", "superficial_only"),
    _Rule("judge.rules.signals.only_new_scripts", "only_new_scripts"),
    _Rule("judge.rules.signals.only_test_files", "only_test_files"),
    _Rule("judge.rules.signals.checks_suppressed", "checks_suppressed"),
    _Rule("judge.rules.signals.gates_lowered", "gates_lowered"),
    _Rule("judge.rules.signals.exception_swallowed", "exception_swallowed"),
    _Rule("judge.rules.signals.unused_function", "unused_function"),
    _Rule("judge.rules.signals.guard_never_true", "guard_never_true"),
    _Rule("judge.rules.signals.special_cased_input", "special_cased_input"),
)


def run_rules(ctx: StepContext, rules: tuple[Rule, ...] = RULES) -> tuple[Finding, ...]:
    """Every finding of every rule, in registry order; CheckFailed naming the rule that raised."""
    findings: list[Finding] = []
    for rule in rules:
        try:
            # a registered rule's function once imported, called without the frame of _Rule.__call__
            findings.extend((getattr(rule, "_function", None) or rule)(ctx))
        except Exception as exc:
            module = getattr(rule, "module", rule.__module__).rpartition(".")[2]  # two may share an id: say which
            raise CheckFailed("rule", rule.__name__ if module == rule.__name__ else f"{rule.__name__} ({module})") \
                from exc
    return tuple(findings)
