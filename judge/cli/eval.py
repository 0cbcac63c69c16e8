"""`judge eval`, `judge eval merge`, `judge eval compare`: the flags of the harness; the work is judge/eval/."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from judge.cli.output import flags, write_stdout
from judge.cli.settings import add_model_flags, config_of

__all__ = ["EVAL_SUBCOMMANDS", "add_eval_commands"]

# `judge eval merge ...` is parsed as the command `eval-merge` (judge/cli/main.py rewrites the arguments).
EVAL_SUBCOMMANDS = ("merge", "compare")


def add_eval_commands(commands: Any) -> None:
    evaluate = commands.add_parser("eval", help="run a labelled .jsonl eval set; `eval merge`, `eval compare`")
    evaluate.add_argument("cases", metavar="FILE.jsonl", help="one eval case per line (schemas/eval-case.schema.json)")
    _add_report_flags(evaluate, default_out="eval-metrics.json")
    evaluate.add_argument("--concurrency", type=int, default=8, metavar="N", help="cases judged at once (8)")
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

    merge = commands.add_parser("eval-merge", prog="judge eval merge",
                                help="written `judge eval merge`: join shards' JSON reports into one")
    merge.add_argument("parts", nargs="+", metavar="REPORT.json", help="JSON reports of shards of one set")
    _add_report_flags(merge, default_out=None)
    merge.set_defaults(run=_merge)

    compare = commands.add_parser("eval-compare", prog="judge eval compare",
                                  help="written `judge eval compare`: metric deltas and flipped cases of two runs")
    compare.add_argument("base", metavar="RUN_A.json")
    compare.add_argument("head", metavar="RUN_B.json")
    _add_threshold_flags(compare)
    compare.add_argument("--markdown", metavar="FILE", help="write the comparison as Markdown")
    compare.set_defaults(run=_compare)


def _add_report_flags(parser: argparse.ArgumentParser, default_out: str | None) -> None:
    parser.add_argument("--out", metavar="FILE", default=default_out, required=default_out is None,
                        help="JSON report (schemas/eval-report.schema.json)")
    parser.add_argument("--markdown", metavar="FILE", help="Markdown summary (fits a PR comment)")
    parser.add_argument("--junit", metavar="FILE", help="JUnit XML: one test case per eval case")
    parser.add_argument("--html", metavar="FILE", help="self-contained HTML report")
    _add_threshold_flags(parser)


def _add_threshold_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--min-accuracy", dest="min_accuracy", type=float, metavar="X")
    parser.add_argument("--max-false-accept-rate", dest="max_false_accept_rate", type=float, metavar="X")
    parser.add_argument("--min-kappa", dest="min_kappa", type=float, metavar="X")


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
                          cache=None if args.no_cache else args.cache, record=args.record, replay=args.replay)
    return _publish(args, evaluate(options, config_of(args)))


def _merge(args: argparse.Namespace) -> int:
    from judge.eval.session import merge_reports

    return _publish(args, merge_reports(args.parts))


def _publish(args: argparse.Namespace, report: Any) -> int:
    """Write the reports, print the summary; exit 2 when lines could not run, 1 when a threshold is not met."""
    from judge.eval.report.text import render_text
    from judge.eval.session import write_reports

    write_reports(report, _reports(args))
    write_stdout(render_text(report) + f"\n\nmetrics written to {args.out}\n")
    failed = _report_thresholds(args, report.metrics_json)
    if report.bad_lines:
        return 2
    return 1 if failed else 0


def _compare(args: argparse.Namespace) -> int:
    from judge.eval.compare import compare_reports, render_comparison
    from judge.eval.session import load_report, write_file

    base, head = load_report(args.base), load_report(args.head)
    text = render_comparison(compare_reports(base, head), args.base, args.head)
    write_stdout(text + "\n")
    if args.markdown:
        write_file(args.markdown, text + "\n", "markdown")
    return 1 if _report_thresholds(args, head.metrics_json) else 0


def _report_thresholds(args: argparse.Namespace, metrics: dict) -> list[str]:
    from judge.eval.session import threshold_failures

    failed = threshold_failures(_thresholds(args), metrics)
    for failure in failed:
        sys.stderr.write(f"judge: threshold not met: {flags(failure)}\n")
    return failed
