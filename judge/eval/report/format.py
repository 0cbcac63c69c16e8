"""How the report renderers and `compare` write numbers: percentages, decimals, kappa with its interval."""

from __future__ import annotations

from typing import Any

__all__ = ["decimal", "kappa_text", "pct"]


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
