"""Eval cases carry execution records (`executions`): checked against their schema like the rest of a line, hashed
with the case's inputs, attached to the verdict; the verdict cache keys them, the policies and the template; and
judge eval never runs a command (a case has no workspace)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from helpers.builders import make_case
from helpers.eval_sets import eval_line, execution, run_cli, run_eval, write_set
from judge.config import JudgeConfig
from judge.contract.gates import PolicyLayer
from judge.contract.models import EvalCase
from judge.contract.schema import load_schema, parse_eval_case, schema_registry
from judge.eval.cache import cache_key, cacheable
from judge.eval.cases import inputs_hash
from judge.verdict import GateResult, SampleRecord, SemanticReport, Verdict

from helpers.loopback import content

pytestmark = pytest.mark.usefixtures("eval_sandbox")

TESTS = "python -m pytest -q"
EVIDENCE = {"changed_files": ["src/app.py"], "diff_summary": "parse_port() rejects ports outside 1-65535",
            "commands_run": [TESTS], "tests_run": [TESTS], "tests_passed": True}
PASSED = execution("step-1", TESTS.split(), "3 passed in 0.1s")


def _claiming(**step: object) -> tuple[dict, dict]:
    """A valid step whose result claims its tests passed; its records are unsigned and an eval case has no
    workspace, so the step's policy accepts records on their evidenceHash."""
    return make_case(step={"policies": {"accept_unsigned_records": True}, **step}, evidence=EVIDENCE)


def _case(**extra: object) -> dict:
    step, result = _claiming()
    return {"id": "c1", "step": step, "result": result, "expected": {"valid": True}, **extra}


# --- the contract ---------------------------------------------------------------------------------


def _schema_accepts(data: object) -> bool:
    return Draft202012Validator(load_schema("eval-case"), registry=schema_registry()).is_valid(data)


def _model_accepts(data: object) -> bool:
    try:
        EvalCase.model_validate(data)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize(("executions", "accepted"), [
    ([PASSED], True),
    ([], True),
    ([{**PASSED, "evidenceHash": "0" * 64}], True),  # an edited record is well-formed: judged, not refused here
    ([{**PASSED, "extra": 1}], False),
    ([{k: v for k, v in PASSED.items() if k != "stepId"}], False),
    ([{**PASSED, "command": "python -m pytest -q"}], False),
    (PASSED, False),
    ([[PASSED]], False),
], ids=["record", "empty", "edited", "extra-key", "no-step-id", "command-string", "not-an-array", "nested"])
def test_schema_and_model_agree_on_executions(executions: object, accepted: bool) -> None:
    data = _case(executions=executions)
    assert _schema_accepts(data) is accepted
    assert _model_accepts(data) is accepted


def test_a_bad_record_is_a_bad_line_naming_its_path(tmp_path: Path) -> None:
    broken = {k: v for k, v in PASSED.items() if k != "exitCode"}
    lines = [eval_line("fine", _claiming(), True, executions=[PASSED]),
             eval_line("broken", _claiming(), True, executions=[PASSED, broken])]
    code, report, _ = run_eval(tmp_path, lines)
    assert code == 2
    assert [case["id"] for case in report["cases"]] == ["fine"]
    [bad] = report["badLines"]
    assert bad["line"] == 2 and "$.eval-case.executions[1].exitCode" in bad["problem"]


# --- the records reach the verdict ----------------------------------------------------------------


def test_the_records_back_the_claim_and_without_them_it_is_unverifiable(tmp_path: Path) -> None:
    lines = [eval_line("backed", _claiming(), True, executions=[PASSED]),
             eval_line("unbacked", _claiming(), False, "unverifiable_claim"),
             eval_line("other-argv", _claiming(), False, "unverifiable_claim",
                       executions=[execution("step-1", ["python", "-m", "pytest"], "3 passed")]),
             eval_line("edited", _claiming(), False, "execution_evidence_invalid",
                       executions=[{**PASSED, "stdout": "3 passed, 0 failed"}])]
    code, report, _ = run_eval(tmp_path, lines)
    assert code == 0
    judged = {case["id"]: (case["valid"], case["rule"], case["decidedBy"]) for case in report["cases"]}
    assert judged == {"backed": (True, None, "skipped"), "unbacked": (False, "unverifiable_claim", "gates"),
                      "other-argv": (False, "unverifiable_claim", "gates"),
                      "edited": (False, "execution_evidence_invalid", "rules")}
    assert report["metrics"]["accuracy"] == 1.0


