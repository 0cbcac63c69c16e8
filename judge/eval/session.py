"""One `judge eval` run end to end, and `merge` and `compare`'s inputs: open the store and cache, choose or
resume the run, judge the set, and give back one EvalReport; write reports; check thresholds."""

from __future__ import annotations

import asyncio
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from judge.config import JudgeConfig
from judge.errors import InputError, field_ref
from judge.eval.cases import EvalSet, parse_shard
from judge.eval.progress import Progress
from judge.eval.report.format import undefined_reason
from judge.eval.report.html import render_html
from judge.eval.report.junit import render_junit
from judge.eval.report.markdown import render_markdown
from judge.eval.report.model import EvalReport, RunMeta
from judge.eval.traffic import recorded_settings, settings_of, traffic

__all__ = ["THRESHOLDS", "EvalOptions", "Reports", "Thresholds", "evaluate", "load_report", "threshold_failures",
           "write_reports"]


@dataclass(frozen=True)
class Reports:
    """Where the reports go: the JSON report (``out``) and, when named, Markdown, JUnit XML and HTML."""

    out: str | None = None
    markdown: str | None = None
    junit: str | None = None
    html: str | None = None


# Each threshold: its field, the metric's key in the report, and whether the metric must be at least (min) or at
# most (max) the bound.
THRESHOLDS = (("min_accuracy", "accuracy", "min"), ("max_false_accept_rate", "falseAcceptRate", "max"),
              ("min_kappa", "kappa", "min"))


@dataclass(frozen=True)
class Thresholds:
    """Bounds a run must meet, each from 0 to 1 (InputError otherwise); None: not checked."""

    min_accuracy: float | None = None
    max_false_accept_rate: float | None = None
    min_kappa: float | None = None

    def __post_init__(self) -> None:
        for name, _, _ in THRESHOLDS:
            bound = getattr(self, name)
            if bound is not None and not (isinstance(bound, (int, float)) and math.isfinite(bound)
                                          and 0 <= bound <= 1):
                raise InputError(f"{bound}: must be a number from 0 to 1", field=name)


@dataclass(frozen=True)
class EvalOptions:
    cases: str  # a .jsonl file, or - for stdin
    reports: Reports = field(default_factory=Reports)
    concurrency: int = 8
    store: str = ".judge/eval.sqlite"
    run_id: str | None = None
    resume: str | None = None  # a run id, or "latest": the latest run of the same set
    shard: str | None = None  # "I/N"
    cache: str | None = ".judge/cache.sqlite"  # None: neither read nor write it
    record: str | None = None
    replay: str | None = None
    workers: int | None = None  # worker processes; None: judge.eval.worker_pool.default_workers


