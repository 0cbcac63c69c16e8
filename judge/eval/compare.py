"""`judge eval compare BASE.json HEAD.json`: what changed between two runs of a set.

Metric deltas (head - base), and the cases whose verdict flipped, matched by case id: the
valid/invalid answer changed, or the rule of a rejection did. A flip is "fixed" when head is
right where base was wrong, "broke" the other way round, "changed" when both are wrong (or
both right, e.g. an unlabelled rule). Reports written before a metric existed read as n/a.
"""

from __future__ import annotations

from typing import Any

from judge.eval.report.format import decimal, pct
from judge.eval.report.markdown import cell
from judge.eval.report.model import CaseRecord, EvalReport

__all__ = ["METRICS", "compare_reports", "render_comparison"]

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


def compare_reports(base: EvalReport, head: EvalReport) -> dict[str, Any]:
    base_cases = {case.case_id: case for case in base.records}
    head_cases = {case.case_id: case for case in head.records}
    flips = [_flip(base_cases[case_id], head_cases[case_id]) for case_id in head_cases
             if case_id in base_cases and _verdict(base_cases[case_id]) != _verdict(head_cases[case_id])]
    flips.sort(key=lambda flip: (_FLIP_ORDER[flip["change"]], flip["id"]))
    return {
        "base": _run_of(base),
        "head": _run_of(head),
        "metrics": [_delta(name, path, better, fmt, base.metrics_json, head.metrics_json)
                    for name, path, better, fmt in METRICS],
        "flips": flips,
        "onlyInBase": sorted(set(base_cases) - set(head_cases)),
        "onlyInHead": sorted(set(head_cases) - set(base_cases)),
    }


def _run_of(report: EvalReport) -> dict[str, Any]:
    meta = report.meta
    return {"runId": meta.run_id, "model": meta.model, "cases": len(report.records),
            "promptSha256": meta.prompt_sha256, "judgeVersion": meta.judge_version}


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
            "format": fmt}


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
    """Plain text that is also Markdown: a heading, a metric table, a table of flips."""
    sections = [_title(comparison, base_path, head_path), _metric_table(comparison["metrics"]),
                _flip_table(comparison["flips"]), _only(comparison)]
    return "\n\n".join(section for section in sections if section)


def _title(comparison: dict[str, Any], base_path: str, head_path: str) -> str:
    def side(label: str, path: str, run: dict[str, Any]) -> str:
        return f"- {label}: {cell(path)} (run {cell(run['runId'])}, {cell(run['model'])}, {run['cases']} cases)"

    lines = ["## judge eval compare", "", side("base", base_path, comparison["base"]),
             side("head", head_path, comparison["head"])]
    if comparison["base"]["promptSha256"] != comparison["head"]["promptSha256"]:
        lines.append("- the prompt changed between the runs")
    return "\n".join(lines)


def _metric_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| metric | base | head | delta | |", "|---|---:|---:|---:|---|"]
    for row in rows:
        lines.append(f"| {row['metric']} | {_show(row['base'], row['format'])} | {_show(row['head'], row['format'])} "
                     f"| {_show_delta(row['delta'], row['format'])} | {row['verdict']} |")
    return "\n".join(lines)


def _show(value: float | None, fmt: str) -> str:
    if value is None:
        return "n/a"
    return {"pct": pct, "decimal": decimal, "ms": lambda v: f"{v:.1f} ms", "int": lambda v: f"{v:,.0f}",
            "usd": lambda v: f"${v:.4f}"}[fmt](value)


def _show_delta(delta: float | None, fmt: str) -> str:
    if delta is None:
        return "n/a"
    sign = "+" if delta > 0 else "-" if delta < 0 else "±"
    size = abs(delta)
    text = f"{size * 100:.1f} pp" if fmt == "pct" else _show(size, fmt)
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
    for key, label in (("onlyInBase", "Only in base"), ("onlyInHead", "Only in head")):
        ids = comparison[key]
        if ids:
            shown = ", ".join(cell(case_id, 80) for case_id in ids[:FLIP_LIMIT])
            more = f" and {len(ids) - FLIP_LIMIT} more" if len(ids) > FLIP_LIMIT else ""
            lines.append(f"{label} ({len(ids)}): {shown}{more}")
    return "\n\n".join(lines)
