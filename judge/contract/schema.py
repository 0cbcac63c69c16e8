"""Stage 1: check raw input against schemas/ (the source of truth) and build the pydantic models."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel
from pydantic import ValidationError as PydanticError

from judge.errors import ContractViolation
from judge.contract.gates import StepTemplate
from judge.contract.models import EvalCase, EvidenceFile, ExecuteStepResult, ExecutionEvidence, Step, VerdictContract

if TYPE_CHECKING:
    from judge.contract.approvals import Approval

__all__ = [
    "SCHEMA_FILES", "load_schema", "parse_step", "parse_result", "parse_eval_case",
    "parse_evidence_file", "parse_execution_evidence", "parse_step_template", "parse_verdict", "parse_approval",
    "schema_registry",
]

SCHEMA_FILES = {
    "step": "step.schema.json",
    "result": "execute-step.schema.json",
    "verdict": "verdict.schema.json",
    "eval-case": "eval-case.schema.json",
    "evidence-file": "evidence-file.schema.json",
    "execution-evidence": "execution-evidence.schema.json",
    "eval-report": "eval-report.schema.json",
    "gate": "gate.schema.json",
    "evidence-schema": "evidence-schema.schema.json",
    "policies": "policies.schema.json",
    "evidence-doc": "evidence-doc.schema.json",
    "step-template": "step-template.schema.json",
    "approval": "approval.schema.json",
    "drive-request": "drive-request.schema.json",
    "drive-transcript": "drive-transcript.schema.json",
    "validate-request": "validate-request.schema.json",
    "error": "error.schema.json",
}

M = TypeVar("M", bound=BaseModel)


@lru_cache(maxsize=None)
def load_schema(kind: str) -> dict:
    name = SCHEMA_FILES[kind]
    try:
        text = resources.files("judge.schemas").joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):  # running from a source tree that is not installed
        text = (Path(__file__).resolve().parents[2] / "schemas" / name).read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=None)
def schema_registry() -> Any:
    """Every schema of schemas/ by its $id, so one may $ref another (step.schema.json -> gate.schema.json)."""
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    schemas = (load_schema(kind) for kind in SCHEMA_FILES)
    return Registry().with_resources((schema["$id"], DRAFT202012.create_resource(schema)) for schema in schemas)


@lru_cache(maxsize=None)
def _validator(kind: str) -> Any:
    from jsonschema import Draft202012Validator  # only to word a breach: jsonschema costs ~50 ms to import

    return Draft202012Validator(load_schema(kind), registry=schema_registry())


def parse_step(data: Any) -> Step:
    return _parse("step", Step, data)


def parse_result(data: Any) -> ExecuteStepResult:
    return _parse("result", ExecuteStepResult, data)


def parse_eval_case(data: Any) -> EvalCase:
    return _parse("eval-case", EvalCase, data)


def parse_verdict(data: Any) -> VerdictContract:
    return _parse("verdict", VerdictContract, data)


def parse_evidence_file(data: Any) -> EvidenceFile:
    return _parse("evidence-file", EvidenceFile, data)


def parse_execution_evidence(data: Any) -> ExecutionEvidence:
    return _parse("execution-evidence", ExecutionEvidence, data)


def parse_step_template(data: Any) -> StepTemplate:
    return _parse("step-template", StepTemplate, data)


def parse_approval(data: Any) -> Approval:
    from judge.contract.approvals import Approval  # only approvals read it: a plain validate never builds the model

    return _parse("approval", Approval, data)


def _parse(kind: str, model: type[M], data: Any) -> M:
    """The model, validated once by pydantic; a breach is worded from the schema, the source of truth.

    The two agree on every input (tests/contract/test_schema.py holds them together), so the schema is
    consulted only to say where and why an input breaks its contract.
    """
    try:
        return model.model_validate(data)
    except PydanticError as exc:
        violation = _worded_by_schema(kind, data)
        if violation is not None:
            raise violation from None
        first = exc.errors()[0]  # the schema let it through but the model did not: still a contract breach
        loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
        raise ContractViolation(kind, SCHEMA_FILES[kind], f"$.{kind}{loc}", first["msg"]) from None


def _worded_by_schema(kind: str, data: Any) -> ContractViolation | None:
    """The breach as the schema words it; None when the schema finds none or cannot word it: jsonschema
    repr()s the value, which raises for an int too long for str() and for lists nested past the recursion
    limit (only the Python API can pass either: JSON text that deep or that long is refused when read)."""
    from jsonschema.exceptions import best_match

    try:
        error = best_match(_validator(kind).iter_errors(data))
        if error is None:
            return None
        return ContractViolation(kind, SCHEMA_FILES[kind], _json_path(kind, error), _describe(error) + _gate_of(error, data))
    except (ValueError, RecursionError):
        return None


def _gate_of(error: Any, data: Any) -> str:
    """" (gate TYPE)" when the breach is inside a step's gate: an orchestrator reads the gate's type, not its index."""
    path = list(error.absolute_path)
    if len(path) < 2 or path[0] != "gates" or not isinstance(path[1], int) or not isinstance(data, dict):
        return ""
    gates = data.get("gates")
    gate = gates[path[1]] if isinstance(gates, list) and path[1] < len(gates) else None
    kind = gate.get("type") if isinstance(gate, dict) else None
    return f" (gate {kind})" if isinstance(kind, str) and len(kind) <= 60 else ""


def _json_path(kind: str, error: Any) -> str:
    path = "$." + kind + error.json_path[1:]
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = next((key for key in error.validator_value if key not in error.instance), None)
        if missing is not None:
            path += f".{missing}"
    return path


def _describe(error: Any) -> str:
    """A short description that never echoes a huge value back."""
    rule, expected = error.validator, error.validator_value
    if rule == "type":
        return f"expected {_list(expected)}, got {_json_type(error.instance)}"
    if rule == "required":
        return error.message
    if rule in ("enum", "const"):
        allowed = expected if rule == "enum" else [expected]
        return f"{_short(error.instance)} is not one of {', '.join(json.dumps(a) for a in allowed)}"
    if rule in ("maxLength", "minLength"):
        return f"{'longer' if rule == 'maxLength' else 'shorter'} than the {rule} of {expected} characters"
    if rule in ("minimum", "maximum"):
        return f"{_short(error.instance)} is {'below the minimum' if rule == 'minimum' else 'above the maximum'} of {expected}"
    if rule in ("maxItems", "minItems"):
        return f"{'more' if rule == 'maxItems' else 'fewer'} than the {rule} of {expected} items"
    if rule == "additionalProperties":
        return error.message if len(error.message) < 200 else "has properties the schema does not allow"
    if rule == "not" and set(expected) == {"required"} and len(expected["required"]) == 2:
        # the schemas' only use of `not`: one thing under its name and its older name
        new, old = expected["required"]
        return f"gives both {new} and {old}, one thing under two names; give only {new}"
    return f"fails {rule} {_short(expected)}"


def _json_type(value: Any) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _list(value: Any) -> str:
    return " or ".join(value) if isinstance(value, list) else str(value)


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "..."
