"""The pipeline: stage order, first reject decides, every finding kept, fail closed."""

import asyncio

import judge
import judge.pipeline
from helpers.builders import diff, make_case
from judge.rules.registry import RULES


def test_first_reject_in_registry_order_decides_and_all_findings_are_kept():
    step, result = make_case(diff("vendor_edit.diff"), step={"excludedPaths": ["vendor/**"], "allowedFiles": ["src/**"]})
    verdict = judge.validate(step, result)
    assert verdict.rule == "undeclared_file"
    assert [f.rule for f in verdict.findings] == ["undeclared_file", "scope_excluded", "scope_outside_allowed"]
    assert verdict.reason == verdict.findings[0].reason


def test_registry_order_is_the_documented_one():
    assert [rule.__name__ for rule in RULES] == [
        "invalid_mode", "mode_mismatch", "failure_with_patch", "failure_without_summary",
        "judge_manipulation",
        "missing_patch",
        "missing_files_written", "malformed_patch", "unsafe_path", "undeclared_file", "file_not_in_patch",
        "files_touched_incomplete", "changed_but_unclaimed", "claimed_but_unchanged", "patch_does_not_apply",
        "patch_mismatch", "head_not_judged", "ignored_code", "evidence_file_invalid", "no_work_evidence", "ledger_missing_operation", "ledger_corrupt",
        "execution_evidence_invalid", "execution_failed", "scope_excluded", "scope_outside_allowed", "scope_fix_regression",
        "junk_files", "tests_weakened", "tests_weakened", "stub_or_disabled_code", "reversal", "placeholder_only",
        "superficial_only",
        "only_new_scripts", "only_test_files", "checks_suppressed", "gates_lowered", "exception_swallowed",
        "unused_function", "guard_never_true", "special_cased_input",
    ]


def test_valid_verdict_says_semantic_review_was_skipped():
    verdict = judge.validate(*make_case())
    assert verdict.valid and verdict.rule is None
    assert [(s.stage, s.status) for s in verdict.stages] == [("contract", "passed"), ("rules", "passed"), ("semantic", "skipped")]
    assert "step implementation not verified: no model configured" in verdict.reason


def test_semantic_off_is_recorded():
    verdict = judge.validate(*make_case(), config=judge.JudgeConfig(semantic="off"))
    assert verdict.semantic.detail == "semantic review off"


def test_rejection_never_reaches_the_semantic_stage():
    verdict = judge.validate(*make_case(diff("hidden_extra_file.diff")))
    assert verdict.semantic.status == "skipped" and "not reached" in verdict.semantic.detail


def test_contract_breach_stops_before_the_rules():
    verdict = judge.validate({"id": "s"}, {"mode": "apply", "success": True})
    assert verdict.rule == "schema_invalid"
    assert [s.stage for s in verdict.stages] == ["contract", "semantic"]
    assert "$.step" in verdict.reason and "description" in verdict.reason


def test_malformed_patch_reason_names_file_and_line():
    truncated = diff("python_edit.diff").rsplit("\n", 4)[0] + "\n"
    verdict = judge.validate(*make_case(truncated))
    assert verdict.rule == "malformed_patch"
    assert "src/app.py" in verdict.reason and "patch line" in verdict.reason


def test_an_internal_error_fails_closed(monkeypatch):
    def broken(ctx):
        raise RuntimeError("boom")

    monkeypatch.setattr(judge.pipeline, "run_rules", broken)
    verdict = judge.validate(*make_case())
    assert (verdict.valid, verdict.rule) == (False, "judge_error")
    assert "boom" in verdict.reason


def test_models_are_accepted_as_input():
    step, result = make_case()
    assert judge.validate(judge.Step.model_validate(step), judge.ExecuteStepResult.model_validate(result)).valid


def test_avalidate_gives_the_same_verdict():
    step, result = make_case(diff("hidden_extra_file.diff"))
    assert asyncio.run(judge.avalidate(step, result)).contract() == judge.validate(step, result).contract()


def test_contract_output_is_exactly_valid_and_reason():
    assert set(judge.validate(*make_case()).contract()) == {"valid", "reason"}


def test_a_patch_of_white_space_alone_is_no_patch():
    from judge.context import StepContext
    from judge.contract.schema import parse_result, parse_step

    step = parse_step({"id": "s", "description": "d", "mode": "apply"})
    for patch, has in (("", False), (" \n\t", False), ("\u00a0\u2003\x1c\n", False), ("\n x\n", True), ("x", True)):
        result = parse_result({"mode": "apply", "success": True, "patch": patch, "summary": "s."})
        assert StepContext(step, result).has_patch is has, repr(patch)
