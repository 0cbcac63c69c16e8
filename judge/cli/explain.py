"""The human reading of a Verdict (`judge validate --explain`): stages, then findings, as text or as Markdown."""

from __future__ import annotations

import shlex

from judge.runs.evidence_table import code_span, markdown_text, render_evidence_table
from judge.verdict import SemanticReport
from judge.verdict import Verdict

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
    if verdict.evidence_method:
        parts.append(f"Work evidence: {code_span(verdict.evidence_method)}")
    if verdict.execution_evidence:
        parts += ["## Execution Evidence", render_evidence_table(verdict.execution_evidence).rstrip("\n")]
    return "\n\n".join(parts)


def _markdown_stages(verdict: Verdict) -> str:
    rows = [f"| {stage.stage} | {stage.status} | {stage.duration_ms:.2f} | {markdown_text(stage.detail)} |"
            for stage in verdict.stages]
    return "\n".join(["| Stage | Status | Time (ms) | Detail |", "|-------|--------|-----------|--------|", *rows])


def _markdown_findings(verdict: Verdict) -> str:
    items = [f"- **{finding.severity}** {code_span(finding.rule)}: {markdown_text(finding.message)}"
             for finding in verdict.findings]
    return "\n".join(items) or "None."


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
