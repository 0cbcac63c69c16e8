"""`judge eval`, `judge eval merge`, `judge eval compare`: the command-line face of the harness."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

from judge.config import JudgeConfig
from judge.errors import InputError

__all__ = ["add_eval_commands", "EVAL_SUBCOMMANDS"]

# `judge eval merge ...` is parsed as the command `eval-merge` (argparse cannot mix a positional
# FILE with sub-commands); judge.cli rewrites the argument list.
EVAL_SUBCOMMANDS = ("merge", "compare")


def add_eval_commands(commands: Any, add_model_flags: Callable[[argparse.ArgumentParser], None],
                      config_of: Callable[[argparse.Namespace], JudgeConfig],
                      write: Callable[[str], None]) -> None:
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
    evaluate.set_defaults(run=lambda args: _run(args, config_of(args), write))

    merge = commands.add_parser("eval-merge", prog="judge eval merge",
                                help="written `judge eval merge`: join shards' JSON reports into one")
    merge.add_argument("parts", nargs="+", metavar="REPORT.json", help="JSON reports of shards of one set")
    _add_report_flags(merge, default_out=None)
    merge.set_defaults(run=lambda args: _merge(args, write))

    compare = commands.add_parser("eval-compare", prog="judge eval compare",
                                  help="written `judge eval compare`: metric deltas and flipped cases of two runs")
    compare.add_argument("base", metavar="RUN_A.json")
    compare.add_argument("head", metavar="RUN_B.json")
    _add_threshold_flags(compare)
    compare.add_argument("--markdown", metavar="FILE", help="write the comparison as Markdown")
    compare.set_defaults(run=lambda args: _compare(args, write))


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


def _run(args: argparse.Namespace, config: JudgeConfig, write: Callable[[str], None]) -> int:
    from judge.eval.cases import count_cases, parse_shard
    from judge.eval.progress import Progress
    from judge.eval.runner import run_eval

    if args.concurrency < 1:
        raise InputError(f"--concurrency {args.concurrency}: must be at least 1")
    shard = parse_shard(args.shard) if args.shard else None
    with _spooled(args.cases) as source:
        _refuse_overwriting_input(args, source)
        config = _replay_config(args, config)
        store = _open_store(args.store)
        cache = None if args.no_cache or args.record or args.replay else _open_cache(args.cache)
        try:
            run_id = _run_id(args, store, source, config, shard)
            progress = Progress(count_cases(source, shard))
            with _traffic(args, config):
                result = asyncio.run(run_eval(source, config, store=store, run_id=run_id, cache=cache,
                                              concurrency=args.concurrency, shard=shard, progress=progress))
        finally:
            store.close()
            if cache is not None:
                cache.close()
    meta = _meta(args, run_id, config, shard, result)
    return _publish(args, result.records, result.bad_lines, meta, write)


@contextlib.contextmanager
def _spooled(source: str) -> Iterator[str]:
    """stdin is read twice (count, then judge): keep it in a temporary file."""
    if source != "-":
        yield source
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stdin.jsonl"
        with path.open("wb") as handle:
            if sys.stdin is None:
                raise InputError("eval set -: stdin is closed; give a file instead")
            shutil.copyfileobj(sys.stdin.buffer, handle)
        yield str(path)


def _refuse_overwriting_input(args: argparse.Namespace, source: str) -> None:
    """Before any judging: no output may replace the set, and every output must be writable."""
    inputs = {Path(source).resolve()}
    for flag in ("out", "markdown", "junit", "html", "store", "cache"):
        value = getattr(args, flag, None)
        if not value:
            continue
        path = Path(value)
        if path.resolve() in inputs:
            raise InputError(f"--{flag} {value}: is the eval set itself; choose another file")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--{flag} {value}: cannot create its folder ({exc.strerror or exc})") from None
        if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise InputError(f"--{flag} {value}: not writable")


def _open_store(path: str):
    from judge.eval.store import RunStore

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return RunStore(Path(path))


def _open_cache(path: str):
    from judge.eval.cache import VerdictCache

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return VerdictCache(Path(path))


def _settings(config: JudgeConfig) -> dict[str, Any]:
    return config.model_dump(exclude={"api_key"})


def _run_id(args: argparse.Namespace, store: Any, source: str, config: JudgeConfig,
            shard: tuple[int, int] | None) -> str:
    settings = {"settings": _settings(config), "shard": list(shard) if shard else None}
    if args.resume is None:
        return store.new_run(source, settings, args.run_id)
    run_id = store.latest_run(source) if args.resume == "latest" else args.resume
    if run_id is None:
        raise InputError(f"--resume: no earlier run of {args.cases} in {args.store}; start one without --resume")
    stored = store.run_meta(run_id)
    if stored != settings:
        raise InputError(f"--resume {run_id}: that run used other settings or another shard; "
                         "resume it with the same flags, or start a new run")
    return run_id


def _replay_config(args: argparse.Namespace, config: JudgeConfig) -> JudgeConfig:
    """Recorded traffic replays only byte-identical requests: the data fence must be seeded then."""
    if not (args.record or args.replay):
        return config
    directory = Path(args.record or args.replay)
    setup = directory / "recording.json"
    if args.replay:
        if not setup.is_file():
            raise InputError(f"--replay {directory}: no recording.json there; record one with --record")
        recorded = json.loads(setup.read_text(encoding="utf-8"))
        return config.model_copy(update={**recorded, "retries": 0})
    directory.mkdir(parents=True, exist_ok=True)
    config = config.model_copy(update={"fence_seed": config.fence_seed if config.fence_seed is not None else 1})
    setup.write_text(json.dumps(_settings(config), indent=2) + "\n", encoding="utf-8")
    return config


@contextlib.contextmanager
def _traffic(args: argparse.Namespace, config: JudgeConfig) -> Iterator[None]:
    if not (args.record or args.replay):
        yield
        return
    try:
        import vcr
    except ImportError:
        raise InputError("--record/--replay need vcrpy: pip install vcrpy") from None
    recorder = vcr.VCR(record_mode="all" if args.record else "none", match_on=["method", "uri", "body"],
                       filter_headers=["authorization", "api-key", "x-api-key", "openai-organization", "cookie"],
                       decode_compressed_response=True)
    with recorder.use_cassette(str(Path(args.record or args.replay) / "traffic.yaml")):
        yield


def _meta(args: argparse.Namespace, run_id: str, config: JudgeConfig, shard: tuple[int, int] | None,
          result: Any) -> dict[str, Any]:
    from judge.llm.prompt import load_prompt
    from judge.version import __version__

    return {
        "runId": run_id,
        "source": args.cases,
        "setSha256": result.set_sha256,
        "shard": f"{shard[0]}/{shard[1]}" if shard else None,
        "judgeVersion": __version__,
        "promptSha256": load_prompt().sha256,
        "settings": _settings(config),
        "seconds": round(result.seconds, 3),
        "resumed": result.resumed,
    }


def _publish(args: argparse.Namespace, records: Any, bad_lines: Any, meta: dict[str, Any],
             write: Callable[[str], None]) -> int:
    from judge.eval.metrics import compute_metrics, llm_options
    from judge.eval.reports.json_report import build_report
    from judge.eval.reports.text import render_text

    report = build_report(records, bad_lines, meta)
    if getattr(args, "cases", None):
        report["wrong"] = _wrong_inputs(args.cases, report)
    _write_file(args.out, json.dumps(report, indent=2, ensure_ascii=False) + "\n", "--out")
    _write_extra_reports(args, report)
    metrics = compute_metrics(list(records), **llm_options(meta.get("settings")))
    write(render_text(metrics, list(records), list(bad_lines)) + f"\n\nmetrics written to {args.out}\n")
    failed = _threshold_failures(args, report["metrics"])
    for failure in failed:
        sys.stderr.write(f"judge: threshold not met: {failure}\n")
    if bad_lines:
        return 2
    return 1 if failed else 0


# A wrong case's patch is kept in the report up to this size, then cut with a marker.
_MAX_PATCH_IN_REPORT = 200_000


def _wrong_inputs(source: str, report: dict[str, Any]) -> list[dict[str, Any]]:
    """Step and result of every case judged wrong, read again from the set, for the HTML report."""
    from judge.eval.cases import iter_eval_set
    from judge.models import EvalCase

    wrong = {case["id"] for case in report["cases"] if not _rule_correct(case)}
    if not wrong or source == "-" or not Path(source).is_file():
        return []
    found = []
    for item in iter_eval_set(source):
        if isinstance(item, EvalCase) and item.id in wrong:
            result = dict(item.result)
            patch = result.get("patch")
            if isinstance(patch, str) and len(patch) > _MAX_PATCH_IN_REPORT:
                result["patch"] = patch[:_MAX_PATCH_IN_REPORT] + f"\n[judge: patch cut at {_MAX_PATCH_IN_REPORT} characters]"
            found.append({"id": item.id, "step": item.step, "result": result})
    return found


def _rule_correct(case: dict[str, Any]) -> bool:
    if case["expectedValid"] != case["valid"]:
        return False
    return case["expectedValid"] or case.get("expectedRule") in (None, case.get("rule"))


def _write_extra_reports(args: argparse.Namespace, report: dict[str, Any]) -> None:
    renderers = (("markdown", "judge.eval.reports.markdown", "render_markdown"),
                 ("junit", "judge.eval.reports.junit", "render_junit"),
                 ("html", "judge.eval.reports.html", "render_html"))
    for flag, module_name, function in renderers:
        path = getattr(args, flag, None)
        if path:
            module = __import__(module_name, fromlist=[function])
            _write_file(path, getattr(module, function)(report), f"--{flag}")


def _threshold_failures(args: argparse.Namespace, metrics: dict[str, Any]) -> list[str]:
    checks = (("min_accuracy", "accuracy", lambda got, bound: got >= bound),
              ("max_false_accept_rate", "falseAcceptRate", lambda got, bound: got <= bound),
              ("min_kappa", "kappa", lambda got, bound: got >= bound))
    failures = []
    for flag, key, passes in checks:
        bound = getattr(args, flag, None)
        if bound is None:
            continue
        got = metrics.get(key)
        if got is None or not passes(got, bound):
            failures.append(f"{key} {got} (--{flag.replace('_', '-')} {bound})")
    return failures


def _write_file(path: str, text: str, flag: str) -> None:
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(text.encode("utf-8", "backslashreplace"))
    except OSError as exc:
        raise InputError(f"{flag} {path}: cannot write it ({exc.strerror or exc})") from None


def _load_report(path: str) -> dict[str, Any]:
    from judge.inputs import read_json

    report = read_json(path, "report")
    if not isinstance(report, dict) or "cases" not in report:
        raise InputError(f"report {path}: not a judge eval JSON report (no cases)")
    return report


def _merge(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    from judge.eval.cases import BadLine
    from judge.eval.reports.json_report import records_of

    reports = [_load_report(path) for path in args.parts]
    records: dict[str, Any] = {}
    for path, report in zip(args.parts, reports):
        for record in records_of(report):
            if record.case_id in records:
                raise InputError(f"report {path}: case {record.case_id!r} is in two parts; merge shards of one run")
            records[record.case_id] = record
    bad = {(b["line"], b["problem"]) for report in reports for b in report.get("badLines", [])}
    first = reports[0]
    meta = {key: first.get(key) for key in ("source", "judgeVersion", "promptSha256", "settings")}
    meta.update({"runId": "+".join(str(r.get("runId")) for r in reports), "shard": None,
                 "parts": list(args.parts), "seconds": round(sum(r.get("seconds") or 0 for r in reports), 3),
                 "resumed": sum(r.get("resumed") or 0 for r in reports), "setSha256": None})
    ordered = sorted(records.values(), key=lambda r: r.case_id)
    return _publish(args, ordered, [BadLine(line, problem) for line, problem in sorted(bad)], meta, write)


def _compare(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    from judge.eval.compare import compare_reports, render_comparison

    base, head = _load_report(args.base), _load_report(args.head)
    comparison = compare_reports(base, head)
    text = render_comparison(comparison, args.base, args.head)
    write(text + "\n")
    if args.markdown:
        _write_file(args.markdown, text + "\n", "--markdown")
    failed = _threshold_failures(args, head["metrics"])
    for failure in failed:
        sys.stderr.write(f"judge: threshold not met: {failure}\n")
    return 1 if failed else 0
