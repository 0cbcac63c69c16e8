"""Fuzz target "contract" (issue 11, item 9): loading a step, a result, an execution-evidence file or an eval
set, from bytes, through the CLI (`judge.cli.main.main` on temp files) and the Python API.

Whatever the bytes — arbitrary, JSON with integers too long for Python, deep nesting, NaN and Infinity,
duplicate keys, lone surrogates, invalid UTF-8 — judge never shows a traceback or "internal error",
exits 0, 1 or 2, prints a strict verdict or one error line, and never calls invalid input valid: a
``valid: true`` needs bytes that a strict reader parses into an object its schema accepts.

tests/fuzz/test_properties.py already covers small random JSON values and short random bytes as a result;
this adds hostile JSON text (spliced into real documents), the step and evidence files, eval sets,
and the API with what only Python can pass (ints past 4,300 digits, lone surrogates, deep lists).
Every input that broke judge is a file in tests/fixtures/fuzz/contract/, replayed here on every run;
its name's prefix says what it is loaded as (step-, result-, evidence-, evalset-).
"""

from __future__ import annotations

import asyncio
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

import judge
from helpers.builders import make_case, run_cli
from helpers.fuzzing import FUZZ, corpus_files
from judge.config import JudgeConfig
from judge.eval.cases import EvalSet
from judge.eval.runner import run_eval

# The CLI targets reuse capsys across examples (each reads it empty) and make a folder per example.
FUZZ_CLI = settings(FUZZ, suppress_health_check=[*FUZZ.suppress_health_check, HealthCheck.function_scoped_fixture])
SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
_SCHEMA_OF = {"step": "step.schema.json", "result": "execute-step.schema.json",
              "evidence": "execution-evidence.schema.json", "case": "eval-case.schema.json"}
CORPUS = corpus_files("contract")


@lru_cache(maxsize=None)
def _validator(kind: str) -> Draft202012Validator:
    from judge.contract.schema import schema_registry  # step.schema.json $refs gate.schema.json and others

    return Draft202012Validator(json.loads((SCHEMAS / _SCHEMA_OF[kind]).read_text(encoding="utf-8")),
                                registry=schema_registry())


def _strictly_valid(kind: str, data: bytes) -> bool:
    """The reference reader: UTF-8 (a BOM allowed), RFC 8259 JSON within Python's int limit, an object its
    schema accepts. Only such bytes may ever be judged valid."""
    def refuse(name: str) -> Any:
        raise ValueError(name)

    try:
        value = json.loads(data.decode("utf-8-sig"), parse_constant=refuse)
        return isinstance(value, dict) and _validator(kind).is_valid(value)
    except (ValueError, RecursionError):  # UnicodeDecodeError, JSONDecodeError, a too long int are ValueErrors
        return False


def _assert_answer(code: int, out: str, err: str) -> dict | None:
    """A strict verdict (exit 0 or 1) or one error line (exit 2); the verdict, if any."""
    assert "Traceback" not in err and "internal error" not in err, err
    assert code in (0, 1, 2)
    if code == 2:
        assert out == "" and err.startswith("judge: ") and err.count("\n") == 1, (out, err)
        return None
    verdict = json.loads(out)
    assert set(verdict) == {"valid", "reason"} and type(verdict["valid"]) is bool
    assert isinstance(verdict["reason"], str) and verdict["reason"].strip()
    assert code == (0 if verdict["valid"] else 1)
    return verdict


def _validate_cli(capsys, folder: Path, step: bytes, result: bytes, evidence: bytes | None = None) -> dict | None:
    (folder / "step.json").write_bytes(step)
    (folder / "result.json").write_bytes(result)
    extra = []
    if evidence is not None:
        (folder / "evidence.json").write_bytes(evidence)
        extra = ["--evidence", str(folder / "evidence.json")]
    return _assert_answer(*run_cli(capsys, "validate", "--step", str(folder / "step.json"),
                                   "--result", str(folder / "result.json"), *extra))


