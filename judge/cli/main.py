"""`judge`: the console script and its sub-commands — `validate` one step, `eval` a labelled set, `run` a command,
`approve` a step as a human, `report` the recorded runs as an Execution Evidence table, `drive` an executor
until its result is valid, `instructions` for an executor's prompt, `mcp` to serve judge to MCP hosts over stdio,
`serve` the pipeline over HTTP.

Exit codes: 0 valid (or eval ran, the run succeeded, the approval was recorded, the report or instructions were
written, the drive's step was accepted, the MCP server's client closed it, the HTTP server was stopped with Ctrl-C),
1 invalid (or the run failed, the drive gave up, an eval's threshold was not met or one of its cases could not be
judged), 2 bad usage or unreadable input, 3 (validate) a valid report of a step not done (`success: false`).
Only argparse is imported up front; each command imports what it uses when it runs.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys

from judge.cli.approve import add_approve_command
from judge.cli.drive import add_drive_command
from judge.cli.eval import EVAL_SUBCOMMANDS, add_eval_commands
from judge.cli.instructions import add_instructions_command
from judge.cli.mcp import add_mcp_command
from judge.cli.output import error_line
from judge.cli.report import add_report_command
from judge.cli.run import add_run_command
from judge.cli.serve import add_serve_command
from judge.cli.validate import add_validate_command
from judge.errors import InputError

__all__ = ["entry", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"judge: {message} (see `{self.prog} --help`)\n")
        sys.exit(2)


def entry() -> None:
    """The `judge` console script: main(), then exit without tearing down litellm's objects one by one
    (a collector pass at exit costs ~1 s once litellm is loaded)."""
    code = main()
    gc.freeze()
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # pydantic scans every installed distribution's entry points for plugins on first use (~30 ms);
    # judge's own models use none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) >= 2 and argv[0] == "eval" and argv[1] in EVAL_SUBCOMMANDS:
        # argparse cannot give `eval` both a FILE positional and sub-commands: `eval merge` is parsed as `eval-merge`.
        argv = [f"eval-{argv[1]}", *argv[2:]]
    parser = _build_parser(only=argv[0] if argv else "")
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # word it from the command's own parser, so the hint names that command's --help
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return args.run(args)
    except InputError as exc:
        sys.stderr.write(error_line(exc))
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("judge: interrupted\n")
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): nothing left to say
        sys.stderr.close()
        return 2
    except Exception as exc:  # a bug in judge: still one line and "not valid", never a traceback
        sys.stderr.write(f"judge: internal error ({type(exc).__name__}: {str(exc)[:200]}); please report it\n")
        return 2


_EPILOG = """\
examples:
  judge validate --step step.json --result result.json            # {"valid": ..., "reason": ...}
  judge validate --step step.json --result result.json --repo . --base "$(git rev-parse HEAD)" --explain
  judge eval evals/dev.jsonl --model openai/gpt-4o-mini --min-accuracy 0.9
  judge drive --step step.json --max-attempts 3 -- python my_agent.py
  judge serve --port 8765                                           # HTTP: POST /v1/validate
  judge COMMAND --help                                              # each command's flags, examples, exit codes

exit codes: 0 valid / done; 1 invalid, not accepted, or a threshold not met; 2 bad usage or unreadable input
(one line on stderr); 3 (validate) a valid report of a step not done (success: false)."""


def _build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``only``, the flags of that command alone (the one being run): the others get
    their name and help line, all that `judge --help` and an unknown command's error show of them. Building the
    ~200 flags of every command was a third of `judge --help`'s time."""
    from judge.version import __version__

    parser = _Parser(prog="judge", description="Decide whether a coding agent really did its plan step.",
                     epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"judge {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")
    adders = commands if only is None else _NamesOnly(commands, only)
    add_validate_command(adders)
    add_eval_commands(adders)
    add_run_command(adders)
    add_approve_command(adders)
    add_report_command(adders)
    add_drive_command(adders)
    add_instructions_command(adders)
    add_mcp_command(adders)
    add_serve_command(adders)
    return parser


class _NamesOnly:
    """The sub-commands as a command's adder sees them: command ``only`` is built in full; any other gets its name
    and help line, and the flags its adder gives it go nowhere (nothing parses with that parser)."""

    def __init__(self, commands: argparse._SubParsersAction, only: str) -> None:
        self._commands, self._only = commands, only

    def add_parser(self, name: str, **kwargs: object) -> object:
        if name == self._only:
            return self._commands.add_parser(name, **kwargs)  # type: ignore[arg-type]
        listed = {key: kwargs[key] for key in ("help", "prog") if key in kwargs}
        self._commands.add_parser(name, **listed)  # type: ignore[arg-type]
        return _Unbuilt()


class _Unbuilt:
    """A command parser that is not built: it takes its flags, groups and defaults and keeps none of them."""

    def add_argument(self, *args: object, **kwargs: object) -> None:
        return None

    def add_argument_group(self, *args: object, **kwargs: object) -> "_Unbuilt":
        return self

    def add_mutually_exclusive_group(self, *args: object, **kwargs: object) -> "_Unbuilt":
        return self

    def set_defaults(self, **kwargs: object) -> None:
        return None


if __name__ == "__main__":  # python -m judge.cli.main, where the console script is not installed
    entry()
