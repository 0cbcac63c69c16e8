"""Markdown summary of an eval run, short enough for a pull-request comment (the gates of each case folded away).

Case ids and reasons come from the eval set and the executor's output: every table cell
escapes `|`, Markdown punctuation and HTML, folds newlines, and is cut to a bounded length.
"""

from __future__ import annotations

from typing import Any

from judge.eval.report.format import decimal, kappa_text, metric_text, pct, usd
from judge.eval.report.model import EvalReport
from judge.lazy_pattern import lazy_compile

__all__ = ["render_markdown"]

WRONG_LIMIT = 20
GATED_LIMIT = 100
CELL_LIMIT = 200
GATES_CELL_LIMIT = 1000

_MARKDOWN_PUNCTUATION = lazy_compile(r"([\\`*_\[|~])")
_LINE_BREAKS = lazy_compile(r"\s*[\r\n]+\s*")


def render_markdown(report: EvalReport) -> str:
    metrics = report.metrics_json
    sections = [_headline(report, metrics), _confusion(metrics), _usage(metrics), _rules(metrics),
                _wrong(report), _gates(report), _bad_lines(report)]
    return "\n\n".join(section for section in sections if section) + "\n"


def cell(text: Any, limit: int = CELL_LIMIT) -> str:
    """One table cell: a single line, no table or HTML breakout, at most ``limit`` characters of text."""
    text = _LINE_BREAKS.sub(" ⏎ ", str(text)).strip()
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def _headline(report: EvalReport, m: dict[str, Any]) -> str:
    meta = report.meta
    title = f"### judge eval: run {cell(meta.run_id)}"
    about = (f"{m['cases']} cases · {cell(meta.model)} · set {cell(meta.source or '?')}"
             f"{' shard ' + cell(meta.shard) if meta.shard else ''} · judge {cell(meta.judge_version)}")
    header = "| accuracy | false-accept rate | false-reject rate | precision | recall | F1 | kappa (95% CI) | rule attribution |"
    shown = ("accuracy", "falseAcceptRate", "falseRejectRate", "precisionReject", "recallReject", "f1Reject")
    values = ("| " + " | ".join(cell(metric_text(m, key)) for key in shown)
              + f" | {cell(kappa_text(m))} | {cell(metric_text(m, 'ruleAttribution'))} |")
    return "\n".join([title, "", about, "", header, "|" + "---:|" * 8, values])


def _confusion(m: dict[str, Any]) -> str:
    c = m["confusion"]
    return "\n".join([
        "| (rows: expected) | judged invalid | judged valid |",
        "|---|---:|---:|",
        f"| **expected invalid** | {c['expectedInvalid']['judgedInvalid']} | {c['expectedInvalid']['judgedValid']} |",
        f"| **expected valid** | {c['expectedValid']['judgedInvalid']} | {c['expectedValid']['judgedValid']} |",
    ])


def _usage(m: dict[str, Any]) -> str:
    llm, latency, tokens = m.get("llm") or {}, m.get("latencyMs") or {}, m.get("tokens") or {}
    parts = [f"LLM calls {llm.get('callsMade', 0)} made, {llm.get('callsSaved', 0)} saved by the rules, "
             f"{llm.get('cacheHits', 0)} cases from cache",
             f"latency p50 {decimal(latency.get('p50'), 1)} ms, p95 {decimal(latency.get('p95'), 1)} ms, "
             f"max {decimal(latency.get('max'), 1)} ms",
             f"tokens {tokens.get('prompt', 0)} prompt + {tokens.get('completion', 0)} completion",
             "cost " + metric_text(m, "costUsd", usd)]
    if m.get("selfAgreement") is not None:
        parts.append(f"self-agreement {pct(m['selfAgreement'])} over {m.get('selfAgreementCases', 0)} cases")
    if m.get("errors"):
        parts.append("undecided " + ", ".join(f"{cell(rule)} {n}" for rule, n in m["errors"].items()))
    return " · ".join(parts)


def _rules(m: dict[str, Any]) -> str:
    rows = ["<details><summary>Per expected rule</summary>", "",
            "| expected rule | cases | rejected | right rule | attribution | found |", "|---|---:|---:|---:|---:|---|"]
    for row in m["rules"]:
        found = ", ".join(f"{rule} {n}" for rule, n in row["found"].items())
        share = row["rightRule"] / row["cases"] if row["cases"] else None
        rows.append(f"| {cell(row['rule'])} | {row['cases']} | {row['rejected']} | {row['rightRule']} "
                    f"| {pct(share)} | {cell(found)} |")
    return "\n".join(rows + ["", "</details>"])


def _wrong(report: EvalReport) -> str:
    wrong = report.wrong
    if not wrong:
        return "No case judged wrong."
    rows = [f"**Wrong ({len(wrong)})**", "", "| case | expected | got | reason |", "|---|---|---|---|"]
    for case in wrong[:WRONG_LIMIT]:
        rows.append(f"| {cell(case.case_id, 80)} | {cell(case.expected_text)} | {cell(case.got_text)} "
                    f"| {cell(case.reason)} |")
    if len(wrong) > WRONG_LIMIT:
        rows += ["", f"… and {len(wrong) - WRONG_LIMIT} more in the JSON report."]
    return "\n".join(rows)


def _gates(report: EvalReport) -> str:
    """Each case with gates: its verdict, next action and every gate's status, folded away like the rule table."""
    gated = report.gated
    if not gated:
        return ""
    counts = ", ".join(f"{count} {status}" for status, count in report.gate_statuses().items())
    rows = [f"<details><summary>Gates: {len(gated)} cases with gates ({cell(counts)})</summary>", "",
            "| case | got | next action | gates, in evaluation order |", "|---|---|---|---|"]
    for case in gated[:GATED_LIMIT]:
        action = (case.outcome or {}).get("nextAction", "")
        gates = "; ".join(_gate_text(gate) for gate in case.gates)
        rows.append(f"| {cell(case.case_id, 80)} | {cell(case.got_text)} | {cell(action)} "
                    f"| {cell(gates, GATES_CELL_LIMIT)} |")
    if len(gated) > GATED_LIMIT:
        rows += ["", f"… and {len(gated) - GATED_LIMIT} more in the JSON report."]
    return "\n".join(rows + ["", "</details>"])


def _gate_text(gate: dict[str, Any]) -> str:
    rule = f" ({gate['rule']})" if gate.get("rule") else ""
    return f"{gate.get('status')} #{gate.get('index')} {gate.get('type')}{rule}"


def _bad_lines(report: EvalReport) -> str:
    bad = report.bad_lines
    if not bad:
        return ""
    listed = "".join(f"\n- {cell(b.problem)}" for b in bad[:WRONG_LIMIT])
    more = f"\n- … and {len(bad) - WRONG_LIMIT} more" if len(bad) > WRONG_LIMIT else ""
    return f"**Bad lines ({len(bad)}), not run:**{listed}{more}"
