"""Batch evaluation of labelled cases: run them, measure, report."""

from judge.eval.metrics import Metrics, compute_metrics
from judge.eval.record import CaseRecord
from judge.eval.runner import RunResult, run_eval

__all__ = ["CaseRecord", "Metrics", "RunResult", "compute_metrics", "run_eval"]
