"""The human reading of a Verdict (`judge validate --explain`): stages, findings, gates and the outcome, as text or
as Markdown."""

from __future__ import annotations

import shlex

from judge.runs.record_table import code_span, markdown_text, render_record_table
from judge.verdict import GateResult, Outcome, SemanticReport, Verdict

__all__ = ["render_explanation", "render_markdown"]


def render_explanation(verdict: Verdict) -> str:
    lines = [f"verdict: {'VALID' if verdict.valid else 'INVALID'}" + (f" ({verdict.rule})" if verdict.rule else "")]
    for stage in verdict.stages:
        detail = f" - {stage.detail}" if stage.detail else ""
        lines.append(f"  stage {stage.stage:<9} {stage.status:<8} {stage.duration_ms:8.2f} ms{detail}")
    if verdict.findings:
        lines.append("findings, in rule order (the first reject decides):")
        for finding in verdict.findings:
            lines.append(f"  [{finding.severity}] {finding.reason}")
    else:
        lines.append("findings: none")
    lines.extend(_gate_lines(verdict.gates))
    if verdict.outcome is not None:
        lines.append(_outcome_line(verdict.outcome))
    if verdict.semantic_review is not None:
        lines.extend(_semantic_lines(verdict.semantic_review))
    lines.extend(_evidence_lines(verdict))
    return "\n".join(lines)


def render_markdown(verdict: Verdict) -> str:
    """The explanation as Markdown (`--explain --markdown`): a PR comment or a report holds it as it is."""
    rule = f" ({code_span(verdict.rule)})" if verdict.rule else ""
    parts = [f"## Verdict: {'VALID' if verdict.valid else 'INVALID'}{rule}",
             "### Stages", _markdown_stages(verdict),
             "### Findings (in rule order: the first reject decides)", _markdown_findings(verdict)]
    if verdict.gates:
        parts += ["### Gates (in evaluation order)", _markdown_gates(verdict.gates)]
    if verdict.outcome is not None:
        parts += ["### Outcome", _markdown_outcome(verdict.outcome)]
    if verdict.evidence_method:
        parts.append(f"Work evidence: {code_span(verdict.evidence_method)}")
    if verdict.execution_evidence:
        parts += ["## Execution Evidence", render_record_table(verdict.execution_evidence).rstrip("\n")]
    return "\n\n".join(parts)


def _markdown_stages(verdict: Verdict) -> str:
    rows = [f"| {stage.stage} | {stage.status} | {stage.duration_ms:.2f} | {markdown_text(stage.detail)} |"
            for stage in verdict.stages]
    return "\n".join(["| Stage | Status | Time (ms) | Detail |", "|-------|--------|-----------|--------|", *rows])


def _markdown_findings(verdict: Verdict) -> str:
    items = [f"- **{finding.severity}** {code_span(finding.rule)}: {markdown_text(finding.message)}"
             for finding in verdict.findings]
    return "\n".join(items) or "None."


def _gate_lines(gates: tuple[GateResult, ...]) -> list[str]:
    if not gates:
        return []
    lines = ["gates, in evaluation order:"]
    for gate in gates:
        source = "" if gate.source == "step" else f" (from the {gate.source})"
        described = f" - {gate.description}" if gate.description else ""
        rule = f" [{gate.rule}]" if gate.rule else ""
        lines.append(_one_line(f"  {gate.status:<7} #{gate.index} {gate.type}{source}{described}:{rule} {gate.message}"))
    return lines


def _one_line(text: str) -> str:
    """A gate's line stays one line on a terminal: a description or a command's output tail may hold newlines or
    terminal escapes, shown as their escapes."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def _outcome_line(outcome: Outcome) -> str:
    missing = ", ".join(outcome.missing_fields) or "none"
    return (f"outcome: accepted {str(outcome.accepted).lower()}, nextAction {outcome.next_action}, "
            f"missingFields: {missing}")


def _markdown_gates(gates: tuple[GateResult, ...]) -> str:
    rows = []
    for gate in gates:
        name = code_span(gate.type) + (f" — {markdown_text(gate.description)}" if gate.description else "")
        rule = f"{code_span(gate.rule)}: " if gate.rule else ""
        rows.append(f"| {gate.index} | {name} | {markdown_text(gate.source)} | {markdown_text(gate.status)} "
                    f"| {rule}{markdown_text(gate.message)} |")
    return "\n".join(["| # | Gate | Source | Status | Result |", "|---|------|--------|--------|--------|", *rows])


def _markdown_outcome(outcome: Outcome) -> str:
    missing = ", ".join(code_span(name) for name in outcome.missing_fields) or "none"
    lines = [f"- accepted: **{str(outcome.accepted).lower()}**", f"- next action: {code_span(outcome.next_action)}",
             f"- missing fields: {missing}"]
    return "\n".join(lines)


def _evidence_lines(verdict: Verdict) -> list[str]:
    """How the step proved its work, and each attached command run with its hash and artifacts."""
    lines = [f"work evidence: {verdict.evidence_method}"] if verdict.evidence_method else []
    if verdict.execution_evidence:
        lines.append("execution evidence:")
    for record in verdict.execution_evidence:
        code = "-" if record.exit_code is None else record.exit_code
        lines.append(f"  {record.status:<11} exit {code} in {record.duration_seconds:g} s: {shlex.join(record.command)[:200]}")
        lines.append(f"    run {record.run_id} step {record.step_id}, sha256 {record.evidence_hash}")
        if record.artifacts:
            lines.append(f"    artifacts: {', '.join(record.artifacts)}")
    return lines


def _semantic_lines(report: SemanticReport) -> list[str]:
    cost = "unknown" if report.cost_usd is None else f"${report.cost_usd:.6f}"
    lines = [
        f"semantic review: model {report.model}, prompt {report.prompt_version} sha256 {report.prompt_sha256[:12]}, "
        f"output mode {report.output_mode}",
        f"  tokens {report.prompt_tokens} in / {report.completion_tokens} out, cost {cost}, "
        f"agreement {report.agreement:.0%} over {len(report.samples)} sample(s)",
    ]
    if report.patch_reduction:
        lines.append(f"  patch {report.patch_reduction}")
    for index, sample in enumerate(report.samples):
        said = {True: "valid", False: "invalid", None: "no answer"}[sample.valid]
        lines.append(f"  sample {index}: {said} - {sample.reason or sample.error}")
    for call in report.calls:
        error = f" - {call.error}" if call.error else ""
        lines.append(f"  call sample {call.sample} {call.purpose}: {call.attempts} attempt(s), {call.latency_ms:.0f} ms{error}")
    return lines
