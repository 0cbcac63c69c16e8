"""How the report renderers and `compare` write numbers: percentages, decimals, kappa with its interval, and an
undefined metric as "n/a (why)"."""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["decimal", "kappa_text", "metric_text", "pct", "undefined_reason", "usd"]


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def decimal(value: float | None, places: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{places}f}"


def usd(value: float) -> str:
    return f"${value:.4f}"


def undefined_reason(metrics: dict[str, Any], key: str) -> str | None:
    """Why ``metrics[key]`` is null: from ``undefinedMetrics`` (kappa also from ``kappaUndefined``, which reports
    older than ``undefinedMetrics`` hold); "not in this report" when the key is missing (an older report)."""
    reasons = metrics.get("undefinedMetrics")
    why = reasons.get(key) if isinstance(reasons, dict) else None
    if why is None and key == "kappa":
        why = metrics.get("kappaUndefined")
    if why is None and key not in metrics:
        why = "not in this report"
    return str(why) if why is not None else None


def metric_text(metrics: dict[str, Any], key: str, render: Callable[[Any], str] = pct) -> str:
    """``metrics[key]`` rendered, or ``n/a (why)`` when it is undefined."""
    value = metrics.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return render(value)
    why = undefined_reason(metrics, key)
    return f"n/a ({why})" if why else "n/a"


def kappa_text(metrics: dict[str, Any]) -> str:
    """``0.702 [0.572, 0.832]``, or ``n/a (why)`` when kappa is undefined."""
    if metrics.get("kappa") is None:
        return metric_text(metrics, "kappa")
    ci = metrics.get("kappaCi") or {}
    interval = f" [{decimal(ci.get('low'))}, {decimal(ci.get('high'))}]" if ci else ""
    return decimal(metrics["kappa"]) + interval
