"""judge.contract.patterns: the regular expressions of steps, gates and templates run on RE2, never on Python's
backtracking engine: a catastrophic pattern over a long line is answered (issue: bounded work), a pattern RE2
cannot read is refused in one line at $.step.gates[i], and a json_schema_valid gate's schema never reaches
jsonschema's own `re.search`, also where a nested `$schema` would have switched jsonschema to another class."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema._keywords
import jsonschema._utils
import pytest

from helpers.gate_cases import Project, evidence, gate, project, py, shell_on, step
from judge.contract.patterns import compiled, schema_problem, schema_validator, search
from judge.errors import InputError
from helpers.scenario_repos import git_env  # noqa: F401  (autouse fixture)

# Python's re tries every split of the words before it fails on the "!": 2^(words) steps, never done.
CATASTROPHIC = r"^(\w+\s?)*$"
LONG_LINE = "word " * 5_000 + "!"


class _NoPythonRegex:
    """Stands for `re` inside jsonschema's modules: any use of Python's engine there fails the test."""

    def __getattr__(self, name: str):
        raise AssertionError(f"jsonschema used Python's re.{name}: a pattern reached the backtracking engine")


@pytest.fixture
def no_python_regex_in_jsonschema(monkeypatch):
    monkeypatch.setattr(jsonschema._keywords, "re", _NoPythonRegex())
    monkeypatch.setattr(jsonschema._utils, "re", _NoPythonRegex())


def test_the_engine_is_re2_and_a_catastrophic_pattern_fails_to_match_a_long_line():
    assert type(compiled(CATASTROPHIC, "pattern")).__module__.startswith("re2")
    assert search(CATASTROPHIC, LONG_LINE) is False
    assert search(CATASTROPHIC, "word " * 5_000) is True


@pytest.mark.parametrize("pattern, text, found", [
    (r"^\d+ passed in [\d.]+s$", "12 passed in 0.1s\n", True),  # `$` before the final newline, as in Python
    (r"^\d+ passed in [\d.]+s$", "12 passed in 0.1s\n\n", False),  # but only the final one
    (r"(?m)^\d+ failed$", "..\n0 failed\ndone\n", True),
    (r"^0 failed", "1 passed\n0 failed\n", False),
    (r"(?i)PASSED", "3 passed", True),
], ids=["dollar-final-newline", "dollar-not-earlier", "multiline", "caret-is-start", "flags"])
def test_search_reads_patterns_as_re_search_does(pattern, text, found):
    assert search(pattern, text) is found


@pytest.mark.parametrize("pattern, what", [
    (r"(a)\1", "invalid escape sequence"),
    (r"foo(?=bar)", "invalid perl operator"),
    (r"(?<!x)y", "invalid perl operator"),
    (r"a++", "bad repetition operator"),
], ids=["backreference", "lookahead", "lookbehind", "possessive"])
def test_a_pattern_re2_cannot_read_is_one_clear_input_error(pattern, what):
    with pytest.raises(InputError) as raised:
        compiled(pattern, "pattern")
    message = str(raised.value)
    assert raised.value.field == "pattern" and "\n" not in message
    assert what in message and "RE2" in message and "rewrite it without them" in message


@pytest.mark.parametrize("parameters, says", [
    ({"type": "command_output_regex", "parameters": {"command": "pytest", "pattern": r"(\d+) passed \1"}},
     "does not compile as RE2 syntax"),
    ({"type": "json_schema_valid", "parameters": {"path": "a.json", "schema": {
        "properties": {"name": {"pattern": "^(?!tmp)"}}}}}, "schema.properties.name.pattern: the regular expression"),
    ({"type": "json_schema_valid", "parameters": {"path": "a.json", "schema": {
        "patternProperties": {"(x)\\1": {}}}}}, "does not compile as RE2 syntax"),
    ({"type": "json_schema_valid", "parameters": {"path": "a.json", "schema": {
        "unevaluatedProperties": False, "patternProperties": {"^x": {}}}}}, "use additionalProperties"),
], ids=["command-backreference", "schema-lookahead", "schema-pattern-properties", "schema-unevaluated"])
def test_the_contract_refuses_what_re2_cannot_check(tmp_path, parameters, says):
    verdict = project(tmp_path).change().validate(step(parameters))
    assert not verdict.valid and verdict.rule == "schema_invalid"
    assert "$.step.gates[0]" in verdict.reason and says in verdict.reason, verdict.reason


def test_honest_schemas_still_compile():
    assert schema_problem({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                           "patternProperties": {"^[a-z]+$": {"type": "string"}}, "additionalProperties": False,
                           "properties": {"$schema": {"type": "string"}, "id": {"pattern": r"^\d{3}-\w+$"}}}) is None


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    return project(tmp_path).change()


@pytest.mark.parametrize("schema, document, where", [
    ({"properties": {"title": {"pattern": CATASTROPHIC}}}, {"title": LONG_LINE}, "$.title"),
    ({"patternProperties": {CATASTROPHIC: {"type": "integer"}}, "additionalProperties": False}, {LONG_LINE: 1}, "$"),
    ({"properties": {"inner": {"$schema": "http://json-schema.org/draft-07/schema#",
                               "properties": {"title": {"pattern": CATASTROPHIC}}}}}, {"inner": {"title": LONG_LINE}},
     "$.inner.title"),
    ({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {
        "title": {"pattern": CATASTROPHIC}, "child": {"$ref": "#"}}}, {"child": {"title": LONG_LINE}}, "$.child.title"),
], ids=["pattern", "pattern-properties", "nested-dialect", "root-dialect-through-ref"])
def test_a_json_schema_gate_matches_with_re2_only(proj, no_python_regex_in_jsonschema, schema, document, where):
    proj.change({"config/settings.json": json.dumps(document)})
    verdict = proj.validate(step(gate("json_schema_valid", path="config/settings.json", schema=schema)))
    assert not verdict.valid and verdict.rule == "gate_failed", verdict.reason
    assert f"breaks the gate's JSON Schema at {where}: 'word word" in verdict.reason, verdict.reason


def test_a_json_schema_gate_passes_what_its_patterns_match(proj, no_python_regex_in_jsonschema):
    schema = {"properties": {"title": {"pattern": CATASTROPHIC}}, "patternProperties": {"^x-": {"type": "string"}},
              "additionalProperties": False}
    proj.change({"config/settings.json": json.dumps({"title": "word " * 5_000, "x-note": "kept"})})
    verdict = proj.validate(step(gate("json_schema_valid", path="config/settings.json", schema=schema)))
    assert verdict.valid, verdict.reason


def test_a_metaschema_reached_by_ref_is_matched_with_re2_too(no_python_regex_in_jsonschema):
    validator = schema_validator({"$ref": "https://json-schema.org/draft/2020-12/schema"})
    errors = [error.message for error in validator.iter_errors({"$anchor": "1-not-an-anchor"})]
    assert errors == ["'1-not-an-anchor' does not match '^[A-Za-z_][-A-Za-z0-9._]*$'"]


def test_a_command_output_regex_gate_matches_with_re2(proj, monkeypatch):
    import judge.gates.commands as commands

    searched: list[str] = []

    def spy(pattern: str, text: str) -> bool:
        searched.append(text)
        return search(pattern, text)

    monkeypatch.setattr(commands, "search", spy)
    command = py("print('word ' * 5000 + '!')")
    s = step(gate("command_output_regex", "the banner", command=command, pattern=CATASTROPHIC), policies=shell_on())
    verdict = proj.validate(s, proj.result(evidence(commands=[command])))
    assert not verdict.valid and verdict.rule == "gate_failed", verdict.reason
    assert "its stdout does not match /^(\\w+\\s?)*$/" in verdict.reason and searched == [LONG_LINE + "\n"]
