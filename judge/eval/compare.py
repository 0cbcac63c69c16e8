"""`judge eval compare BASE.json HEAD.json`: what changed between two runs of a set.

Two reports are of the same set when they hold the same case ids, each with the same inputs (its
``inputsHash``: step, result, execution records; a report without one matches on the id). Labels may
differ: a flipped case whose label changed says so. Reports of different sets are refused unless
asked for (``allow_different_sets``); then only the shared cases (same id, same inputs) are compared,
their metrics computed again from those cases alone, and the rest counted on each side.

The header says how the runs judged and what differs (model, semantic mode, prompt, judge version,
set file, any other setting); then metric deltas (head - base), and the cases whose verdict flipped,
matched by case id: the valid/invalid answer changed, or the rule of a rejection did. A flip is
"fixed" when head is right where base was wrong, "broke" the other way round, "changed" when both
are wrong (or both right, e.g. an unlabelled rule). Reports written before a metric existed read as n/a.
"""

from __future__ import annotations

from typing import Any

from judge.errors import InputError, field_ref
from judge.eval.provenance import provenance_rows
from judge.eval.report.format import decimal, pct, undefined_reason, usd
from judge.eval.report.markdown import cell
from judge.eval.report.model import CaseRecord, EvalReport

__all__ = ["FLIP_LIMIT", "METRICS", "NOT_COMPARED", "cases_line", "compare_reports", "differs_line", "render_comparison",
           "show_delta", "show_value"]

# (key in the comparison, path in report["metrics"], "higher" or "lower" is better, format)
METRICS = (
    ("accuracy", ("accuracy",), "higher", "pct"),
    ("falseAcceptRate", ("falseAcceptRate",), "lower", "pct"),
    ("falseRejectRate", ("falseRejectRate",), "lower", "pct"),
    ("kappa", ("kappa",), "higher", "decimal"),
    ("f1", ("f1Reject",), "higher", "pct"),
    ("precision", ("precisionReject",), "higher", "pct"),
    ("recall", ("recallReject",), "higher", "pct"),
    ("ruleAttribution", ("ruleAttribution",), "higher", "pct"),
    ("latencyP95Ms", ("latencyMs", "p95"), "lower", "ms"),
    ("tokens", ("tokens", "total"), "lower", "int"),
    ("costUsd", ("costUsd",), "lower", "usd"),
)
_FLIP_ORDER = {"broke": 0, "fixed": 1, "changed": 2}
FLIP_LIMIT = 50


def compare_reports(base: EvalReport, head: EvalReport, *, allow_different_sets: bool = False,
                    names: tuple[str, str] = ("base", "head")) -> dict[str, Any]:
    """The comparison of two runs; InputError when they are of different sets and ``allow_different_sets`` is not
    given (``names``: how the message calls the two reports, e.g. their paths)."""
    base_cases = {case.case_id: case for case in base.records}
    head_cases = {case.case_id: case for case in head.records}
    both = [case_id for case_id in head_cases if case_id in base_cases]
    other_inputs = sorted(case_id for case_id in both if not _same_inputs(base_cases[case_id], head_cases[case_id]))
    changed = set(other_inputs)
    shared = [case_id for case_id in both if case_id not in changed]
    cases = {"sameSet": len(shared) == len(base_cases) == len(head_cases), "shared": len(shared),
             "onlyInBase": sorted(set(base_cases) - set(head_cases)),
             "onlyInHead": sorted(set(head_cases) - set(base_cases)), "otherInputs": other_inputs}
    if not cases["sameSet"]:
        if not allow_different_sets:
            raise InputError(f"{names[1]}: not a run of the same eval set as {names[0]} ({_not_compared(cases, names, ' case(s)')}); "
                             f"compare two runs of one set, or pass {field_ref('allow_different_sets')} to compare "
                             f"only the {len(shared)} cases they share")
        if not shared:
            raise InputError(f"{names[1]}: shares no case with {names[0]} ({_not_compared(cases, names, ' case(s)')}): "
                             "nothing to compare; compare two runs that judged some of the same cases")
        kept = set(shared)
        base = EvalReport(base.meta, tuple(case for case in base.records if case.case_id in kept))
        head = EvalReport(head.meta, tuple(case for case in head.records if case.case_id in kept))
    flips = [_flip(base_cases[case_id], head_cases[case_id]) for case_id in shared
             if _verdict(base_cases[case_id]) != _verdict(head_cases[case_id])]
    flips.sort(key=lambda flip: (_FLIP_ORDER[flip["change"]], flip["id"]))
    return {
        "base": _run_of(base),
        "head": _run_of(head),
        "runs": _runs(base, head),
        "cases": cases,
        "metrics": [_delta(name, path, better, fmt, base.metrics_json, head.metrics_json)
                    for name, path, better, fmt in METRICS],
        "flips": flips,
        "onlyInBase": cases["onlyInBase"],
        "onlyInHead": cases["onlyInHead"],
    }


