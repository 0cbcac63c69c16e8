"""The service's OpenAPI 3.1 document, built from the files in schemas/ (they are its request and response schemas)
and, for `?explain=1`, from the pydantic Verdict model."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from judge.contract.schema import SCHEMA_FILES, load_schema
from judge.verdict import Verdict
from judge.version import __version__

__all__ = ["ROOT_KINDS", "file_components", "full_verdict_schemas", "openapi_document"]

# The schemas/ files the API names; the files they reference come along.
ROOT_KINDS = ("validate-request", "verdict", "error")
_REF = "#/components/schemas/{model}"
_KIND_OF_FILE = {name: kind for kind, name in SCHEMA_FILES.items()}


def file_components() -> dict[str, Any]:
    """Each schemas/ file the API uses, named by its title, as it is but for two things OpenAPI tools need: no
    `$id`/`$schema` (they would make it a document of its own), and a reference to another file names that
    file's component (`step.schema.json` -> `#/components/schemas/Step`)."""
    components: dict[str, Any] = {}
    pending = list(ROOT_KINDS)
    while pending:
        schema = load_schema(pending.pop())
        if schema["title"] in components:
            continue
        body = {key: value for key, value in schema.items() if key not in ("$id", "$schema")}
        components[schema["title"]] = _local_refs(body, pending)
    return components


def _local_refs(node: Any, pending: list[str]) -> Any:
    """``node`` with every reference to a schemas/ file made a component reference; the files go on ``pending``."""
    if isinstance(node, list):
        return [_local_refs(item, pending) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref in _KIND_OF_FILE:
        pending.append(_KIND_OF_FILE[ref])
        return {**node, "$ref": _REF.format(model=load_schema(_KIND_OF_FILE[ref])["title"])}
    return {key: _local_refs(value, pending) for key, value in node.items()}


def full_verdict_schemas() -> dict[str, Any]:
    """The full Verdict (``model_dump(mode="json", by_alias=True)``) as components: FullVerdict and the models it
    names; its execution records are the ExecutionEvidence of schemas/, the shape `judge run` writes."""
    schema = Verdict.model_json_schema(mode="serialization", ref_template=_REF)
    defs = schema.pop("$defs")
    defs.pop("ExecutionEvidence")  # the reference stays: it names the schemas/ component of that name
    return {"FullVerdict": {**schema, "title": "FullVerdict"}, **defs}


@lru_cache(maxsize=1)
def openapi_document() -> dict[str, Any]:
    components = {**file_components(), **full_verdict_schemas()}
    components["Health"] = _object({"status": {"const": "ok"}})
    components["Version"] = _object({"name": {"const": "judge"}, "version": {"type": "string"}})
    return {
        "openapi": "3.1.0",
        "info": {"title": "judge", "version": __version__,
                 "description": "Decides whether a coding agent really did its plan step: the pipeline of "
                                "`judge validate` over HTTP."},
        "paths": {
            "/v1/validate": {"post": _validate_operation()},
            "/healthz": {"get": _get("health", "Alive; needs no token.", "Health", open_=True)},
            "/version": {"get": _get("version", "judge's version.", "Version")},
            "/openapi.json": {"get": _get("openapi", "This document.", None)},
        },
        "components": {"schemas": components,
                       "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                                      "description": "JUDGE_SERVER_TOKEN, when the server has one"}}},
        # a server without a token needs none; one with a token needs it on every path but /healthz
        "security": [{}, {"bearer": []}],
    }


def _validate_operation() -> dict[str, Any]:
    verdicts = {"anyOf": [_ref("Verdict"), _ref("FullVerdict")]}
    return {
        "operationId": "validate",
        "summary": "Judge one executor result for one step.",
        "description": "200 with the verdict `{valid, reason}` (with `?explain=1`: the full Verdict), "
                       "also when the step or result breaks its schema (schema_invalid). Every other status "
                       "carries an Error and never `valid`.",
        "parameters": [{"name": "explain", "in": "query", "required": False,
                        "schema": {"enum": ["0", "1", "false", "true"]},
                        "description": "1: answer with the full Verdict (rule, findings, stages, gates, outcome)."}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("ValidateRequest")}}},
        "responses": {
            "200": {**_json("The verdict. `valid` says whether the executor's report holds up; the headers say "
                            "whether the step is accepted (a valid report of a step not done is not).", verdicts),
                    "headers": {
                        "Judge-Accepted": {"description": "true when the orchestrator may take the step as done",
                                           "schema": {"enum": ["true", "false"]}},
                        "Judge-Next-Action": {"description": "What the orchestrator does next (the full verdict's "
                                              "outcome.nextAction)",
                                              "schema": {"enum": ["advance", "retry", "diagnose", "pause_for_human"]}},
                    }},
            **{str(status): _error(why) for status, why in (
                (400, "Not JSON, not the request's shape, a workspace the server may not or cannot open, or an "
                      "evidence key it cannot read."),
                (401, "No token, or the wrong one."),
                (403, "A Host that is not this loopback server's."),
                (408, "The body did not arrive whole within the server's --request-timeout."),
                (413, "The body is over the server's --max-body."),
                (415, "The body is not declared application/json."),
                (500, "A bug in judge; nothing was judged."),
                (504, "Not judged within the server's --request-timeout."))},
            "503": {**_error("Every validation slot is in use, or the bodies being read fill the server's budget for "
                             "them; retry after Retry-After seconds."),
                    "headers": {"Retry-After": {"required": True, "schema": {"type": "string", "pattern": "^[0-9]+$"}}}},
        },
    }


def _get(operation: str, summary: str, component: str | None, open_: bool = False) -> dict[str, Any]:
    schema = _ref(component) if component else {"type": "object"}
    responses = {"200": _json(summary, schema), "403": _error("A Host that is not this loopback server's.")}
    if not open_:
        responses["401"] = _error("No token, or the wrong one.")
    return {"operationId": operation, "summary": summary, "responses": responses,
            **({"security": []} if open_ else {})}


def _error(description: str) -> dict[str, Any]:
    return _json(description, _ref("Error"))


def _json(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": sorted(properties), "properties": properties, "additionalProperties": False}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF.format(model=name)}
