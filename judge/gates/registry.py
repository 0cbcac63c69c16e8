"""The gates in the order they are evaluated: evidence and change checks first (cheap, exact), then those that
need a command run (run only when everything before passed), then the human, asked only about work that passed."""

from __future__ import annotations

from typing import Callable

from judge.contract.gates import GATE_TYPES
from judge.gates import changes, claims, commands, files, human, hygiene
from judge.gates.context import GateCheck, GateContext
from judge.gates.spec import SpecGate

__all__ = ["AFTER_COMMANDS", "GATES", "GateFunction", "LAST"]

GateFunction = Callable[[GateContext, SpecGate], GateCheck]  # (Gate is the contract model of a step's gate)

GATES: tuple[GateFunction, ...] = (
    claims.criteria_checklist_complete,
    changes.changed_files_allowlist,
    changes.changed_files_minimum,
    changes.forbid_paths,
    changes.diff_max_lines,
    changes.diff_min_lines,
    files.file_exists,
    files.file_not_exists,
    files.json_schema_valid,
    hygiene.patch_applies_cleanly,
    hygiene.no_uncommitted_changes,
    commands.command_exit_0,  # from here on, the gates read command runs
    commands.command_output_contains,
    commands.command_output_regex,
    claims.tests_passed,
    claims.lint_passed,
    human.human_approval,
)

# The first gate that reads command runs: judge runs the allowed commands only once every gate before it passed.
AFTER_COMMANDS = GATES.index(commands.command_exit_0)
# Asked last, and only when every other gate passed: a person is never asked to approve work that fails a check.
LAST = GATES.index(human.human_approval)

assert sorted(gate.__name__ for gate in GATES) == sorted(GATE_TYPES), "one function per gate type of the contract"
