"""One self-contained HTML file of an eval run: no external resource, inline CSS and vanilla JS.

The data travels as JSON in a ``<script type="application/json">`` block and the page builds
itself from it with ``textContent`` only: patches and reasons are untrusted (a patch may hold
``</script>``), so ``<``, ``>`` and ``&`` are written as ``\\u003c``... inside the JSON and no
data is ever parsed as HTML. A Content-Security-Policy admits only this file's own script and
style (by hash) and no network at all.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from typing import Any

from judge.eval.metrics import HEADLINE
from judge.eval.report.format import kappa_text, metric_text, usd
from judge.eval.report.model import CaseRecord, EvalReport

__all__ = ["csp_hash", "render_html"]

_META_KEYS = ("runId", "source", "shard", "setSha256", "judgeVersion", "promptSha256", "seconds", "resumed", "parts")
_GATE_KEYS = ("index", "type", "source", "status", "rule", "message")


def render_html(report: EvalReport) -> str:
    data = _embedded_data(report)
    csp = (f"default-src 'none'; script-src '{csp_hash(_SCRIPT)}'; style-src '{csp_hash(_STYLE)}'; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    return (_PAGE.replace("{CSP}", csp)
            .replace("{TITLE}", "judge eval report")
            .replace("{STYLE}", _STYLE)
            .replace("{SCRIPT}", _SCRIPT)
            .replace("{DATA}", _script_safe_json(data)))


def _embedded_data(report: EvalReport) -> dict[str, Any]:
    """What the page shows: metadata, metrics, bad lines, each wrong case with its step and patch, and each case's
    gate results."""
    inputs = {item.id: item for item in report.wrong_inputs or ()}
    wrong = []
    for case in report.wrong:
        item = inputs.get(case.case_id)
        step, result = (item.step, item.result) if item else ({}, {})
        wrong.append({
            "id": case.case_id, "expected": case.expected_text, "got": case.got_text,
            "expectedRule": case.expected_rule or ("valid" if case.expected_valid else "invalid"),
            "gotRule": case.rule or ("valid" if case.valid else "invalid"),
            "reason": case.reason, "tags": list(case.tags), "hasInputs": item is not None,
            "description": step.get("description") if isinstance(step.get("description"), str) else "",
            "patch": result.get("patch") if isinstance(result.get("patch"), str) else "",
            "summary": result.get("summary") if isinstance(result.get("summary"), str) else "",
        })
    metrics = report.metrics_json
    meta = report.meta.to_json()
    return {"meta": {key: meta.get(key) for key in _META_KEYS}, "model": report.meta.model,
            "kappaText": kappa_text(metrics), "metrics": metrics,
            "metricTexts": {key: metric_text(metrics, key) for key, _, _ in HEADLINE},  # "n/a (why)" when undefined
            "costText": metric_text(metrics, "costUsd", usd),
            "badLines": [{"line": b.line, "problem": b.problem} for b in report.bad_lines], "wrong": wrong,
            "gateCounts": report.gate_statuses(), "gated": [_gated(case) for case in report.gated]}


def _gated(case: CaseRecord) -> dict[str, Any]:
    """A case with gates as the page shows it: its verdict, next action and each gate's result."""
    gates = [{key: gate.get(key) for key in _GATE_KEYS} for gate in case.gates]
    return {"id": case.case_id, "got": case.got_text, "nextAction": (case.outcome or {}).get("nextAction"),
            "gates": gates}


