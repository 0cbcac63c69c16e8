"""`judge serve`'s OpenAPI document: its request and response schemas are the files in schemas/ and the pydantic
Verdict, and the code refuses exactly what they say."""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import judge
from judge.contract.schema import SCHEMA_FILES, load_schema
from judge.pipeline import validate
from judge.serve.openapi import ROOT_KINDS, file_components, full_verdict_schemas, openapi_document
from judge.serve.replies import ERROR_CODES
from judge.intake import OLD_NAMES, REQUEST_KEYS
from judge.verdict import Verdict
from test_app import STEP, UNDECLARED

DOCUMENT_URI = "urn:judge:openapi"


def file_refs(node: Any, titles: dict[str, str]) -> Any:
    """A component with its component references turned back into file references."""
    if isinstance(node, list):
        return [file_refs(item, titles) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref", "")
    if ref.startswith("#/components/schemas/") and ref.rpartition("/")[2] in titles:
        return {**node, "$ref": titles[ref.rpartition("/")[2]]}
    return {key: file_refs(value, titles) for key, value in node.items()}


def test_every_file_component_is_its_schemas_file():
    components = file_components()
    by_title = {load_schema(kind)["title"]: kind for kind in SCHEMA_FILES}
    titles = {title: SCHEMA_FILES[kind] for title, kind in by_title.items()}
    assert {"ValidateRequest", "Step", "ExecuteStepResult", "ExecutionEvidence", "Verdict", "Error", "Gate",
            "Policies", "EvidenceSchemaSpec", "EvidenceDoc"} == set(components)
    for title, component in components.items():
        original = load_schema(by_title[title])
        assert {"$id": original["$id"], "$schema": original["$schema"], **file_refs(component, titles)} == original


def test_the_document_uses_the_components_it_was_built_from():
    schemas = openapi_document()["components"]["schemas"]
    assert {name: schemas[name] for name in file_components()} == file_components()
    assert {name: schemas[name] for name in full_verdict_schemas()} == full_verdict_schemas()
    operation = openapi_document()["paths"]["/v1/validate"]["post"]
    assert operation["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ValidateRequest"}
    assert set(ROOT_KINDS) == {"validate-request", "verdict", "error"}


def test_the_full_verdict_schema_is_the_pydantic_model():
    fresh = Verdict.model_json_schema(mode="serialization", ref_template="#/components/schemas/{model}")
    components = full_verdict_schemas()
    assert {k: v for k, v in components["FullVerdict"].items() if k != "title"} == \
        {k: v for k, v in fresh.items() if k not in ("$defs", "title")}
    assert set(components) - {"FullVerdict"} == set(fresh["$defs"]) - {"ExecutionEvidence"}


def _validator(component: str) -> Draft202012Validator:
    """A validator for one component, resolving its references inside the document as OpenAPI tools do."""
    registry = Registry().with_resource(DOCUMENT_URI, Resource(openapi_document(), DRAFT202012))
    return Draft202012Validator({"$ref": f"{DOCUMENT_URI}#/components/schemas/{component}"}, registry=registry)


def test_a_full_verdict_is_valid_against_its_documented_schema():
    verdict = validate(STEP, UNDECLARED).model_dump(mode="json", by_alias=True)
    assert list(_validator("FullVerdict").iter_errors(verdict)) == []
    assert list(_validator("Verdict").iter_errors(validate(STEP, UNDECLARED).contract())) == []
    assert list(_validator("FullVerdict").iter_errors({**verdict, "rule": 7})) != []  # the check can fail


def test_the_request_schema_lists_the_keys_the_code_takes():
    schema = load_schema("validate-request")
    assert tuple(schema["properties"]) == (*REQUEST_KEYS, *OLD_NAMES) and schema["required"] == ["step", "result"]
    assert schema["additionalProperties"] is False
    assert _validator("ValidateRequest").is_valid({"step": STEP, "result": UNDECLARED})
    assert not _validator("ValidateRequest").is_valid({"step": STEP, "result": UNDECLARED, "api_base": "x"})


def test_every_error_code_is_in_the_error_schema_and_every_documented_status_has_one():
    assert load_schema("error")["properties"]["error"]["properties"]["code"]["enum"] == list(ERROR_CODES)
    documented = {int(status) for path in openapi_document()["paths"].values() for operation in path.values()
                  for status in operation["responses"] if status != "200"}
    assert documented <= set(ERROR_CODES.values())


def test_the_document_is_an_openapi_3_1_document_naming_judges_version():
    from schemathesis.specs.openapi.definitions import OPENAPI_31  # the OpenAPI Initiative's 3.1 meta-schema

    document = openapi_document()
    assert json.loads(json.dumps(document)) == document
    assert document["openapi"] == "3.1.0" and document["info"]["version"] == judge.__version__
    errors = [error.message for error in Draft202012Validator(OPENAPI_31).iter_errors(document)]
    assert errors == []
    assert list(Draft202012Validator(OPENAPI_31).iter_errors({**document, "paths": []})) != []
