"""Batch evaluation of labelled cases: read the set, judge it, measure, report; no argparse (that is judge/cli/eval.py)."""