def test_inputs_hash_covers_the_records_and_keeps_the_old_hash_without_them() -> None:
    bare = _case()
    canonical = json.dumps({"step": bare["step"], "result": bare["result"]}, sort_keys=True, ensure_ascii=False,
                           separators=(",", ":"))
    assert inputs_hash(parse_eval_case(bare)) == hashlib.sha256(canonical.encode()).hexdigest()
    with_record = inputs_hash(parse_eval_case(_case(executions=[PASSED])))
    other_output = execution("step-1", TESTS.split(), "4 passed in 0.1s")
    assert with_record != inputs_hash(parse_eval_case(bare))
    assert with_record != inputs_hash(parse_eval_case(_case(executions=[other_output])))
    assert with_record == inputs_hash(parse_eval_case({**_case(executions=[PASSED]), "tags": ["x"]}))


# --- the verdict cache ------------------------------------------------------------------------------


def _key(config: JudgeConfig, step: dict | None = None) -> str:
    return cache_key("0" * 64, config, step if step is not None else {"id": "s", "template": "py-tests"})


@pytest.mark.parametrize("change", [
    {"policies": PolicyLayer(require_tests_evidence=True)},
    {"policy_overrides": PolicyLayer(preset="strict")},
    {"templates_dir": "elsewhere"},
], ids=["policies", "policy_overrides", "templates_dir"])
def test_settings_that_change_the_gates_change_the_key(change: dict) -> None:
    base = JudgeConfig(model="openai/t")
    assert _key(base) != _key(base.model_copy(update=change))


def test_transport_and_command_gate_settings_do_not_change_the_key() -> None:
    base = JudgeConfig(model="openai/t")
    assert _key(base) == _key(base.model_copy(update={"timeout": 5.0, "retries": 0, "gate_timeout": 1.0}))


def test_an_edited_template_changes_the_key(tmp_path: Path) -> None:
    config = JudgeConfig(model="openai/t", templates_dir=str(tmp_path))
    missing = _key(config)
    (tmp_path / "py-tests.json").write_text('{"gates": []}', encoding="utf-8")
    first = _key(config)
    (tmp_path / "py-tests.json").write_text('{"gates": [{"type": "diff_min_lines"}]}', encoding="utf-8")
    assert len({missing, first, _key(config)}) == 3
    assert _key(config, {"id": "s"}) == _key(config, {"id": "s", "template": "../escape"})  # never looked up


def test_a_verdict_a_human_approved_is_never_cached() -> None:
    report = SemanticReport(model="m", prompt_version="v", prompt_sha256="0" * 64, output_mode="none",
                            samples=(SampleRecord(valid=True, reason="ok"),), agreement=1.0)
    approved = GateResult(index=1, type="human_approval", status="passed", message="approved by 'ana'")
    other = GateResult(index=1, type="diff_min_lines", status="passed", message="3 changed lines")
    assert cacheable(Verdict(valid=True, reason="valid", semantic_review=report, gates=(other,)))
    assert not cacheable(Verdict(valid=True, reason="valid", semantic_review=report, gates=(other, approved)))


