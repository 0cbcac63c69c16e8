"""Change-control gates (seed 004, 6-10): which files changed and how many lines, read from git with a workspace,
else from the patch — never from the agent's own list."""

from __future__ import annotations

from judge.gates.context import GateCheck, GateContext
from judge.gates.spec import SpecGate
from judge.patch.globs import matches_any

__all__ = ["shown_paths", "changed_files_allowlist", "changed_files_minimum", "diff_max_lines", "diff_min_lines", "forbid_paths"]

_SHOWN = 5


def changed_files_allowlist(g: GateContext, spec: SpecGate) -> GateCheck:
    allowed = spec.gate.param("allowed")
    outside = [path for path in g.changed_files if not matches_any(path, allowed)]
    if outside:
        return GateCheck(False, f"{shown_paths(outside)} {'is' if len(outside) == 1 else 'are'} outside the allowed "
                                f"files {_patterns(allowed)}: revert {'it' if len(outside) == 1 else 'them'} or "
                                "keep the change inside the allowlist")
    return GateCheck.ok(f"all {len(g.changed_files)} changed file(s) match {_patterns(allowed)}")


def changed_files_minimum(g: GateContext, spec: SpecGate) -> GateCheck:
    paths, wanted = spec.gate.param("paths"), spec.gate.param("min_count")
    hit = [path for path in g.changed_files if matches_any(path, paths)]
    if len(hit) < wanted:
        found = f": only {shown_paths(hit)}" if hit else ""
        return GateCheck(False, f"{len(hit)} changed file(s) match {_patterns(paths)}, at least {wanted} must{found}; "
                                "change the files the step is about")
    return GateCheck.ok(f"{len(hit)} changed file(s) match {_patterns(paths)} (at least {wanted})")


def forbid_paths(g: GateContext, spec: SpecGate) -> GateCheck:
    paths = spec.gate.param("paths")
    hit = [path for path in g.changed_files if matches_any(path, paths)]
    if hit:
        return GateCheck(False, f"{shown_paths(hit)} match{'es' if len(hit) == 1 else ''} the forbidden paths "
                                f"{_patterns(paths)}: revert the change there")
    return GateCheck.ok(f"no changed file matches {_patterns(paths)}")


def diff_max_lines(g: GateContext, spec: SpecGate) -> GateCheck:
    limit = spec.gate.param("max")
    if g.changed_lines > limit:
        return GateCheck(False, f"the change adds and removes {g.changed_lines} lines, more than the maximum of "
                                f"{limit}: make a smaller change or split the step")
    return GateCheck.ok(f"{g.changed_lines} changed lines (at most {limit})")


def diff_min_lines(g: GateContext, spec: SpecGate) -> GateCheck:
    least = spec.gate.param("min")
    if g.changed_lines < least:
        return GateCheck(False, f"the change adds and removes {g.changed_lines} lines, fewer than the minimum of "
                                f"{least}: the step's change is missing")
    return GateCheck.ok(f"{g.changed_lines} changed lines (at least {least})")


def shown_paths(paths: list[str]) -> str:
    """The first few paths, and how many more."""
    shown = ", ".join(paths[:_SHOWN])
    return shown + (f" and {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else "")


def _patterns(patterns: tuple[str, ...]) -> str:
    return "[" + ", ".join(repr(p) for p in patterns[:_SHOWN]) + (", ...]" if len(patterns) > _SHOWN else "]")