def _judge_set(folder: Path, data: bytes) -> tuple[int, Any]:
    """The eval harness over ``data`` as a .jsonl set (no store, no model): (non-blank lines, its result)."""
    path = folder / "set.jsonl"
    path.write_bytes(data)
    result = asyncio.run(run_eval(EvalSet(str(path)), JudgeConfig()))
    lines = sum(1 for number, line in enumerate(data.split(b"\n")) if not _blank(line, first=number == 0))
    assert len(result.records) + len(result.bad_lines) == lines  # each line judged or reported, once
    for record in result.records:
        assert type(record.valid) is bool and record.reason.strip()
    return lines, result


def _blank(line: bytes, *, first: bool) -> bool:
    """Whether a line of a set is blank: Unicode whitespace only, after the file's BOM (bytes that are not
    UTF-8 are not blank)."""
    try:
        return not line.decode("utf-8-sig" if first else "utf-8").strip()
    except UnicodeDecodeError:
        return False


def _real(kind: str) -> bytes:
    step, result = make_case()
    return json.dumps(step if kind == "step" else result).encode()


# --- hostile JSON text -------------------------------------------------------------------------------------

_HOSTILE_VALUES = st.one_of(
    st.integers(4_301, 6_000).map(lambda n: "9" * n),  # past int()'s 4,300 digits
    st.integers(4_301, 6_000).map(lambda n: "-" + "1" * n),
    st.integers(1, 4_300).map(lambda n: "7" * n),  # just within
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "-0", "1E-400", "0.1e99999", "-0.0"]),
    st.integers(1, 3_000).map(lambda n: "[" * n + "]" * n),  # nesting, up to past the recursion limit
    st.integers(1, 3_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.sampled_from(['"\\ud800"', '"\\udfff\\ud800x"', '"a\\u0000b"', '"\\uDBFF"', '"\u2028\u2029"', '"\\"']),
    st.sampled_from(['"src/app.py"', '["src/app.py"]', "true", "null", '"apply"', '""', "[]", "{}"]),
)


@st.composite
def hostile_json(draw: Any, base: dict) -> bytes:
    """A real document with some members' values replaced, added or duplicated by hostile JSON text, then
    perhaps spoilt at the byte level."""
    members = [(json.dumps(key), json.dumps(value)) for key, value in base.items()]
    for _ in range(draw(st.integers(1, 3))):
        value = draw(_HOSTILE_VALUES)
        where = draw(st.integers(0, len(members)))
        action = draw(st.sampled_from(["replace", "add", "duplicate"]))
        if action == "replace" and where < len(members):
            members[where] = (members[where][0], value)
        elif action == "duplicate" and where < len(members):
            members.insert(draw(st.integers(0, len(members))), (members[where][0], value))
        else:
            members.insert(where, (json.dumps(draw(st.text(max_size=6))), value))
    data = ("{" + ",".join(f"{key}:{value}" for key, value in members) + "}").encode("utf-8", "surrogatepass")
    spoil = draw(st.sampled_from(["none", "none", "bytes", "bom", "truncate"]))
    if spoil == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf"])) + data[at:]
    elif spoil == "bom":
        data = b"\xef\xbb\xbf" + data
    elif spoil == "truncate":
        data = data[:draw(st.integers(0, len(data)))]
    return data


_STEP, _RESULT = make_case()
_EVIDENCE = {  # schema-valid; its hash is not (the evidence rule, not the loader, says so)
    "version": 1, "stepId": "step-1", "runId": "r1", "command": ["pytest", "-q"], "exitCode": 0,
    "stdout": "ok", "stderr": "", "stdoutBytes": 2, "stderrBytes": 0, "startedAt": "2026-02-07T16:00:00.000Z",
    "finishedAt": "2026-02-07T16:00:01.000Z", "durationSeconds": 1.0, "timedOut": False, "status": "SUCCESS",
    "evidenceHash": "0" * 64, "artifacts": ["artifacts/r1/step-1/stdout.log"],
}


