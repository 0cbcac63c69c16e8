"""The body of `POST /v1/validate` (schemas/validate-request.schema.json) read into judge.intake's Request.

The body must be one UTF-8 JSON object; its shape, the contract and the workspace are judge.intake's to read,
under the policy every interface shares. Runs in a worker thread: parsing JSON and reading git are blocking work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.contract.jsonio import parse_json
from judge.errors import InputError
from judge.intake import Request, asked_of, take
from judge.serve.replies import Refusal
from judge.workspace.roots import REQUEST_FIELD_NAMES, WorkspaceRoots

if TYPE_CHECKING:
    from judge.config import JudgeConfig

__all__ = ["read_request"]

_NAMES = {**REQUEST_FIELD_NAMES, "request": "the request"}


def read_request(body: bytes, roots: WorkspaceRoots, config: "JudgeConfig") -> Request:
    """The Request in ``body``; Refusal (400) when it is not the request's JSON object, or names a workspace or
    relies on an evidence key that cannot be opened."""
    request = _json_object(body)
    try:
        asked = asked_of(request, roots)
        taken = take(asked.step, asked.result, records=asked.records, workspace=asked.workspace, config=config)
        refusal = taken.refusal(own_key=False)  # the key is the server's: a problem with it is a verdict
        if refusal is not None:
            raise refusal
    except InputError as exc:
        raise Refusal("invalid_request", exc.render(_NAMES)) from None
    return taken


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
                      "{\"step\": ..., \"result\": ..., \"workspace\"?: ..., \"records\"?: [...]}")
    return value
