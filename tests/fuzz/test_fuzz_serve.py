"""Fuzzes `judge serve` with schemathesis from its own OpenAPI document: no request makes it fail (5xx), and every
answer, to good requests and to broken ones, is what the document says (status, content type, headers, body schema).

Bounded for CI by tests/helpers/fuzzing.py's settings (200 examples per operation, derandomized; JUDGE_FUZZ_EXAMPLES and
JUDGE_FUZZ_RANDOM=1 explore further). Two of schemathesis's checks do not apply here, by design:
negative_data_rejection expects a 4xx for a step or result that breaks its schema, where judge answers a
schema_invalid verdict (200), as `judge validate` does; positive_data_acceptance expects a schema-valid workspace
to be judged, where this server (started without --workspace-root) refuses every workspace (400).
"""

from __future__ import annotations

import schemathesis
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from helpers.fuzzing import FUZZ
from judge.config import JudgeConfig
from judge.serve.app import create_app
from judge.serve.openapi import openapi_document
from judge.serve.settings import ServerSettings

APP = create_app(ServerSettings.checked(JudgeConfig(semantic="off")))
SCHEMA = schemathesis.openapi.from_dict(openapi_document())
SCHEMA.app = APP


@SCHEMA.parametrize()
@FUZZ
def test_every_answer_is_documented_and_none_is_a_server_error(case):
    # the Host a loopback server accepts (schemathesis's own test client says "testserver")
    case.call_and_validate(base_url="http://127.0.0.1:8765",
                           excluded_checks=[negative_data_rejection, positive_data_acceptance])
