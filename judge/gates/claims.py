"""Evidence gates (seed 004, 12, 15 and 16): the criteria checklist is complete; the tests and lint the evidence
claims passed are each backed by a verified execution record of exactly that command, and a tests claim only by a
record of a test command (policy test_commands)."""

from __future__ import annotations

import fnmatch
import os
import re
import shlex

from judge import rule_ids as ids
from judge.gates.context import GateCheck, GateContext
from judge.gates.spec import SpecGate
from judge.gates.truth import backing, record_trust, run_hint
from judge.runs.observe import CLASS_MEANING, ENVIRONMENT_CLASSES, NOT_RETRYABLE_CLASSES, failure_class

__all__ = ["criteria_checklist_complete", "is_test_command", "lint_passed", "tests_passed"]


def criteria_checklist_complete(g: GateContext, spec: SpecGate) -> GateCheck:
    criteria = g.spec.criteria
    if not criteria:  # criteria the agent lists itself would be checked against nothing but its own word
        return GateCheck(False, "the step (and its template) defines no criteria in evidenceSchema.criteriaChecklist, "
                                "so there is nothing to check: give the step its criteria", retryable=False)
    checklist = dict(g.evidence.criteria_checklist or {}) if g.evidence else {}
    open_items = [key for key in criteria if checklist.get(key) is not True]
    if open_items:
        shown = "; ".join(f"{key} ({criteria[key][:80]}): {'false' if key in checklist else 'missing'}"
                          for key in open_items[:10])
        return GateCheck(False, f"{len(open_items)} of {len(criteria)} criteria are not marked true in "
                                f"criteria_checklist — {shown}; meet each criterion and mark it true")
    return GateCheck.ok(f"all {len(criteria)} criteria are marked true")


def tests_passed(g: GateContext, spec: SpecGate) -> GateCheck:
    commands = tuple(g.evidence.tests_run or ()) if g.evidence else ()
    return _claimed(g, "tests", "run the tests, make them pass", commands)


def lint_passed(g: GateContext, spec: SpecGate) -> GateCheck:
    lint_run = g.evidence.lint_run if g.evidence else None
    return _claimed(g, "lint", "run the linter, fix what it reports", lint_run if isinstance(lint_run, tuple) else ())


def _claimed(g: GateContext, kind: str, todo: str, commands: tuple[str, ...]) -> GateCheck:
    """The evidence must say ``<kind>_passed: true``, and each of ``commands`` must back it."""
    field = f"{kind}_passed"
    said = getattr(g.evidence, field) if g.evidence else None
    if said is not True:
        found = "there is no evidence document" if g.evidence is None else f"the evidence says {field}: {_json(said)}"
        return GateCheck(False, f"{found}; {todo}, and report {field}: true with the commands in {kind}_run and "
                                "commands_run")
    return _backed(g, kind, commands)


def _backed(g: GateContext, kind: str, commands: tuple[str, ...]) -> GateCheck:
    """Each claimed command must be in commands_run and backed by a verified record with exit 0."""
    field = f"{kind}_run"
    if not commands:
        return GateCheck(False, f"{kind}_passed is true but {field} names no command, so nothing backs the claim; "
                                f"list the exact {kind} commands in {field} and commands_run", rule=ids.UNVERIFIABLE_CLAIM)
    listed = tuple(g.evidence.commands_run or ()) if g.evidence else ()
    step_id, trust = g.step.step.id, record_trust(g)
    patterns = g.spec.policies.test_commands
    other = next((command for command in commands if not is_test_command(command, patterns)), None)
    if kind == "tests" and other is not None:
        return GateCheck(False, f"tests_passed is true but `{other[:160]}` in tests_run is not a test command (it "
                                "matches no pattern of policy test_commands), so its record backs no tests claim; "
                                "list the commands that ran the tests in tests_run, or add a pattern for the test "
                                "runner to test_commands", rule=ids.UNVERIFIABLE_CLAIM)
    for command in commands:
        found = backing(command, g.records, trust, commands_run=listed)
        if found.failure is not None:
            kind_of = failure_class(found.failure)
            environment = kind_of in ENVIRONMENT_CLASSES
            advice = CLASS_MEANING.get(kind_of, "") if environment else f"the {kind} claim is false: make them pass"
            return GateCheck(False, f"{kind}_passed is true but {found.problem}; {advice}",
                             retryable=kind_of not in NOT_RETRYABLE_CLASSES)
        if found.record is None:
            hint = "" if "commands_run" in (found.problem or "") else f": {run_hint(command, step_id, _base(g))}"
            return GateCheck(False, f"{kind}_passed is true but {found.problem}{hint}", rule=ids.UNVERIFIABLE_CLAIM)
    return GateCheck.ok(f"{kind}_passed: each of {len(commands)} command(s) is backed by a verified record with exit 0")


def is_test_command(command: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``command`` runs tests: it matches one of ``patterns`` with its program named by its file name
    (`.venv/bin/pytest -q` as `pytest -q`, `python3.12` as `python`), its words joined by single spaces, and asks
    its runner for nothing but a run (`pytest --version`, `pytest --co`, `mvn -DskipTests test` run no test)."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    if not argv or any(arg in _RUNS_NO_TEST for arg in argv[1:]):
        return False
    program = os.path.basename(argv[0])
    program = "python" if re.fullmatch(r"python[0-9.]*", program) else program  # python3.12 is python
    shown = " ".join([program, *argv[1:]])
    return any(fnmatch.fnmatchcase(shown, pattern) for pattern in patterns)


# Arguments that make a test runner print, list or build instead of running its tests.
_RUNS_NO_TEST = frozenset({
    "--version", "-V", "--help", "-h", "--co", "--collect-only", "--fixtures", "--markers", "--setup-plan",
    "--listTests", "--list-tests", "--list", "-list", "--no-run", "--dry-run", "--showConfig", "--clearCache",
    "-DskipTests", "-DskipTests=true", "-Dmaven.test.skip", "-Dmaven.test.skip=true",
})


def _json(value: object) -> str:
    return {True: "true", False: "false", None: "null"}.get(value, repr(value))  # type: ignore[arg-type]


def _base(g: GateContext) -> str | None:
    """The base `judge run --base` names, when judge knows it (with a workspace)."""
    return g.step.git.base if g.step.git is not None else None
