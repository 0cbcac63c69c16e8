"""The human reading of a Verdict (`judge validate --explain`): stages, then findings."""

from __future__ import annotations

from judge.verdict import Verdict

__all__ = ["render_explanation"]


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
    return "\n".join(lines)