@FUZZ_CLI
@given(data=hostile_json(_RESULT))
def test_hostile_result_json_never_raises_and_invalid_is_never_valid(tmp_path_factory, capsys, data) -> None:
    verdict = _validate_cli(capsys, tmp_path_factory.mktemp("r"), _real("step"), data)
    if verdict is not None and verdict["valid"]:
        assert _strictly_valid("result", data)


@FUZZ_CLI
@given(data=hostile_json(_STEP))
def test_hostile_step_json_never_raises_and_invalid_is_never_valid(tmp_path_factory, capsys, data) -> None:
    verdict = _validate_cli(capsys, tmp_path_factory.mktemp("s"), data, _real("result"))
    if verdict is not None and verdict["valid"]:
        assert _strictly_valid("step", data)


@FUZZ_CLI
@given(data=st.binary(max_size=400) | hostile_json(_EVIDENCE))
def test_any_evidence_file_is_a_verdict_or_one_error_line(tmp_path_factory, capsys, data) -> None:
    verdict = _validate_cli(capsys, tmp_path_factory.mktemp("e"), _real("step"), _real("result"), data)
    if verdict is not None and verdict["valid"]:  # unreadable: an input error; off its schema: schema_invalid
        assert _strictly_valid("evidence", data)
    if verdict is not None and not _strictly_valid("evidence", data):
        assert verdict["reason"].startswith("schema_invalid: the record ")


@FUZZ_CLI
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes_as_a_step_are_never_valid(tmp_path_factory, capsys, data) -> None:
    verdict = _validate_cli(capsys, tmp_path_factory.mktemp("b"), data, _real("result"))
    assert verdict is None or not verdict["valid"] or _strictly_valid("step", data)


def _case_line(draw: Any) -> bytes:
    step, result = make_case()
    base = {"id": draw(st.text(min_size=1, max_size=5)), "step": step, "result": result,
            "expected": {"valid": draw(st.booleans())}}
    return draw(hostile_json(base))


@FUZZ_CLI
@given(data=st.data())
def test_hostile_eval_set_lines_are_each_judged_or_reported(tmp_path_factory, data) -> None:
    lines = [_case_line(data.draw) for _ in range(data.draw(st.integers(1, 3)))]
    lines += data.draw(st.lists(st.binary(max_size=60), max_size=2))
    _judge_set(tmp_path_factory.mktemp("set"), b"\n".join(lines) + b"\n")


# --- the Python API: what only Python can pass ------------------------------------------------------------

_python_only = st.one_of(  # (what, size): built in the test, so that hypothesis can print a failing example
    st.tuples(st.just("int of digits"), st.integers(4_301, 5_000)),  # str() refuses it: naive wording raises
    st.tuples(st.just("lone surrogates"), st.integers(0xD800, 0xDFFF)),
    st.tuples(st.just("list depth"), st.integers(1, 2_000)),
    st.tuples(st.sampled_from(["nan", "inf", "-inf"]), st.just(0)),
)


def _built(what: str, size: int) -> Any:
    if what == "int of digits":
        return 10 ** (size - 1)
    if what == "lone surrogates":
        return chr(size) + "x" + chr(size)
    if what == "list depth":
        return _nested(size)
    return float(what)


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@FUZZ
@given(kind=st.sampled_from(["step", "result"]), key=st.sampled_from(
    ["id", "description", "mode", "allowedFiles", "excludedPaths", "applyFiles", "patch", "filesWritten",
     "filesTouched", "summary", "success", "extra"]), value=_python_only, wrapped=st.booleans())
def test_api_values_only_python_can_pass_give_a_strict_verdict(kind, key, value, wrapped) -> None:
    step, result = make_case()
    value = _built(*value)
    (step if kind == "step" else result)[key] = [value] if wrapped else value
    verdict = judge.validate(step, result)
    contract = verdict.contract()
    assert set(contract) == {"valid", "reason"} and type(contract["valid"]) is bool
    assert verdict.rule != "judge_error", verdict.reason
    if contract["valid"]:
        assert _schema_accepts(kind, step if kind == "step" else result)


