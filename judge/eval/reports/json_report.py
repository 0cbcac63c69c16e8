"""The JSON report of a run: what every other report, `merge` and `compare` read (schemas/eval-report.schema.json)."""

from __future__ import annotations

from typing import Any

from judge.eval.cases import BadLine
from judge.eval.metrics import compute_metrics, llm_options
from judge.eval.record import CaseRecord

__all__ = ["REPORT_VERSION", "build_report", "records_of"]

REPORT_VERSION = 1


def build_report(records: tuple[CaseRecord, ...] | list[CaseRecord], bad_lines: tuple[BadLine, ...] | list[BadLine],
                 meta: dict[str, Any]) -> dict[str, Any]:
    """``meta``: runId, source, setSha256, shard, judgeVersion, promptSha256, settings, seconds, resumed."""
    return {
        "reportVersion": REPORT_VERSION,
        **meta,
        "metrics": compute_metrics(list(records), **llm_options(meta.get("settings"))).to_json(),
        "badLines": [{"line": b.line, "problem": b.problem} for b in bad_lines],
        "cases": [record.to_json() for record in records],
    }


def records_of(report: dict[str, Any]) -> list[CaseRecord]:
    return [CaseRecord.from_json(case) for case in report.get("cases", [])]
