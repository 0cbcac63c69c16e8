"""Rule 2, scope: scope_excluded, scope_outside_allowed, scope_fix_regression."""

import judge
from builders import diff, make_case

BOTH = ["src/app.py", "vendor/lib.py"]


def test_change_under_excluded_path_is_rejected():
    step, result = make_case(diff("vendor_edit.diff"), filesWritten=BOTH, filesTouched=BOTH, step={"excludedPaths": ["vendor/"]})
    verdict = judge.validate(step, result)
    assert verdict.rule == "scope_excluded"
    assert "vendor/lib.py" in verdict.reason and "vendor/" in verdict.reason


def test_excluded_path_claimed_in_files_written_only_is_rejected():
    step, result = make_case(step={"excludedPaths": ["*.lock"]}, filesWritten=["src/app.py", "poetry.lock"],
                             filesTouched=["src/app.py", "poetry.lock"])
    assert "scope_excluded" in {f.rule for f in judge.validate(step, result).findings}


def test_change_outside_allowed_files_is_rejected():
    step, result = make_case(diff("vendor_edit.diff"), filesWritten=BOTH, filesTouched=BOTH, step={"allowedFiles": ["src/**"]})
    verdict = judge.validate(step, result)
    assert verdict.rule == "scope_outside_allowed"
    assert "vendor/lib.py" in verdict.reason


def test_changes_inside_allowed_files_pass():
    step, result = make_case(diff("vendor_edit.diff"), filesWritten=BOTH, filesTouched=BOTH,
                             step={"allowedFiles": ["src/**", "vendor/*.py"], "excludedPaths": ["docs/"]})
    assert judge.validate(step, result).valid


def test_negated_allowed_pattern_excludes_a_file():
    step, result = make_case(step={"allowedFiles": ["src/**", "!src/app.py"]})
    assert judge.validate(step, result).rule == "scope_outside_allowed"


def test_rename_out_of_allowed_directory_is_rejected():
    files = ["src/utils.py"]
    step, result = make_case(diff("rename_only.diff"), filesWritten=files, filesTouched=files,
                             step={"allowedFiles": ["src/utils.py"]})
    verdict = judge.validate(step, result)
    assert verdict.rule == "scope_outside_allowed"
    assert "src/helpers.py" in verdict.reason


def _fix(patch_name, files, apply_files, **step):
    return make_case(diff(patch_name), mode="fix_regression", filesWritten=files, filesTouched=files,
                     step={"mode": "fix_regression", "applyFiles": apply_files, "description": "Fix the failing test", **step})


def test_fix_touching_file_outside_apply_files_is_rejected():
    verdict = judge.validate(*_fix("hidden_extra_file.diff", ["src/app.py", "src/settings.py"], ["src/app.py"]))
    assert verdict.rule == "scope_fix_regression"
    assert "src/settings.py" in verdict.reason


def test_fix_inside_apply_files_passes():
    assert judge.validate(*_fix("hidden_extra_file.diff", ["src/app.py", "src/settings.py"],
                                ["src/app.py", "src/settings.py"])).valid


def test_files_of_apply_patch_count_as_apply_files():
    verdict = judge.validate(*_fix("hidden_extra_file.diff", ["src/app.py", "src/settings.py"], ["src/app.py"],
                                   applyPatch=diff("hidden_extra_file.diff")))
    assert verdict.rule != "scope_fix_regression"


def test_fix_regression_step_without_apply_files_breaks_the_contract():
    step, result = _fix("python_edit.diff", ["src/app.py"], ["src/app.py"])
    del step["applyFiles"]
    verdict = judge.validate(step, result)
    assert verdict.rule == "schema_invalid"
    assert "applyFiles" in verdict.reason
