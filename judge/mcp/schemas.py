"""The MCP tools' JSON Schemas: the contract's schemas (schemas/) bundled into self-contained documents.

An MCP client sees a tool's schema alone (the SDK's client validates with an empty registry), so every `$ref`
between schema files (step.schema.json -> gate.schema.json) becomes a local `#/$defs/...` pointer to a copy of
the file, found through judge.contract.schema.schema_registry().
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import urldefrag, urljoin

from judge.contract.schema import SCHEMA_FILES, load_schema, schema_registry
from judge.rule_ids import CATALOG

__all__ = ["EXPLAIN_RULES_INPUT", "INSTRUCTIONS_INPUT", "RULES_OUTPUT", "VALIDATE_INPUT", "VERDICT_OUTPUT",
           "bundled", "schema_id"]

_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_id(kind: str) -> str:
    """The `$id` of schemas/ file ``kind`` (a key of SCHEMA_FILES, e.g. "step")."""
    return load_schema(kind)["$id"]


def bundled(root: dict) -> dict:
    """``root`` with every schema it refers to by URI copied into its `$defs` and every `$ref` made local.

    A referenced file's own internal pointers (`#/$defs/count`) are re-rooted below its copy.
    """
    registry = schema_registry()
    keys = {schema_id(kind): kind for kind in SCHEMA_FILES}
    defs: dict[str, Any] = {}

    def local(ref: str, base: str | None, prefix: str) -> str:
        target, fragment = urldefrag(urljoin(base, ref) if base else ref)
        if not target or target == base:  # a pointer inside the document being copied
            return "#" + prefix + fragment
        key = keys[target]  # KeyError: a $ref to no schema of schemas/, a bug in the schemas
        if key not in defs:
            defs[key] = {}  # claimed before the walk, so schemas that refer to each other end
            contents = {k: v for k, v in registry.contents(target).items() if k not in ("$id", "$schema")}
            defs[key] = walk(contents, target, f"/$defs/{key}")
        return f"#/$defs/{key}{fragment}"

    def walk(node: Any, base: str | None, prefix: str) -> Any:
        if isinstance(node, dict):
            return {k: local(v, base, prefix) if k == "$ref" and isinstance(v, str) else walk(v, base, prefix)
                    for k, v in node.items()}
        if isinstance(node, list):
            return [walk(item, base, prefix) for item in node]
        return node

    result = walk(copy.deepcopy(root), None, "")
    return {"$schema": _DIALECT, **result, "$defs": {**result.get("$defs", {}), **defs}}


_WORKSPACE = {
    "type": "object",
    "additionalProperties": False,
    "description": "The repository the step ran in, read-only, shaped like judge.Workspace. Paths are absolute and "
                   "inside a --workspace-root of this server; without one, the server judges patches only.",
    "properties": {
        "repo": {"type": "string", "description": "The top of the git work tree (needs base)."},
        "base": {"type": "string", "description": "The full 40-character id of the commit the step started from."},
        "ledger": {"type": "string", "description": "An append-only JSONL ledger that must record the operation."},
        "ledger_op": {"type": "string", "description": "The operation the ledger must record (default close)."},
        "ledger_id": {"type": "string", "description": "The id it must be for (default: the step id)."},
    },
}

VALIDATE_INPUT: dict = bundled({
    "type": "object",
    "required": ["step", "result"],
    "additionalProperties": False,
    "properties": {
        "step": {"$ref": schema_id("step"), "description": "The plan step (schemas/step.schema.json)."},
        "result": {"$ref": schema_id("result"),
                   "description": "The executor's result (schemas/execute-step.schema.json)."},
        "workspace": _WORKSPACE,
        "evidence": {"type": "array", "items": {"$ref": schema_id("execution-evidence")},
                     "description": "Execution records written by `judge run` (schemas/execution-evidence.schema.json)."},
        "explain": {"type": "boolean", "default": False,
                    "description": "Return the full verdict (rule, findings, stages, gates, outcome), not only "
                                   "valid and reason."},
    },
})

VERDICT_OUTPUT: dict = {
    **{k: v for k, v in load_schema("verdict").items() if k not in ("$id", "$schema", "additionalProperties")},
    "description": "judge's verdict: valid and reason (schemas/verdict.schema.json); with explain, the full verdict, "
                   "which holds them too.",
}

EXPLAIN_RULES_INPUT: dict = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "rule": {"enum": sorted({info.id for info in CATALOG}), "description": "One rule id."},
        "stage": {"enum": sorted({info.stage for info in CATALOG}), "description": "Only the rules of this stage."},
    },
}

RULES_OUTPUT: dict = {
    "type": "object",
    "required": ["rules"],
    "properties": {"rules": {"type": "array", "items": {
        "type": "object", "required": ["id", "stage", "when"],
        "properties": {"id": {"type": "string"}, "stage": {"type": "string"}, "when": {"type": "string"}}}}},
}

INSTRUCTIONS_INPUT: dict = bundled({
    "type": "object",
    "additionalProperties": False,
    "properties": {"step": {"$ref": schema_id("step"),
                            "description": "The step (schemas/step.schema.json); without it, the instructions "
                                           "for any step."}},
})