def _same_inputs(base: CaseRecord, head: CaseRecord) -> bool:
    return not base.inputs_hash or not head.inputs_hash or base.inputs_hash == head.inputs_hash


def _not_compared(cases: dict[str, Any], names: tuple[str, str] = ("base", "head"), unit: str = "") -> str:
    """`N only in base, M only in head[, K with the same id but other inputs]` (the first count with ``unit``)."""
    parts = [f"{len(cases['onlyInBase'])}{unit} only in {names[0]}", f"{len(cases['onlyInHead'])} only in {names[1]}"]
    if cases["otherInputs"]:
        parts.append(f"{len(cases['otherInputs'])} with the same id but other inputs")
    return ", ".join(parts)


def _run_of(report: EvalReport) -> dict[str, Any]:
    meta = report.meta
    return {"runId": meta.run_id, "model": meta.model, "cases": len(report.records),
            "promptSha256": meta.prompt_sha256, "judgeVersion": meta.judge_version}


def _runs(base: EvalReport, head: EvalReport) -> list[dict[str, Any]]:
    """The header's rows: how each run judged (what differs marked), and the cases it could not decide."""
    rows = [{"label": row.label, "base": row.base, "head": row.head, "differs": row.differs}
            for row in provenance_rows(base.meta, head.meta)]
    undecided = [str(sum(1 for case in report.records if case.error)) for report in (base, head)]
    rows.append({"label": "cases judge could not decide", "base": undecided[0], "head": undecided[1],
                 "differs": undecided[0] != undecided[1]})
    return rows


def _metric(metrics: dict[str, Any], path: tuple[str, ...]) -> float | None:
    value: Any = metrics
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _delta(name: str, path: tuple[str, ...], better: str, fmt: str, base: dict[str, Any],
           head: dict[str, Any]) -> dict[str, Any]:
    before, after = _metric(base, path), _metric(head, path)
    delta = None if before is None or after is None else round(after - before, 6)
    if delta is None or delta == 0:
        verdict = "same" if delta == 0 else "n/a"
    else:
        verdict = "better" if (delta > 0) == (better == "higher") else "worse"
    return {"metric": name, "base": before, "head": after, "delta": delta, "better": better, "verdict": verdict,
            "format": fmt, "baseWhy": _why(base, path, before), "headWhy": _why(head, path, after)}


def _why(metrics: dict[str, Any], path: tuple[str, ...], value: float | None) -> str | None:
    """Why a headline metric is n/a (undefined, or not in an older report); None when it has a value."""
    return undefined_reason(metrics, path[0]) if value is None and len(path) == 1 else None


def _verdict(case: CaseRecord) -> tuple[bool, str | None]:
    return bool(case.valid), case.rule


def _flip(base: CaseRecord, head: CaseRecord) -> dict[str, Any]:
    base_wrong, head_wrong = not base.rule_correct, not head.rule_correct
    change = "fixed" if base_wrong and not head_wrong else "broke" if head_wrong and not base_wrong else "changed"
    return {
        "id": head.case_id, "change": change, "expected": head.expected_text,
        "labelChanged": (base.expected_valid, base.expected_rule) != (head.expected_valid, head.expected_rule),
        "base": base.got_text, "head": head.got_text, "headReason": head.reason,
    }


def render_comparison(comparison: dict[str, Any], base_path: str, head_path: str) -> str:
    """Plain text that is also Markdown: a heading, what differs between the runs, which cases were compared, a
    metric table, a table of flips."""
    sections = [_title(comparison, base_path, head_path), _runs_table(comparison["runs"]),
                cases_line(comparison["cases"]), _metric_table(comparison["metrics"]),
                _flip_table(comparison["flips"]), _only(comparison)]
    return "\n\n".join(section for section in sections if section)