def evaluate(options: EvalOptions, config: JudgeConfig) -> EvalReport:
    """Judge the set (resuming a run when asked) and return its report; InputError names the option at fault."""
    from judge.eval.cache import VerdictCache
    from judge.eval.store import RunStore
    from judge.eval.worker_pool import default_workers, run_in_workers

    if options.concurrency < 1:
        raise InputError(f"{options.concurrency}: must be at least 1", field="concurrency")
    _check_workers(options)
    shard = parse_shard(options.shard) if options.shard else None
    _refuse_overwriting_input(options)
    cases = EvalSet(options.cases)
    cases.check_holds_cases()
    set_file_sha256 = cases.file_sha256()
    config = recorded_settings(config, options.record, options.replay)
    store = RunStore(Path(options.store))
    use_cache = options.cache and not (options.record or options.replay)
    cache = None
    try:
        cache = VerdictCache(Path(options.cache)) if use_cache else None  # type: ignore[arg-type]
        run_id = _run_id(options, store, config, shard)
        estimate = cases.line_count()
        progress = Progress(estimate if shard is None else -(-estimate // shard[1]),
                            model_configured=config.semantic_enabled)
        workers = options.workers or (1 if options.record or options.replay else
                                      default_workers(config, estimate, options.concurrency))
        if workers > 1:
            result = run_in_workers(cases, config, store=store, run_id=run_id, cache=cache.path if cache else None,
                                    concurrency=options.concurrency, workers=workers, shard=shard, progress=progress)
        else:
            from judge.eval.runner import run_eval  # the pipeline: a parent of workers does without it

            with traffic(options.record, options.replay):
                result = asyncio.run(run_eval(cases, config, store=store, run_id=run_id, cache=cache,
                                              concurrency=options.concurrency, shard=shard, progress=progress))
        if cache is not None and result.cache_unreadable:
            progress.note(f"cache {cache.path}: {result.cache_unreadable} unreadable entr"
                          f"{'ies' if result.cache_unreadable > 1 else 'y'} treated as misses (judged again, "
                          "rewritten)")
    finally:
        store.close()
        if cache is not None:
            cache.close()
    from judge.llm.prompt import load_prompt
    from judge.version import __version__

    meta = RunMeta(run_id=run_id, source=options.cases, set_sha256=result.set_sha256,
                   set_file_sha256=set_file_sha256, shard=f"{shard[0]}/{shard[1]}" if shard else None,
                   judge_version=__version__, prompt_sha256=load_prompt().sha256, settings=settings_of(config),
                   seconds=round(result.seconds, 3), resumed=result.resumed)
    return EvalReport(meta, result.records, result.bad_lines, result.wrong_inputs)


def _check_workers(options: EvalOptions) -> None:
    if options.workers is None:
        return
    if options.workers < 1:
        raise InputError(f"{options.workers}: must be at least 1", field="workers")
    if options.workers > 1 and (options.record or options.replay):
        raise InputError(f"{options.workers}: {field_ref('record')} and {field_ref('replay')} judge in one process "
                         "(the traffic recorded is this process's); leave it out or set it to 1", field="workers")


def _refuse_overwriting_input(options: EvalOptions) -> None:
    """Before any judging: no output may replace the set, and every output must be writable."""
    inputs = {Path(options.cases).resolve()}
    reports = options.reports
    for name, value in (("out", reports.out), ("markdown", reports.markdown), ("junit", reports.junit),
                        ("html", reports.html), ("store", options.store), ("cache", options.cache)):
        if not value:
            continue
        path = Path(value)
        if path.resolve() in inputs:
            raise InputError(f"{value}: is the eval set itself; choose another file", field=name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"{value}: cannot create its folder ({exc.strerror or exc})", field=name) from None
        if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise InputError(f"{value}: not writable", field=name)


def _run_id(options: EvalOptions, store: Any, config: JudgeConfig, shard: tuple[int, int] | None) -> str:
    settings = {"settings": settings_of(config), "shard": list(shard) if shard else None}
    if options.resume is None:
        return store.new_run(options.cases, settings, options.run_id)
    run_id = store.latest_run(options.cases) if options.resume == "latest" else options.resume
    if run_id is None:
        raise InputError(f": no earlier run of {options.cases} in {options.store}; start one without "
                         f"{field_ref('resume')}", field="resume")
    if store.run_meta(run_id) != settings:
        raise InputError(f"{run_id}: that run used other settings or another shard; "
                         "resume it with the same flags, or start a new run", field="resume")
    return run_id


def load_report(path: str) -> EvalReport:
    from judge.contract.jsonio import read_json

    data = read_json(path, "report")
    if not isinstance(data, dict) or "cases" not in data:
        raise InputError(f"report {path}: not a judge eval JSON report (no cases)")
    return EvalReport.from_json(data)


_RENDERERS: tuple[tuple[str, Callable[[EvalReport], str]], ...] = (
    ("markdown", render_markdown), ("junit", render_junit), ("html", render_html))


def write_reports(report: EvalReport, reports: Reports) -> None:
    """The JSON report to ``out`` and every other report asked for; InputError when one cannot be written."""
    import json

    if reports.out:
        write_file(reports.out, json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n", "out")
    for name, render in _RENDERERS:
        path = getattr(reports, name)
        if path:
            write_file(path, render(report), name)


def write_file(path: str, text: str, field: str) -> None:
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(text.encode("utf-8", "backslashreplace"))
    except OSError as exc:
        raise InputError(f"{path}: cannot write it ({exc.strerror or exc})", field=field) from None


def threshold_failures(thresholds: Thresholds, metrics: dict[str, Any]) -> list[str]:
    """Each threshold not met, worded with the metric's value and the bound (``accuracy 0.9 is below
    min_accuracy 0.95``). An undefined metric (null: a ratio over nothing, kappa of one class) fails its threshold:
    a bound that cannot be checked is not met."""
    failures = []
    for name, key, kind in THRESHOLDS:
        bound = getattr(thresholds, name)
        if bound is None:
            continue
        got = metrics.get(key)
        if not isinstance(got, (int, float)) or isinstance(got, bool):
            why = undefined_reason(metrics, key) or "undefined"
            failures.append(f"{key} is n/a ({why}), so {field_ref(name)} {bound:g} cannot be met")
        elif (got < bound) if kind == "min" else (got > bound):
            failures.append(f"{key} {got:g} is {'below' if kind == 'min' else 'above'} {field_ref(name)} {bound:g}")
    return failures