@pytest.mark.loopback
def test_a_changed_record_misses_the_cache_an_unchanged_one_hits(scripted_server, tmp_path: Path) -> None:
    server = scripted_server([content(True, "the patch does what the step asks")])  # SYNTHETIC answer

    def run(name: str, record: dict) -> dict:
        source = write_set(tmp_path / f"{name}.jsonl", [eval_line("c1", _claiming(), True, executions=[record])])
        assert run_cli("eval", str(source), "--model", "openai/t", "--api-base", server.api_base, "--output-mode",
                       "none", "--store", str(tmp_path / f"{name}.sqlite"), "--cache", str(tmp_path / "cache.sqlite"),
                       "--out", str(tmp_path / f"{name}.json")) == 0
        return json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))["cases"][0]

    assert not run("first", PASSED)["cached"]
    assert run("again", PASSED)["cached"] and server.count == 1
    assert not run("changed", execution("step-1", TESTS.split(), "4 passed in 0.2s"))["cached"]
    assert server.count == 2


# --- no command runs ------------------------------------------------------------------------------


def test_judge_eval_never_runs_a_command_even_allowlisted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import judge.gates.prepare

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("judge eval ran a command")

    monkeypatch.setattr(judge.gates.prepare, "record_execution", refuse)
    marker = tmp_path / "ran"
    gates = [{"type": "command_exit_0", "parameters": {"command": f"touch {marker}"}}]
    step, result = make_case(step={"gates": gates, "policies": {"enable_shell_gates": True,
                                                                 "shell_gate_allowlist": ["*"]}})
    code, report, _ = run_eval(tmp_path, [eval_line("allowlisted", (step, result), False, "unverifiable_claim")])
    assert code == 0
    [case] = report["cases"]
    assert (case["valid"], case["rule"]) == (False, "unverifiable_claim")
    assert "can only run in the workspace and none was given" in case["reason"]
    assert case["gates"][0]["status"] == "failed" and case["outcome"]["nextAction"] == "diagnose"
    assert not marker.exists() and not (tmp_path / ".judge" / "artifacts").exists()


# --- policies in the run's settings -----------------------------------------------------------------


def test_a_run_under_judge_toml_policies_resumes(tmp_path: Path) -> None:
    (tmp_path / "judge.toml").write_text('[policies]\nshell_gate_allowlist = ["*pytest*"]\n', encoding="utf-8")
    source = write_set(tmp_path / "set.jsonl", [eval_line("backed", _claiming(), True, executions=[PASSED])])
    common = ["--store", str(tmp_path / "s.sqlite"), "--no-cache", "--out", str(tmp_path / "r.json")]
    assert run_cli("eval", str(source), "--run-id", "r1", *common) == 0
    assert run_cli("eval", str(source), "--resume", "r1", *common) == 0
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["resumed"] == 1 and report["settings"]["policies"]["shell_gate_allowlist"] == ["*pytest*"]


def test_replayed_settings_give_policies_back_as_policies(tmp_path: Path) -> None:
    from judge.errors import InputError
    from judge.eval.traffic import recorded_settings, settings_of

    recorded = JudgeConfig(model="openai/t", fence_seed=1, policies=PolicyLayer(preset="strict"))
    (tmp_path / "recording.json").write_text(json.dumps(settings_of(recorded)), encoding="utf-8")
    replayed = recorded_settings(JudgeConfig(), None, str(tmp_path))
    assert replayed.policies == PolicyLayer(preset="strict") and replayed.retries == 0
    (tmp_path / "recording.json").write_text(json.dumps({"policies": {"preset": "lax"}}), encoding="utf-8")
    with pytest.raises(InputError, match="recorded setting policies.preset"):
        recorded_settings(JudgeConfig(), None, str(tmp_path))


def test_records_is_the_cases_name_for_them_and_executions_is_still_read(tmp_path: Path) -> None:
    record = PASSED  # as judge run writes it
    by_new, by_old = parse_eval_case(_case(records=[record])), parse_eval_case(_case(executions=[record]))
    assert by_new.executions == by_old.executions and len(by_new.executions) == 1
    assert inputs_hash(by_new) == inputs_hash(by_old)  # stored runs and cached verdicts answer across the rename
    both = _case(records=[record], executions=[record])
    assert not _schema_accepts(both) and not _model_accepts(both)
    with pytest.raises(Exception, match="one thing under two names"):
        parse_eval_case(both)