def _title(comparison: dict[str, Any], base_path: str, head_path: str) -> str:
    def side(label: str, path: str, run: dict[str, Any]) -> str:
        return f"- {label}: {cell(path)} (run {cell(run['runId'])}, {run['cases']} cases compared)"

    return "\n".join(["## judge eval compare", "", side("base", base_path, comparison["base"]),
                      side("head", head_path, comparison["head"])])


def _runs_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| run | base | head | |", "|---|---|---|---|"]
    lines += [f"| {cell(row['label'])} | {cell(row['base'])} | {cell(row['head'])} | "
              f"{'differs' if row['differs'] else 'same'} |" for row in rows]
    return "\n".join([differs_line(rows), ""] + lines)


def differs_line(rows: list[dict[str, Any]]) -> str:
    """The header's one line: which rows differ between the runs, or that none does."""
    differing = [row["label"] for row in rows if row["differs"]]
    return f"What differs: {', '.join(differing)}." if differing else "The runs judged alike: nothing below differs."


# The cases a comparison of two different sets leaves out, by kind, as the reports list them.
NOT_COMPARED = (("onlyInBase", "Only in base"), ("onlyInHead", "Only in head"), ("otherInputs", "Same id, other inputs"))


def cases_line(cases: dict[str, Any]) -> str:
    """Which cases were compared: the whole set, or only the shared cases of two different sets."""
    if cases["sameSet"]:
        return f"Same eval set: all {cases['shared']} cases compared."
    return (f"Different eval sets: only the {cases['shared']} shared cases are compared (metrics computed on them "
            f"alone); not compared: {_not_compared(cases)}.")


def _metric_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| metric | base | head | delta | |", "|---|---:|---:|---:|---|"]
    for row in rows:
        base = show_value(row["base"], row["format"], row.get("baseWhy"))
        head = show_value(row["head"], row["format"], row.get("headWhy"))
        lines.append(f"| {row['metric']} | {cell(base)} | {cell(head)} | {show_delta(row['delta'], row['format'])} "
                     f"| {row['verdict']} |")
    return "\n".join(lines)


def show_value(value: float | None, fmt: str, why: str | None = None) -> str:
    if value is None:
        return f"n/a ({why})" if why else "n/a"
    return {"pct": pct, "decimal": decimal, "ms": lambda v: f"{v:.1f} ms", "int": lambda v: f"{v:,.0f}",
            "usd": usd}[fmt](value)


def show_delta(delta: float | None, fmt: str) -> str:
    if delta is None:
        return "n/a"
    sign = "+" if delta > 0 else "-" if delta < 0 else "±"
    size = abs(delta)
    text = f"{size * 100:.1f} pp" if fmt == "pct" else show_value(size, fmt)
    return sign + text


def _flip_table(flips: list[dict[str, Any]]) -> str:
    if not flips:
        return "No verdict flipped."
    counts = {change: sum(flip["change"] == change for flip in flips) for change in _FLIP_ORDER}
    summary = ", ".join(f"{n} {change}" for change, n in counts.items() if n)
    lines = [f"### Flipped verdicts ({len(flips)}: {summary})", "",
             "| case | expected | base | head | change |", "|---|---|---|---|---|"]
    for flip in flips[:FLIP_LIMIT]:
        expected = cell(flip["expected"]) + (" (label changed)" if flip["labelChanged"] else "")
        lines.append(f"| {cell(flip['id'], 80)} | {expected} | {cell(flip['base'])} | {cell(flip['head'])} "
                     f"| {flip['change']} |")
    if len(flips) > FLIP_LIMIT:
        lines += ["", f"... and {len(flips) - FLIP_LIMIT} more."]
    return "\n".join(lines)


def _only(comparison: dict[str, Any]) -> str:
    lines = []
    for key, label in NOT_COMPARED:
        ids = comparison["cases"][key]
        if ids:
            shown = ", ".join(cell(case_id, 80) for case_id in ids[:FLIP_LIMIT])
            more = f" and {len(ids) - FLIP_LIMIT} more" if len(ids) > FLIP_LIMIT else ""
            lines.append(f"{label} ({len(ids)}): {shown}{more}")
    return "\n\n".join(lines)
