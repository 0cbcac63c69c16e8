"""Rule 2, scope: scope_excluded, scope_outside_allowed, scope_fix_regression."""

import pytest

import judge
from helpers.builders import diff, make_case

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


# Aliases: macOS and Windows store a name case-folded and NFC-composed, so these are the excluded files there.
NFD_CAFE = "cafe\u0301"  # "café" as macOS used to write it: e + COMBINING ACUTE ACCENT


def _writing(path: str, step: dict) -> tuple[dict, dict]:
    patch = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+key: value\n"
    return make_case(patch, filesWritten=[path], filesTouched=[path], step=step)


@pytest.mark.parametrize("path, excluded", [
    ("Config/secrets.yml", "config/secrets.yml"),
    ("config/SECRETS.yml", "config/secrets.yml"),
    ("CONFIG/Secrets.YML", "config/"),
    (f"{NFD_CAFE}/menu.txt", "caf\u00e9/"),
    ("caf\u00e9/menu.txt", f"{NFD_CAFE}/"),
    ("Stra\u00dfe/plan.txt", "strasse/"),
])
def test_an_alias_of_an_excluded_path_is_excluded(path, excluded):
    verdict = judge.validate(*_writing(path, {"excludedPaths": [excluded]}))
    assert verdict.rule == "scope_excluded", verdict.reason
    assert path in verdict.reason


@pytest.mark.parametrize("path", ["src/SECRETS.yml", "src/Secrets.yml", "Src/secrets.yml"])
def test_an_alias_of_a_file_negated_in_allowed_files_is_outside(path):
    verdict = judge.validate(*_writing(path, {"allowedFiles": ["src/**", "Src/**", "!src/secrets.yml"]}))
    assert verdict.rule == "scope_outside_allowed", verdict.reason


def test_names_that_only_look_alike_keep_their_verdicts():
    # as written, the allowed and excluded globs decide as before: folding only ever adds a rejection
    assert judge.validate(*_writing("src/Secrets.yml", {"allowedFiles": ["src/*"], "excludedPaths": ["docs/"]})).valid
    assert judge.validate(*_writing("src/App.py", {"allowedFiles": ["src/App.py", "src/[A-Z]*.py"]})).valid
    assert judge.validate(*_writing(f"{NFD_CAFE}/menu.txt", {"excludedPaths": ["cafe/"]})).valid
    # an alias does not widen allowedFiles: another case is still outside it
    assert judge.validate(*_writing("SRC/app.py", {"allowedFiles": ["src/**"]})).rule == "scope_outside_allowed"
