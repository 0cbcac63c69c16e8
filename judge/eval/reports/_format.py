"""Helpers the report renderers and `compare` share: reading a JSON report's cases, formatting numbers."""

from __future__ import annotations

from typing import Any

__all__ = ["decimal", "expected_text", "got_text", "is_wrong", "kappa_text", "model_of", "pct", "wrong_cases"]


def is_wrong(case: dict[str, Any]) -> bool:
    """Wrong verdict, or the right rejection for another rule than the label's (CaseRecord.rule_correct)."""
    if case.get("expectedValid") != case.get("valid"):
        return True
    return not case.get("expectedValid") and case.get("expectedRule") not in (None, case.get("rule"))


def wrong_cases(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [case for case in report.get("cases", []) if is_wrong(case)]


def expected_text(case: dict[str, Any]) -> str:
    if case.get("expectedValid"):
        return "valid"
    return f"invalid: {case['expectedRule']}" if case.get("expectedRule") else "invalid"


def got_text(case: dict[str, Any]) -> str:
    if case.get("valid"):
        return "valid"
    return f"invalid: {case['rule']}" if case.get("rule") else "invalid"


def model_of(report: dict[str, Any]) -> str:
    settings = report.get("settings") or {}
    if not settings.get("model") or settings.get("semantic") == "off":
        return "no model (contract and rules only)"
    samples = settings.get("samples") or 1
    return str(settings["model"]) + (f", {samples} samples" if samples > 1 else "")


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def decimal(value: float | None, places: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{places}f}"


def kappa_text(metrics: dict[str, Any]) -> str:
    """``0.702 [0.572, 0.832]``, or ``n/a (why)`` when kappa is undefined."""
    if metrics.get("kappa") is None:
        why = metrics.get("kappaUndefined")
        return f"n/a ({why})" if why else "n/a"
    ci = metrics.get("kappaCi") or {}
    interval = f" [{decimal(ci.get('low'))}, {decimal(ci.get('high'))}]" if ci else ""
    return decimal(metrics["kappa"]) + interval
