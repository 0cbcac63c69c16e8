"""`judge instructions [--step STEP.json]`: the Markdown to put in an executor's prompt — what to return for the step
and how judge will judge it (seed 000's agent instructions addendum)."""

from __future__ import annotations

import argparse
from typing import Any

from judge.cli.output import write_stdout
from judge.errors import InputError

__all__ = ["add_instructions_command"]


def add_instructions_command(commands: Any) -> None:
    instructions = commands.add_parser("instructions", help="print what an executor must return for a step and how "
                                                            "it is judged (Markdown, for its prompt)")
    instructions.add_argument("--step", metavar="FILE", help="the step JSON (- for stdin); without it, the "
                                                             "instructions for any step")
    instructions.add_argument("--templates", dest="templates_dir", metavar="DIR",
                              help="where step templates are (default: templates in judge's state directory, or "
                                   "templates_dir in judge.toml)")
    instructions.set_defaults(run=_instructions)


def _instructions(args: argparse.Namespace) -> int:
    """Exit 0 with the Markdown on stdout; 2 when the step cannot be read or breaks its schema."""
    from judge.config import load_config
    from judge.contract.jsonio import read_json
    from judge.errors import ContractViolation
    from judge.instructions import render_instructions

    config = load_config({"templates_dir": args.templates_dir})
    step = read_json(args.step, "--step") if args.step is not None else None
    try:
        text = render_instructions(step, config=config)
    except ContractViolation as violation:
        raise InputError(f"--step {args.step}: breaks schemas/{violation.schema} at {violation.path}: "
                         f"{violation.problem}") from None
    write_stdout(text)
    return 0
