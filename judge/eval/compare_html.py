"""`judge eval compare --html`: the comparison as one self-contained HTML page, with no script at all.

Case ids, reasons and paths come from the eval set and the executor's output: every text is escaped
with html.escape, and a Content-Security-Policy admits only this page's own style (by hash) and no
network, so nothing in the data can run or fetch anything.
"""

from __future__ import annotations

from html import escape
from typing import Any

from judge.eval.compare import NOT_COMPARED, cases_line, differs_line, show_delta, show_value
from judge.eval.report.html import csp_hash

__all__ = ["render_comparison_html"]

_FLIP_LIMIT = 1000  # rows of flipped verdicts on the page; the rest are counted


def render_comparison_html(comparison: dict[str, Any], base_path: str, head_path: str) -> str:
    csp = f"default-src 'none'; style-src '{csp_hash(_STYLE)}'; img-src data:; base-uri 'none'; form-action 'none'"
    body = "\n".join([_header(comparison, base_path, head_path), _runs(comparison["runs"]),
                      f"<p id=\"cases\">{escape(cases_line(comparison['cases']))}</p>",
                      _metrics(comparison["metrics"]), _flips(comparison["flips"]), _only(comparison["cases"])])
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<link rel=\"icon\" href=\"data:,\">\n"
            f"<title>judge eval compare</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def _header(comparison: dict[str, Any], base_path: str, head_path: str) -> str:
    def side(label: str, path: str, run: dict[str, Any]) -> str:
        return (f"<li>{label}: <code>{escape(path)}</code> (run <code>{escape(str(run['runId']))}</code>, "
                f"{run['cases']} cases compared)</li>")

    return ("<h1>judge eval compare</h1>\n<ul id=\"sides\">" + side("base", base_path, comparison["base"])
            + side("head", head_path, comparison["head"]) + "</ul>")


def _runs(rows: list[dict[str, Any]]) -> str:
    lines = [f"<h2>The runs</h2>\n<p id=\"differs\">{escape(differs_line(rows))}</p>",
             "<table id=\"runs\"><thead><tr><th>run</th><th>base</th><th>head</th><th></th></tr></thead><tbody>"]
    for row in rows:
        mark = "differs" if row["differs"] else "same"
        lines.append(f"<tr class=\"{mark}\"><th>{escape(row['label'])}</th><td>{escape(row['base'])}</td>"
                     f"<td>{escape(row['head'])}</td><td>{mark}</td></tr>")
    return "\n".join(lines + ["</tbody></table>"])


def _metrics(rows: list[dict[str, Any]]) -> str:
    lines = ["<h2>Metrics</h2>", "<table id=\"metrics\"><thead><tr><th>metric</th><th>base</th><th>head</th>"
             "<th>delta</th><th></th></tr></thead><tbody>"]
    for row in rows:
        base = show_value(row["base"], row["format"], row.get("baseWhy"))
        head = show_value(row["head"], row["format"], row.get("headWhy"))
        lines.append(f"<tr class=\"{escape(row['verdict'])}\"><th>{escape(row['metric'])}</th><td>{escape(base)}</td>"
                     f"<td>{escape(head)}</td><td>{escape(show_delta(row['delta'], row['format']))}</td>"
                     f"<td>{escape(row['verdict'])}</td></tr>")
    return "\n".join(lines + ["</tbody></table>"])


def _flips(flips: list[dict[str, Any]]) -> str:
    if not flips:
        return "<h2>Flipped verdicts</h2>\n<p>No verdict flipped.</p>"
    lines = [f"<h2>Flipped verdicts ({len(flips)})</h2>",
             "<table id=\"flips\"><thead><tr><th>case</th><th>expected</th><th>base</th><th>head</th><th>change</th>"
             "<th>head's reason</th></tr></thead><tbody>"]
    for flip in flips[:_FLIP_LIMIT]:
        expected = flip["expected"] + (" (label changed)" if flip["labelChanged"] else "")
        lines.append(f"<tr class=\"{escape(flip['change'])}\"><td><code>{escape(flip['id'])}</code></td>"
                     f"<td>{escape(expected)}</td><td>{escape(flip['base'])}</td><td>{escape(flip['head'])}</td>"
                     f"<td>{escape(flip['change'])}</td><td>{escape(flip['headReason'])}</td></tr>")
    lines.append("</tbody></table>")
    if len(flips) > _FLIP_LIMIT:
        lines.append(f"<p>... and {len(flips) - _FLIP_LIMIT} more.</p>")
    return "\n".join(lines)


def _only(cases: dict[str, Any]) -> str:
    lines = []
    for key, label in NOT_COMPARED:
        if cases[key]:
            items = "".join(f"<li><code>{escape(case_id)}</code></li>" for case_id in cases[key])
            lines.append(f"<h2>{label} ({len(cases[key])}), not compared</h2>\n<ul>{items}</ul>")
    return "\n".join(lines)


_STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px; padding: 1rem 1.5rem; color: #1f2328; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin: 1.6rem 0 0.6rem; }
table { border-collapse: collapse; } th, td { border: 1px solid #d0d7de; padding: 0.35rem 0.6rem; text-align: left; vertical-align: top; }
#metrics td:nth-child(4) { white-space: nowrap; }
code { font-family: ui-monospace, monospace; word-break: break-all; }
tr.differs th, tr.differs td { background: #fff8c5; font-weight: 600; }
tr.better td:last-child, tr.fixed td:nth-child(5) { color: #1a7f37; }
tr.worse td:last-child, tr.broke td:nth-child(5) { color: #cf222e; }
"""
