"""Plain-text report of an eval run: headline, gate results by status, confusion matrix, rule table, the cases judge
got wrong."""

from __future__ import annotations

from judge.eval.report.format import kappa_text, metric_text
from judge.eval.report.model import EvalReport

__all__ = ["gate_summary", "render_text"]


def render_text(report: EvalReport, limit: int = 20) -> str:
    m, shown = report.metrics, report.metrics_json
    lines = [
        f"{m.cases} cases, accuracy {metric_text(shown, 'accuracy')}, "
        f"false-accept rate {metric_text(shown, 'falseAcceptRate')}, "
        f"false-reject rate {metric_text(shown, 'falseRejectRate')}, "
        f"rule attribution {metric_text(shown, 'ruleAttribution')}, kappa {kappa_text(shown)}",
        *gate_summary(report),
        "",
        "                    judged invalid  judged valid",
        f"expected invalid    {m.true_reject:>14}  {m.false_accept:>12}",
        f"expected valid      {m.false_reject:>14}  {m.true_accept:>12}",
        "",
        f"{'expected rule':<26} {'cases':>5} {'rejected':>8} {'right':>5}  found",
    ]
    for row in m.rules:
        found = ", ".join(f"{rule}={n}" for rule, n in row.found.items())
        lines.append(f"{row.rule:<26} {row.cases:>5} {row.rejected:>8} {row.right_rule:>5}  {found}")
    wrong = report.wrong
    if wrong:
        lines += ["", f"wrong ({len(wrong)}):"]
        for o in wrong[:limit]:
            expected = "valid" if o.expected_valid else f"invalid/{o.expected_rule}"
            lines.append(f"  {o.case_id}: expected {expected}, got {o.reason[:160]}")
        if len(wrong) > limit:
            lines.append(f"  ... and {len(wrong) - limit} more (see the metrics file)")
    bad = report.bad_lines
    if bad:
        lines += ["", f"bad lines ({len(bad)}), not run:"] + [f"  {b.problem}" for b in bad]
    return "\n".join(lines)


def gate_summary(report: EvalReport) -> list[str]:
    """One line counting the run's gate results by status; none when no case had a gate."""
    counts = report.gate_statuses()
    if not counts:
        return []
    by_status = ", ".join(f"{count} {status}" for status, count in counts.items())
    return [f"gates: {sum(counts.values())} results in {len(report.gated)} cases: {by_status}"]
