"""Batch evaluation of labelled cases: run them, measure, report."""

from judge.eval.metrics import Metrics, compute_metrics
from judge.eval.runner import CaseOutcome, run_eval

__all__ = ["CaseOutcome", "Metrics", "compute_metrics", "run_eval"]
