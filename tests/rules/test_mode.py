"""Rule 1: invalid_mode and mode_mismatch."""

import pytest

import judge
from helpers.builders import diff, make_case


@pytest.mark.parametrize("mode", ["apply_patch", "fix", "APPLY", "", "regression"])
def test_unknown_mode_is_invalid_mode(mode):
    verdict = judge.validate(*make_case(mode=mode))
    assert (verdict.valid, verdict.rule) == (False, "invalid_mode")
    assert repr(mode) in verdict.reason and '"apply"' in verdict.reason


def test_apply_result_for_apply_step_passes():
    assert judge.validate(*make_case()).valid


def test_fix_result_for_apply_step_is_mode_mismatch():
    verdict = judge.validate(*make_case(mode="fix_regression"))
    assert verdict.rule == "mode_mismatch"
    assert 'asked for mode "apply"' in verdict.reason


def test_apply_result_for_fix_step_is_mode_mismatch():
    step, result = make_case(step={"mode": "fix_regression", "applyFiles": ["src/app.py"]})
    assert judge.validate(step, result).rule == "mode_mismatch"


def test_step_without_mode_accepts_either_mode():
    step, result = make_case(mode="fix_regression", step={"applyFiles": ["src/app.py"]})
    del step["mode"]
    assert judge.validate(step, result).valid


def test_fix_regression_matching_step_passes():
    step, result = make_case(
        diff("python_whitespace_only.diff"),
        mode="fix_regression",
        step={"mode": "fix_regression", "applyFiles": ["src/app.py"], "description": "Fix the failing test"},
    )
    assert judge.validate(step, result).valid


@pytest.mark.parametrize("mode", [None, 3, ["apply"], {"mode": "apply"}])
def test_mode_of_another_json_type_is_invalid_mode(mode):
    assert judge.validate(*make_case(mode=mode)).rule == "invalid_mode"


def test_absent_mode_breaks_the_contract():
    verdict = judge.validate(*make_case(mode=...))
    assert verdict.rule == "schema_invalid" and "'mode' is a required property" in verdict.reason
