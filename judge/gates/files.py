"""File-system and structured-proof gates (seed 004, 4, 5 and 11): what the work tree holds at a path, read by
judge without following a link; a JSON file checked against a full JSON Schema (draft 2020-12)."""

from __future__ import annotations

import json

from judge.gates.context import FileProbe, GateCheck, GateContext
from judge.gates.spec import SpecGate

__all__ = ["file_exists", "file_not_exists", "json_schema_valid", "needs_workspace"]


def needs_workspace(spec: SpecGate) -> GateCheck:
    """The answer of a gate that reads the work tree when the caller gave none: fail closed, not the executor's fault."""
    return GateCheck(False, f"reads the work tree, and no workspace was given: validate with --repo PATH --base SHA "
                            f"(judge.Workspace) so {spec.gate.type} can be checked", retryable=False)


def file_exists(g: GateContext, spec: SpecGate) -> GateCheck:
    if not g.has_workspace:
        return needs_workspace(spec)
    path, probe = spec.gate.param("path"), _probe(g, spec)
    if probe.kind in ("file", "too large"):
        return GateCheck.ok(f"{path} exists")
    return GateCheck(False, f"{path} {_what(probe)} in the work tree; the step must create it as a regular file")


def file_not_exists(g: GateContext, spec: SpecGate) -> GateCheck:
    if not g.has_workspace:
        return needs_workspace(spec)
    path, probe = spec.gate.param("path"), _probe(g, spec)
    if probe.kind == "missing":
        return GateCheck.ok(f"{path} does not exist")
    return GateCheck(False, f"{path} exists in the work tree ({probe.kind}); the step must not leave it there")


def json_schema_valid(g: GateContext, spec: SpecGate) -> GateCheck:
    if not g.has_workspace:
        return needs_workspace(spec)
    path, probe = spec.gate.param("path"), _probe(g, spec)
    if probe.kind != "file" or probe.data is None:
        return GateCheck(False, f"{path} {_what(probe)} in the work tree; it must be a JSON file")
    try:
        document = json.loads(probe.data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return GateCheck(False, f"{path} is not valid JSON ({str(exc)[:120]}); write valid JSON there")
    from jsonschema.exceptions import best_match
    from referencing.exceptions import Unresolvable

    from judge.contract.patterns import schema_validator

    # RE2 for the schema's patterns; the metaschemas and nothing else to resolve (never a remote $ref).
    validator = schema_validator(spec.gate.param("schema"))
    try:
        error = best_match(validator.iter_errors(document))
    except Unresolvable as exc:
        return GateCheck(False, f"the gate's JSON Schema has a $ref judge cannot resolve ({str(exc)[:160]}); judge "
                                "never fetches a schema: put what it refers to under the schema's $defs",
                         retryable=False)
    if error is not None:
        where = error.json_path
        return GateCheck(False, f"{path} breaks the gate's JSON Schema at {where}: {error.message[:200]}; "
                                "make the file match it")
    return GateCheck.ok(f"{path} matches the gate's JSON Schema")


def _probe(g: GateContext, spec: SpecGate) -> FileProbe:
    return g.files.get(spec.gate.param("path"), FileProbe("missing"))


def _what(probe: FileProbe) -> str:
    if probe.kind == "missing":
        return "does not exist"
    if probe.kind == "too large":
        return "is too large for judge to read"
    return f"is a {probe.kind}, not a regular file"
