"""Command line: `judge validate` for one step, `judge eval` for a labelled set.

Exit codes: 0 valid (or eval ran), 1 invalid, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from judge.errors import InputError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"judge: {message} (see `{self.prog} --help`)\n")
        sys.exit(2)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
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
    check.set_defaults(run=_validate)

    evaluate = commands.add_parser("eval", help="run a labelled .jsonl eval set and report metrics")
    evaluate.add_argument("cases", metavar="FILE.jsonl", help="one eval case per line (schemas/eval-case.schema.json)")
    evaluate.add_argument("--out", metavar="FILE", default="eval-metrics.json", help="metrics JSON to write")
    evaluate.set_defaults(run=_eval)
    return parser


def _validate(args: argparse.Namespace) -> int:
    if args.step == "-" and args.result == "-":
        raise InputError("--step and --result cannot both read stdin; give one of them as a file")
    from judge.inputs import read_json
    from judge.pipeline import validate

    step = read_json(args.step, "--step")
    result = read_json(args.result, "--result")
    verdict = validate(step, result)
    _write_stdout(json.dumps(verdict.contract(), ensure_ascii=False) + "\n")
    if args.explain:
        from judge.explain import render_explanation

        sys.stderr.write(render_explanation(verdict) + "\n")
    return 0 if verdict.valid else 1


def _eval(args: argparse.Namespace) -> int:
    from judge.eval.metrics import compute_metrics
    from judge.eval.report import render_text
    from judge.eval.runner import run_eval

    out = Path(args.out)
    if args.cases != "-" and out.resolve() == Path(args.cases).resolve():
        raise InputError(f"--out {args.out}: is the eval set itself; choose another file")
    outcomes, bad = run_eval(args.cases)
    metrics = compute_metrics(outcomes)
    report = {
        "source": args.cases,
        "metrics": metrics.to_json(),
        "badLines": [{"line": b.line, "problem": b.problem} for b in bad],
        "cases": [
            {"id": o.case_id, "expectedValid": o.expected_valid, "expectedRule": o.expected_rule,
             "valid": o.got_valid, "rule": o.got_rule, "reason": o.reason}
            for o in outcomes
        ],
    }
    try:
        out.write_bytes(_utf8(json.dumps(report, indent=2, ensure_ascii=False) + "\n"))
    except OSError as exc:
        raise InputError(f"--out {args.out}: cannot write it ({exc.strerror or exc})") from None
    _write_stdout(render_text(metrics, outcomes, bad) + f"\n\nmetrics written to {out}\n")
    return 2 if bad else 0


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