def _script_safe_json(data: Any) -> str:
    """JSON that cannot end its <script> element or open a comment: <, >, & and line separators escaped."""
    try:
        text = json.dumps(data, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    except ValueError:  # NaN/Infinity read from a case (Python's json accepts them; JSON.parse does not)
        text = json.dumps(_finite(data), ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def csp_hash(text: str) -> str:
    """The Content-Security-Policy source that admits exactly this inline script or style."""
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{TITLE}</title>
<style>{STYLE}</style>
</head>
<body>
<header><h1 id="title">judge eval</h1><p id="about"></p></header>
<main>
<section><h2>Headline</h2><div id="cards" class="cards"></div><p id="usage" class="muted"></p></section>
<section><h2>Confusion matrix</h2>
<table id="confusion" class="confusion">
<thead><tr><th>rows: expected</th><th>judged invalid</th><th>judged valid</th></tr></thead>
<tbody>
<tr><th>expected invalid</th><td id="cm-expectedInvalid-judgedInvalid" class="ok"></td><td id="cm-expectedInvalid-judgedValid" class="bad"></td></tr>
<tr><th>expected valid</th><td id="cm-expectedValid-judgedInvalid" class="bad"></td><td id="cm-expectedValid-judgedValid" class="ok"></td></tr>
</tbody></table></section>
<section><h2>Per expected rule</h2><p class="muted">Bar: cases rejected with the expected rule (valid: accepted), out of the rule's cases.</p><div id="rules" class="bars"></div></section>
<section><h2>Wrong cases <span id="wrong-count" class="muted"></span></h2>
<div class="filters"><input id="filter" type="search" placeholder="filter: id, rule, reason, step" aria-label="filter wrong cases">
<select id="rule-filter" aria-label="rule"><option value="">all rules</option></select>
<span id="shown-count" class="muted"></span></div>
<table id="wrong" class="wrong"><thead><tr><th>case</th><th>expected</th><th>got</th><th>reason</th></tr></thead><tbody></tbody></table>
<p id="no-wrong" class="muted" hidden>No case judged wrong.</p></section>
<section id="gates-section" hidden><h2>Gates <span id="gates-count" class="muted"></span></h2>
<p id="gates-summary" class="muted"></p>
<table id="gates" class="gates"><thead><tr><th>case</th><th>got</th><th>next action</th><th>gates, in evaluation order</th></tr></thead><tbody></tbody></table></section>
<section id="bad-section" hidden><h2>Lines that could not run</h2><ul id="bad-lines"></ul></section>
</main>
<script type="application/json" id="report-data">{DATA}</script>
<script>{SCRIPT}</script>
</body>
</html>
"""

_STYLE = """
:root { --ok: #1a7f37; --bad: #cf222e; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px; padding: 1rem 1.5rem; color: #1f2328; }
h1 { font-size: 1.5rem; margin: 0.2rem 0; } h2 { font-size: 1.15rem; margin: 1.6rem 0 0.6rem; }
[hidden] { display: none !important; }
.muted { color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 0.6rem; align-items: start; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 0.5rem 0.7rem; background: var(--bg); }
.card .label { color: var(--muted); font-size: 0.8rem; } .card .value { font-size: 1.2rem; font-weight: 600; }
.card .note { color: var(--muted); font-size: 0.75rem; }
table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: 0.35rem 0.6rem; text-align: left; vertical-align: top; }
.confusion td { text-align: right; font-size: 1.2rem; min-width: 7rem; font-variant-numeric: tabular-nums; }
.confusion td.ok { color: var(--ok); } .confusion td.bad { color: var(--bad); }
.bars .bar-row { display: grid; grid-template-columns: 220px 1fr 130px; gap: 0.6rem; align-items: center; margin: 0.2rem 0; }
.bars .name { font-family: ui-monospace, monospace; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.bars .track { background: #ffebe9; border-radius: 3px; height: 14px; overflow: hidden; }
.bars .fill { background: var(--ok); height: 100%; }
.filters { display: flex; gap: 0.6rem; align-items: center; margin-bottom: 0.6rem; }
#filter { flex: 1; max-width: 420px; padding: 0.3rem 0.5rem; }
.wrong { width: 100%; } .wrong td:first-child { font-family: ui-monospace, monospace; word-break: break-all; }
pre { white-space: pre-wrap; word-break: break-all; background: var(--bg); border: 1px solid var(--line); padding: 0.5rem; max-height: 30rem; overflow: auto; font-size: 12px; }
details summary { cursor: pointer; color: var(--muted); }
.gates { width: 100%; } .gates td:first-child { font-family: ui-monospace, monospace; word-break: break-all; }
.gate { margin: 0.1rem 0; } .gate .status { font-weight: 600; display: inline-block; min-width: 4.5rem; }
.gate.passed .status { color: var(--ok); } .gate.failed .status { color: var(--bad); }
.gate.pending .status { color: #9a6700; } .gate.skipped .status { color: var(--muted); }
.gate .message { color: var(--muted); }
"""

_SCRIPT = """
"use strict";
(function () {
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var m = data.metrics || {};

  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (className) { node.className = className; }
    return node;
  }
  function pct(x) { return (x === null || x === undefined) ? "n/a" : (x * 100).toFixed(1) + "%"; }
  function num(x, places) { return (x === null || x === undefined) ? "n/a" : Number(x).toFixed(places); }
  function byId(id) { return document.getElementById(id); }

  function renderHeader() {
    var meta = data.meta || {};
    byId("title").textContent = "judge eval: run " + (meta.runId || "?");
    document.title = "judge eval " + (meta.runId || "");
    var about = [String(m.cases || 0) + " cases", data.model, "set " + (meta.source || "?")];
    if (meta.shard) { about.push("shard " + meta.shard); }
    if (meta.parts) { about.push("merged from " + meta.parts.length + " parts"); }
    about.push("judge " + (meta.judgeVersion || "?"), "prompt " + String(meta.promptSha256 || "?").slice(0, 12),
               num(meta.seconds, 1) + " s");
    byId("about").textContent = about.join(" \\u00b7 ");
  }

  function renderCards() {
    var t = data.metricTexts || {};
    var cards = [["accuracy", t.accuracy], ["false-accept rate", t.falseAcceptRate],
      ["false-reject rate", t.falseRejectRate], ["precision (reject)", t.precisionReject],
      ["recall (reject)", t.recallReject], ["F1 (reject)", t.f1Reject],
      ["kappa [95% CI]", data.kappaText], ["rule attribution", t.ruleAttribution]];
    if (m.selfAgreement !== null && m.selfAgreement !== undefined) { cards.push(["self-agreement", pct(m.selfAgreement)]); }
    var box = byId("cards");
    cards.forEach(function (card) {
      var node = el("div", null, "card");
      node.appendChild(el("div", card[0], "label"));
      // "n/a (why)": the figure stays large, the why stays small.
      var split = /^(n\\/a) \\((.*)\\)$/.exec(card[1] || "");
      node.appendChild(el("div", split ? split[1] : card[1], "value"));
      if (split) { node.appendChild(el("div", split[2], "note")); }
      box.appendChild(node);
    });
    var llm = m.llm || {}, lat = m.latencyMs || {}, tok = m.tokens || {};
    byId("usage").textContent = "LLM calls: " + (llm.callsMade || 0) + " made, " + (llm.callsSaved || 0) +
      " saved by the rules, " + (llm.cacheHits || 0) + " cases from cache \\u00b7 latency p50 " + num(lat.p50, 1) +
      " ms, p95 " + num(lat.p95, 1) + " ms, max " + num(lat.max, 1) + " ms \\u00b7 tokens " + (tok.prompt || 0) +
      " prompt + " + (tok.completion || 0) + " completion \\u00b7 cost " + data.costText;
  }

  function renderConfusion() {
    var c = m.confusion || {};
    ["expectedInvalid", "expectedValid"].forEach(function (row) {
      ["judgedInvalid", "judgedValid"].forEach(function (col) {
        byId("cm-" + row + "-" + col).textContent = String(((c[row] || {})[col]) || 0);
      });
    });
  }

  function renderRules() {
    var box = byId("rules");
    (m.rules || []).forEach(function (row) {
      var share = row.cases ? row.rightRule / row.cases : 0;
      var line = el("div", null, "bar-row");
      line.appendChild(el("div", row.rule, "name"));
      var track = el("div", null, "track");
      var fill = el("div", null, "fill");
      fill.style.width = (share * 100).toFixed(1) + "%";
      track.appendChild(fill);
      line.appendChild(track);
      line.appendChild(el("div", row.rightRule + "/" + row.cases + " (" + pct(share) + ")"));
      line.title = "found: " + Object.keys(row.found || {}).map(function (k) { return k + " " + row.found[k]; }).join(", ");
      box.appendChild(line);
    });
  }

  function detailsFor(item) {
    var details = el("details");
    details.appendChild(el("summary", "step and patch"));
    if (!item.hasInputs) { details.appendChild(el("p", "(the step and result are not in this report)", "muted")); return details; }
    details.appendChild(el("p", "step: " + item.description));
    if (item.summary) { details.appendChild(el("p", "executor's summary: " + item.summary)); }
    details.appendChild(el("pre", item.patch || "(no patch)", "patch"));
    return details;
  }

  function renderWrong() {
    var body = document.querySelector("#wrong tbody");
    var rules = {};
    data.wrong.forEach(function (item) {
      var row = el("tr");
      row.dataset.search = [item.id, item.expected, item.got, item.reason, item.description, (item.tags || []).join(" ")]
        .join("\\n").toLowerCase();
      row.dataset.rules = JSON.stringify([item.expectedRule, item.gotRule]);
      rules[item.expectedRule] = true; rules[item.gotRule] = true;
      row.appendChild(el("td", item.id));
      row.appendChild(el("td", item.expected));
      row.appendChild(el("td", item.got));
      var reason = el("td", item.reason);
      reason.appendChild(detailsFor(item));
      row.appendChild(reason);
      body.appendChild(row);
    });
    var select = byId("rule-filter");
    Object.keys(rules).sort().forEach(function (rule) {
      var option = el("option", rule);
      option.value = rule;
      select.appendChild(option);
    });
    byId("wrong-count").textContent = "(" + data.wrong.length + ")";
    byId("no-wrong").hidden = data.wrong.length > 0;
    byId("wrong").hidden = data.wrong.length === 0;
  }

  function applyFilter() {
    var text = byId("filter").value.trim().toLowerCase();
    var rule = byId("rule-filter").value;
    var rows = document.querySelectorAll("#wrong tbody tr");
    var shown = 0;
    rows.forEach(function (row) {
      var keep = (!text || row.dataset.search.indexOf(text) !== -1) &&
                 (!rule || JSON.parse(row.dataset.rules).indexOf(rule) !== -1);
      row.hidden = !keep;
      shown += keep ? 1 : 0;
    });
    byId("shown-count").textContent = shown + " of " + rows.length + " shown";
  }

  var GATE_STATUSES = ["passed", "failed", "pending", "skipped"];

  function gateLine(gate) {
    var known = GATE_STATUSES.indexOf(gate.status) !== -1;
    var line = el("div", null, "gate" + (known ? " " + gate.status : ""));
    line.appendChild(el("span", gate.status, "status"));
    var source = gate.source && gate.source !== "step" ? " (from the " + gate.source + ")" : "";
    line.appendChild(el("span", "#" + gate.index + " " + gate.type + source + (gate.rule ? " [" + gate.rule + "]" : "")));
    line.appendChild(el("div", gate.message, "message"));
    return line;
  }

  function renderGates() {
    var gated = data.gated || [];
    byId("gates-section").hidden = gated.length === 0;
    var counts = data.gateCounts || {};
    byId("gates-count").textContent = "(" + gated.length + " cases)";
    byId("gates-summary").textContent = Object.keys(counts).map(function (k) { return counts[k] + " " + k; }).join(", ");
    var body = document.querySelector("#gates tbody");
    gated.forEach(function (item) {
      var row = el("tr");
      row.appendChild(el("td", item.id));
      row.appendChild(el("td", item.got));
      row.appendChild(el("td", item.nextAction || ""));
      var cell = el("td");
      (item.gates || []).forEach(function (gate) { cell.appendChild(gateLine(gate)); });
      row.appendChild(cell);
      body.appendChild(row);
    });
  }

  function renderBadLines() {
    var bad = data.badLines || [];
    byId("bad-section").hidden = bad.length === 0;
    bad.forEach(function (item) { byId("bad-lines").appendChild(el("li", item.problem)); });
  }

  renderHeader();
  renderCards();
  renderConfusion();
  renderRules();
  renderWrong();
  renderGates();
  renderBadLines();
  byId("filter").addEventListener("input", applyFilter);
  byId("rule-filter").addEventListener("change", applyFilter);
  applyFilter();
  document.body.dataset.rendered = "true";
})();
"""
