"""`judge eval`, `judge eval merge`, `judge eval compare`: the flags of the harness; the work is judge/eval/."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from judge.cli.output import flags, write_stdout
from judge.cli.settings import add_model_flags, config_of

__all__ = ["EVAL_SUBCOMMANDS", "add_eval_commands"]

# `judge eval merge ...` is parsed as the command `eval-merge` (judge/cli/main.py rewrites the arguments).
EVAL_SUBCOMMANDS = ("merge", "compare")

_UNDEFINED = """\
A metric with nothing to count on (the false-accept rate of a set with no case labelled invalid, kappa of a set
with one label) is n/a, with the reason, in every report (null in JSON), and fails any threshold set on it."""

_EVAL_EPILOG = f"""\
examples:
  judge eval evals/dev.jsonl --out dev.json --markdown dev.md --junit dev.xml --html dev.html
  judge eval evals/dev.jsonl --model openai/gpt-4o-mini --min-accuracy 0.95 --max-false-accept-rate 0.02
  judge eval evals/dev.jsonl --resume                     # finish the latest run of that file
  judge eval evals/dev.jsonl --shard 2/4 --out part2.json  # then `judge eval merge part*.json --out all.json`

{_UNDEFINED}

exit: 0 every line ran, every case was judged and every threshold is met;
      1 a threshold is not met, or a case ended in llm_unavailable or judge_error (the judge could not decide it;
        --allow-errors accepts that);
      2 bad usage or input (one line on stderr), or lines of the set that could not run (reported, the rest judged)."""

_MERGE_EPILOG = f"""\
The parts must be the reports of every shard 1/N to N/N of one split (`judge eval --shard I/N`), each given once,
of one set file (setFileSha256: its bytes) and judged alike (the settings that change a verdict, the prompt,
judge's version). Anything else is refused, naming the part.

example:
  judge eval merge part1.json part2.json part3.json part4.json --out all.json --markdown all.md --min-accuracy 0.95

{_UNDEFINED}

exit: 0 merged, every case judged and every threshold met; 1 a threshold is not met, or a case ended in
      llm_unavailable or judge_error (unless --allow-errors); 2 bad usage, a part that cannot be merged, or lines
      of the set that could not run."""

_COMPARE_EPILOG = f"""\
Two reports are of the same eval set when they hold the same case ids, each with the same inputs (its inputsHash:
step, result and execution records; labels may differ, and a flipped case whose label changed says so). Reports of
different sets are refused; with --allow-different-sets only the shared cases (same id, same inputs) are compared,
their metrics computed on them alone, and the cases each side has alone are counted. The header shows how each run
judged and what differs: model, semantic mode, prompt, judge version, set file, any other setting.

examples:
  judge eval compare main.json branch.json --markdown compare.md --html compare.html
  judge eval compare main.json branch.json --max-false-accept-rate 0.02    # gate the second report
  judge eval compare old-set.json new-set.json --allow-different-sets

{_UNDEFINED}

exit: 0 compared and every threshold met by RUN_B.json; 1 a threshold is not met; 2 bad usage, an unreadable
      report, or reports of different sets without --allow-different-sets."""


def add_eval_commands(commands: Any) -> None:
    evaluate = commands.add_parser("eval", help="run a labelled .jsonl eval set; `eval merge`, `eval compare`",
                                   epilog=_EVAL_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    evaluate.add_argument("cases", metavar="FILE.jsonl", help="one eval case per line (schemas/eval-case.schema.json)")
    _add_report_flags(evaluate, default_out="eval-metrics.json")
    evaluate.add_argument("--concurrency", type=int, default=8, metavar="N",
                          help="cases with the model at once, over all workers (8)")
    evaluate.add_argument("--workers", type=int, metavar="N",
                          help="worker processes sharing the store, each with its share of --concurrency (default: "
                               "one per core when a model is configured, at most one per 50 cases; else 1)")
    evaluate.add_argument("--store", default=".judge/eval.sqlite", metavar="PATH",
                          help="SQLite file of per-case results (.judge/eval.sqlite)")
    evaluate.add_argument("--run-id", dest="run_id", metavar="ID", help="name of a new run")
    evaluate.add_argument("--resume", nargs="?", const="latest", metavar="RUN_ID",
                          help="finish a run: its stored cases are not judged again (default: the latest run of FILE)")
    evaluate.add_argument("--shard", metavar="I/N", help="judge only shard I of N (stable split by case id)")
    evaluate.add_argument("--cache", default=".judge/cache.sqlite", metavar="PATH", help="verdict cache")
    evaluate.add_argument("--no-cache", dest="no_cache", action="store_true", help="neither read nor write the cache")
    replay = evaluate.add_mutually_exclusive_group()
    replay.add_argument("--record", metavar="DIR", help="record the model traffic into DIR (vcrpy cassette)")
    replay.add_argument("--replay", metavar="DIR", help="judge from traffic recorded with --record, offline")
    add_model_flags(evaluate)
    evaluate.set_defaults(run=_run)

    # no help=: `eval-merge` is how argparse sees `judge eval merge`, not a command of its own to list
    merge = commands.add_parser("eval-merge", prog="judge eval merge",
                                description="join the JSON reports of every shard of one run into one",
                                epilog=_MERGE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    merge.add_argument("parts", nargs="+", metavar="REPORT.json", help="JSON reports of every shard of one set")
    _add_report_flags(merge, default_out=None)
    merge.set_defaults(run=_merge)

    compare = commands.add_parser("eval-compare", prog="judge eval compare",
                                  description="metric deltas and flipped cases of two runs of one set",
                                  epilog=_COMPARE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    compare.add_argument("base", metavar="RUN_A.json", help="the run compared against (e.g. main's)")
    compare.add_argument("head", metavar="RUN_B.json", help="the run compared, and the one thresholds check")
    compare.add_argument("--allow-different-sets", dest="allow_different_sets", action="store_true",
                         help="compare reports of different eval sets on the cases they share (same id, same inputs)")
    compare.add_argument("--markdown", metavar="FILE", help="write the comparison as Markdown")
    compare.add_argument("--html", metavar="FILE", help="write the comparison as one self-contained HTML file")
    _add_threshold_flags(compare, "RUN_B.json's")
    compare.set_defaults(run=_compare)


def _add_report_flags(parser: argparse.ArgumentParser, default_out: str | None) -> None:
    parser.add_argument("--out", metavar="FILE", default=default_out, required=default_out is None,
                        help=(f"JSON report, default {default_out} " if default_out else "JSON report ")
                        + "(schemas/eval-report.schema.json)")
    parser.add_argument("--markdown", metavar="FILE", help="Markdown summary (fits a PR comment)")
    parser.add_argument("--junit", metavar="FILE", help="JUnit XML: one test case per eval case")
    parser.add_argument("--html", metavar="FILE", help="self-contained HTML report")
    parser.add_argument("--allow-errors", dest="allow_errors", action="store_true",
                        help="exit 0 even when cases ended in llm_unavailable or judge_error (the judge could not "
                             "decide them; they still count as rejections in the metrics)")
    _add_threshold_flags(parser, "the run's")


def _add_threshold_flags(parser: argparse.ArgumentParser, whose: str) -> None:
    group = parser.add_argument_group("thresholds (each X from 0 to 1; not met: exit 1; on an n/a metric: not met)")
    group.add_argument("--min-accuracy", dest="min_accuracy", type=_unit, metavar="X",
                       help=f"fail when {whose} accuracy (cases judged valid/invalid as labelled, over all cases) "
                            "is below X")
    group.add_argument("--max-false-accept-rate", dest="max_false_accept_rate", type=_unit, metavar="X",
                       help=f"fail when {whose} false-accept rate (cases labelled invalid that judge accepted, over "
                            "the cases labelled invalid) is above X")
    group.add_argument("--min-kappa", dest="min_kappa", type=_unit, metavar="X",
                       help=f"fail when {whose} Cohen's kappa (expected vs judged validity, beyond chance) is below X")


def _unit(text: str) -> float:
    """A threshold: a finite number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number from 0 to 1")
    return value


def _reports(args: argparse.Namespace):
    from judge.eval.session import Reports

    return Reports(args.out, args.markdown, args.junit, args.html)


def _thresholds(args: argparse.Namespace):
    from judge.eval.session import Thresholds

    return Thresholds(args.min_accuracy, args.max_false_accept_rate, args.min_kappa)


def _run(args: argparse.Namespace) -> int:
    from judge.eval.session import EvalOptions, evaluate

    options = EvalOptions(cases=args.cases, reports=_reports(args), concurrency=args.concurrency, store=args.store,
                          run_id=args.run_id, resume=args.resume, shard=args.shard,
                          cache=None if args.no_cache else args.cache, record=args.record, replay=args.replay,
                          workers=args.workers)
    return _publish(args, evaluate(options, config_of(args)))


def _merge(args: argparse.Namespace) -> int:
    from judge.eval.merge import merge_reports

    return _publish(args, merge_reports(args.parts))


# What each report flag writes, in the order the summary lists them.
_REPORT_KINDS = (("out", "JSON report"), ("markdown", "Markdown"), ("junit", "JUnit XML"), ("html", "HTML"))


def _publish(args: argparse.Namespace, report: Any) -> int:
    """Write the reports and print the summary: what the model did, what could not be decided, every file written.
    Exit 2 when lines could not run; 1 when a case could not be decided (unless --allow-errors) or a threshold is
    not met."""
    from judge.eval.report.text import render_text
    from judge.eval.session import write_reports

    write_reports(report, _reports(args))
    errors = report.metrics.errors  # llm_unavailable / judge_error, by rule
    count, by_rule = sum(errors.values()), ", ".join(f"{rule} {n}" for rule, n in errors.items())
    written = [f"wrote {kind}: {getattr(args, name)}" for name, kind in _REPORT_KINDS if getattr(args, name)]
    undecided = f"{count} ({by_rule})" if errors else "none"
    write_stdout("\n".join([render_text(report), "", _usage_line(report.metrics_json, undecided), *written]) + "\n")
    failed = _report_thresholds(args, report.metrics_json)
    if errors:
        said = (f"judge: {count} case(s) could not be judged ({by_rule}): the judge could not decide them, "
                "and they count as rejections in the metrics")
        sys.stderr.write(said + ("; accepted (--allow-errors)\n" if args.allow_errors else
                                 "; not a pass (exit 1): fix the model or the set, or pass --allow-errors\n"))
    if report.bad_lines:
        return 2
    return 1 if failed or (errors and not args.allow_errors) else 0


def _usage_line(metrics: dict, undecided: str) -> str:
    llm = metrics.get("llm") or {}
    model = (f"LLM calls: {llm.get('callsMade', 0)} made, {llm.get('callsSaved', 0)} saved by the rules"
             if llm.get("modelConfigured") else "LLM calls: 0 (no model configured: contract, rules and gates only)")
    return f"{model}; cache hits: {llm.get('cacheHits', 0)}; could not judge: {undecided}"


def _compare(args: argparse.Namespace) -> int:
    from judge.eval.compare import compare_reports, render_comparison
    from judge.eval.session import load_report, write_file

    base, head = load_report(args.base), load_report(args.head)
    comparison = compare_reports(base, head, allow_different_sets=args.allow_different_sets,
                                 names=(args.base, args.head))
    text = render_comparison(comparison, args.base, args.head)
    if args.markdown:
        write_file(args.markdown, text + "\n", "markdown")
    if args.html:
        from judge.eval.compare_html import render_comparison_html

        write_file(args.html, render_comparison_html(comparison, args.base, args.head), "html")
    write_stdout(text + "\n")
    for kind, path in (("Markdown", args.markdown), ("HTML", args.html)):
        if path:  # on stderr: stdout is the comparison itself, fit to paste into a PR comment
            sys.stderr.write(f"judge: wrote {kind}: {path}\n")
    return 1 if _report_thresholds(args, head.metrics_json) else 0


def _report_thresholds(args: argparse.Namespace, metrics: dict) -> list[str]:
    from judge.eval.session import threshold_failures

    failed = threshold_failures(_thresholds(args), metrics)
    for failure in failed:
        sys.stderr.write(f"judge: threshold not met: {flags(failure)}\n")
    return failed