def _schema_accepts(kind: str, document: dict) -> bool:
    """jsonschema's answer; a value it cannot even look at (it repr()s an int too long for str(), recurses
    into deep lists) counts as refused, which is right for every property the contracts name."""
    try:
        return _validator(kind).is_valid(document)
    except (ValueError, RecursionError):
        return False


# --- integers past Python's limit: the reproductions, worded ------------------------------------------------


def test_a_too_long_integer_is_an_input_error_naming_line_and_column(tmp_path, capsys) -> None:
    result = _real("result").decode().replace('"success": true', '"success": true,\n  "n": ' + "9" * 5000)
    (tmp_path / "r.json").write_text(result, encoding="utf-8")
    (tmp_path / "s.json").write_bytes(_real("step"))
    code, out, err = run_cli(capsys, "validate", "--step", str(tmp_path / "s.json"), "--result", str(tmp_path / "r.json"))
    assert (code, out) == (2, "")
    assert err == (f"judge: --result {tmp_path / 'r.json'}: an integer of 5,000 digits, more than judge reads "
                   "(4,300) at line 2 column 8; write it as a string or shorten it\n")


def test_digits_inside_a_string_are_not_mistaken_for_the_long_integer(tmp_path, capsys) -> None:
    digits = "9" * 5000
    text = json.dumps({"id": "step-1", "description": digits, "mode": "apply"})[:-1] + ', "n": ' + digits + "}"
    (tmp_path / "s.json").write_text(text, encoding="utf-8")
    (tmp_path / "r.json").write_bytes(_real("result"))
    column = text.index(', "n"') + len(', "n": ') + 1
    code, _, err = run_cli(capsys, "validate", "--step", str(tmp_path / "s.json"), "--result", str(tmp_path / "r.json"))
    assert code == 2 and f"at line 1 column {column};" in err


def test_a_too_long_integer_in_an_eval_set_is_a_bad_line_and_the_rest_runs(tmp_path) -> None:
    step, result = make_case()
    good = json.dumps({"id": "a", "step": step, "result": result, "expected": {"valid": True}})
    bad = good.replace('"id": "a"', '"id": "b", "n": -' + "1" * 4301)
    _, outcome = _judge_set(tmp_path, f"{good}\n{bad}\n".encode())
    assert [r.case_id for r in outcome.records] == ["a"]
    (line,) = outcome.bad_lines
    assert line.line == 2 and "an integer of 4,301 digits" in line.problem and "at line 1 column 18;" in line.problem


def test_a_model_reply_with_a_too_long_integer_is_a_reply_error() -> None:
    from judge.llm.reply import ReplyError, parse_reply

    with pytest.raises(ReplyError, match="an integer of 5,000 digits"):
        parse_reply('{"valid": true, "reason": "the patch adds the check", "n": ' + "9" * 5000 + "}")


# --- the corpus: every input that ever broke judge ----------------------------------------------------------


@pytest.mark.parametrize("path", CORPUS, ids=[path.name for path in CORPUS])
def test_corpus_input_is_handled(tmp_path, capsys, path: Path) -> None:
    data = path.read_bytes()
    kind = path.name.split("-", 1)[0]
    if kind == "evalset":
        _judge_set(tmp_path, data)
        return
    if kind == "evidence":
        verdict = _validate_cli(capsys, tmp_path, _real("step"), _real("result"), data)
    else:
        assert kind in ("step", "result"), f"{path.name}: name it step-, result-, evidence- or evalset-"
        verdict = _validate_cli(capsys, tmp_path, data if kind == "step" else _real("step"),
                                data if kind == "result" else _real("result"))
    if verdict is not None and verdict["valid"]:
        assert _strictly_valid(kind, data)


def test_the_corpus_is_not_empty() -> None:
    assert len(CORPUS) >= 4
