"""The finding every signal makes: severity signal, naming files and lines in judge's own words."""

from __future__ import annotations

from judge.rules.phrasing import names
from judge.findings import Finding

__all__ = ["signal", "where"]


def where(found: dict[str, list[int]]) -> str:
    """``a.py (line 3, 9), b.ts (line 1)``: files with the new-file lines where something was seen."""
    return names([f"{path} (line {', '.join(map(str, lines[:5]))}{', ...' if len(lines) > 5 else ''})"
                  for path, lines in found.items()])


def signal(rule: str, message: str, files: tuple[str, ...] | list[str]) -> Finding:
    return Finding(rule=rule, severity="signal", message=message, files=tuple(files))
