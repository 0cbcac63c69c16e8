"""Command line: `judge validate` for one step, `judge eval` for a labelled set, `judge run` for execution evidence.

Exit codes: 0 valid (or eval ran, or the run succeeded), 1 invalid (or the run failed), 2 bad usage or unreadable input.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from pathlib import Path

from judge.errors import InputError
from judge.eval.commands import EVAL_SUBCOMMANDS, add_eval_commands
from judge.evidence.commands import add_run_command, add_workspace_flags, workspace_inputs

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
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) >= 2 and argv[0] == "eval" and argv[1] in EVAL_SUBCOMMANDS:
        argv = [f"eval-{argv[1]}", *argv[2:]]
    args = _build_parser().parse_args(argv)
    try:
        return args.run(args)
    except InputError as exc:
        sys.stderr.write(f"judge: {exc}\n")
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


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="judge", description="Decide whether a coding agent really did its plan step.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = commands.add_parser("validate", help="judge one executor result; prints {\"valid\", \"reason\"}")
    check.add_argument("--step", required=True, metavar="FILE", help="step spec JSON (- for stdin)")
    check.add_argument("--result", required=True, metavar="FILE", help="executor result JSON (- for stdin)")
    check.add_argument("--explain", action="store_true", help="also print stages and findings to stderr")
    _add_model_flags(check)
    add_workspace_flags(check)
    check.set_defaults(run=_validate)

    add_eval_commands(commands, _add_model_flags, _config, _write_stdout)
    add_run_command(commands)
    return parser


def _add_model_flags(parser: argparse.ArgumentParser) -> None:
    """The semantic stage's settings; each also comes from JUDGE_* variables or judge.toml (flags win)."""
    group = parser.add_argument_group("semantic review (LLM stage)")
    group.add_argument("--semantic", choices=("auto", "required", "off"),
                       help="auto: run when a model is set; required: no answer means invalid; off: never")
    group.add_argument("--model", help="any litellm model string, e.g. openai/gpt-4o-mini or openai/local")
    group.add_argument("--api-base", dest="api_base", metavar="URL", help="OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    group.add_argument("--samples", type=int, metavar="N", help="ask N times; the majority decides")
    group.add_argument("--temperature", type=float)
    group.add_argument("--max-tokens", dest="max_tokens", type=int, metavar="N", help="reply tokens per call")
    group.add_argument("--timeout", type=float, metavar="S", help="seconds per call")
    group.add_argument("--retries", type=int, metavar="N", help="transport retries per call")
    group.add_argument("--token-budget", dest="token_budget", type=int, metavar="N", help="tokens per verdict")
    group.add_argument("--output-mode", dest="output_mode",
                       choices=("auto", "json_schema", "json_object", "grammar", "none"),
                       help="how the reply format is enforced (grammar: llama.cpp servers)")


_MODEL_FLAGS = ("semantic", "model", "api_base", "samples", "temperature", "max_tokens", "timeout", "retries",
                "token_budget", "output_mode")


def _config(args: argparse.Namespace):
    from judge.config import load_config

    return load_config({name: getattr(args, name) for name in _MODEL_FLAGS})


def _validate(args: argparse.Namespace) -> int:
    if args.step == "-" and args.result == "-":
        raise InputError("--step and --result cannot both read stdin; give one of them as a file")
    from judge.inputs import read_json
    from judge.pipeline import validate

    config = _config(args)
    step = read_json(args.step, "--step")
    result = read_json(args.result, "--result")
    workspace, evidence = workspace_inputs(args, step, result)
    verdict = validate(step, result, config=config, workspace=workspace, evidence=evidence)
    _write_stdout(json.dumps(verdict.contract(), ensure_ascii=False) + "\n")
    if args.explain:
        from judge.explain import render_explanation

        sys.stderr.write(render_explanation(verdict) + "\n")
    return 0 if verdict.valid else 1


def _write_stdout(text: str) -> None:
    """JSON is UTF-8 whatever the locale; a lone surrogate from the input becomes its JSON escape."""
    data = _utf8(text)
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (tests, embedding): it takes str
        sys.stdout.write(data.decode("utf-8"))
        return
    sys.stdout.flush()
    buffer.write(data)
    buffer.flush()


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "backslashreplace")
