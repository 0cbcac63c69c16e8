"""Rule 3, the success flag: failure_with_patch, failure_without_summary, missing_patch, missing_files_written."""

import pytest

import judge
from helpers.builders import make_case

FAILED = {"success": False, "patch": ..., "filesWritten": ..., "filesTouched": ["src/app.py"]}


def test_well_formed_failure_report_is_valid():
    step, result = make_case(**FAILED, summary="Could not apply: src/app.py imports a module that does not exist")
    verdict = judge.validate(step, result)
    assert verdict.valid, verdict.reason


def test_failure_with_empty_patch_and_files_is_valid():
    step, result = make_case(success=False, patch="", filesWritten=[], summary="Blocked: the tests need a database")
    assert judge.validate(step, result).valid


def test_failure_carrying_a_patch_is_rejected():
    step, result = make_case(success=False, summary="Tests still fail after my change")
    verdict = judge.validate(step, result)
    assert verdict.rule == "failure_with_patch"
    assert "a patch" in verdict.reason


def test_failure_carrying_only_files_written_is_rejected():
    step, result = make_case(success=False, patch=..., summary="Tests still fail after my change")
    verdict = judge.validate(step, result)
    assert verdict.rule == "failure_with_patch"
    assert "src/app.py" in verdict.reason


@pytest.mark.parametrize("summary", [..., "", "   ", "failed", "Error.", "TODO", "n/a"])
def test_failure_without_an_explaining_summary_is_rejected(summary):
    verdict = judge.validate(*make_case(**FAILED, summary=summary))
    assert verdict.rule == "failure_without_summary"


def test_failure_summary_in_cjk_counts_as_explaining():
    verdict = judge.validate(*make_case(**FAILED, summary="无法应用补丁：测试依赖的模块不存在"))
    assert verdict.valid


@pytest.mark.parametrize("patch", [..., None, "", "  \n\t"])
def test_success_without_patch_is_missing_patch(patch):
    verdict = judge.validate(*make_case(patch))
    assert verdict.rule == "missing_patch"


@pytest.mark.parametrize("files", [..., None, []])
def test_success_without_files_written_is_rejected(files):
    verdict = judge.validate(*make_case(filesWritten=files))
    assert verdict.rule == "missing_files_written"
