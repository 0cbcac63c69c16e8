"""The body of `POST /v1/validate` (schemas/validate-request.schema.json) read into what the pipeline takes.

Order as on the command line: the contract first (a step or result that breaks its schema is a schema_invalid
verdict and no workspace is read), then the workspace, confined to the server's roots and checked readable.
Runs in a worker thread: parsing JSON and reading git are blocking work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge.contract.jsonio import parse_json
from judge.errors import InputError
from judge.serve.replies import Refusal
from judge.workspace.checked import contract_then_workspace
from judge.workspace.facts import Workspace
from judge.workspace.roots import REQUEST_FIELD_NAMES, WorkspaceRoots

__all__ = ["REQUEST_KEYS", "ValidateRequest", "read_request"]

REQUEST_KEYS = ("step", "result", "workspace", "evidence")
_REQUIRED = ("step", "result")


@dataclass(frozen=True)
class ValidateRequest:
    """What to judge: the step and result (models once they passed their contract), the workspace, the records."""

    step: Any
    result: Any
    workspace: Workspace | None
    evidence: tuple[Any, ...]


def read_request(body: bytes, roots: WorkspaceRoots) -> ValidateRequest:
    """The request in ``body``; Refusal (400) when it is not the request's JSON object or names a workspace the
    server cannot or may not read."""
    request = _json_object(body)
    unknown = sorted(set(request) - set(REQUEST_KEYS))
    if unknown:
        raise Refusal("invalid_request", f"the request has unknown key(s) {', '.join(map(repr, unknown))}; its keys "
                      f"are {', '.join(REQUEST_KEYS)} (the model, its API base and keys are the server's own settings)")
    missing = [key for key in _REQUIRED if key not in request]
    if missing:
        raise Refusal("invalid_request", f"the request has no {' and no '.join(missing)}; send "
                      "{\"step\": <step JSON>, \"result\": <executor result JSON>}")
    evidence = request.get("evidence")
    if evidence is not None and not isinstance(evidence, list):
        raise Refusal("invalid_request", "evidence must be a list of execution records as `judge run` writes them")
    try:
        workspace = roots.workspace(request["workspace"]) if request.get("workspace") is not None else None
        step, result = request["step"], request["result"]
        if workspace is not None:
            step, result, workspace = contract_then_workspace(step, result, workspace)
    except InputError as exc:
        raise Refusal("invalid_request", exc.render(REQUEST_FIELD_NAMES)) from None
    return ValidateRequest(step, result, workspace, tuple(evidence or ()))


def _json_object(body: bytes) -> dict:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refusal("invalid_json", f"the request body is not UTF-8 (byte {exc.start}); send UTF-8 JSON") from None
    try:
        value = parse_json(text, "the request body")
    except InputError as exc:
        raise Refusal("invalid_json", str(exc)) from None
    if not isinstance(value, dict):
        raise Refusal("invalid_request", "the request body must be a JSON object: "
                      "{\"step\": ..., \"result\": ..., \"workspace\"?: ..., \"evidence\"?: [...]}")
    return value
