"""Rule 4 (deterministic part): a fix_regression that undoes the apply step."""

import judge
from helpers.builders import diff, make_case
from judge.patch.parse import parse_patch
from judge.rules.reversal import undone_fraction


def _fix(patch: str, apply_patch: str):
    return make_case(patch, mode="fix_regression", step={
        "mode": "fix_regression", "description": "Fix the failing test_parse_port",
        "applyFiles": ["src/app.py"], "applyPatch": apply_patch})


def test_exact_reverse_of_apply_patch_is_reversal():
    verdict = judge.validate(*_fix(diff("python_edit_reverse.diff"), diff("python_edit.diff")))
    assert verdict.rule == "reversal"
    assert "100%" in verdict.reason


def test_fix_that_keeps_the_feature_passes():
    verdict = judge.validate(*_fix(diff("python_whitespace_only.diff"), diff("python_edit.diff")))
    assert verdict.valid, verdict.reason


def test_undone_fraction_counts_only_meaningful_lines():
    apply, reverse = parse_patch(diff("python_edit.diff")), parse_patch(diff("python_edit_reverse.diff"))
    assert undone_fraction(apply, reverse) == 1.0
    assert undone_fraction(apply, apply) == 0.0


def test_partial_undo_is_a_signal_not_a_rejection():
    apply = parse_patch(diff("python_edit.diff"))
    added = [line for line in apply.files[0].hunks[0].added]
    # Take back two of the four added lines: half the feature.
    patch = (
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -6,5 +6,3 @@ import sys\n def parse_port(value):\n"
        f"     port = int(value)\n-{added[1]}\n-{added[2]}\n     return port\n"
    )
    verdict = judge.validate(*_fix(patch, diff("python_edit.diff")))
    assert verdict.valid, verdict.reason
    assert [s.rule for s in verdict.signals] == ["partial_reversal"]
    assert "50%" in verdict.signals[0].message


def test_without_apply_patch_reversal_is_not_checked():
    step, result = _fix(diff("python_edit_reverse.diff"), diff("python_edit.diff"))
    del step["applyPatch"]
    assert judge.validate(step, result).valid


def test_exact_reverse_is_complete_even_when_apply_moved_identical_lines():
    # The apply step removes "x = 1" in one place and adds it in another: its reverse must still read as 100%.
    apply = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n-x = 1\n y = 2\n+x = 1\n@@ -10,1 +10,2 @@\n z = 3\n+w = 4\n"
    reverse = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n+x = 1\n y = 2\n-x = 1\n@@ -10,2 +10,1 @@\n z = 3\n-w = 4\n"
    assert undone_fraction(parse_patch(apply), parse_patch(reverse)) == 1.0


def test_reindenting_what_apply_added_undoes_nothing():
    apply = "--- a/m.py\n+++ b/m.py\n@@ -1 +1,2 @@\n a = 1\n+if a: go()\n"
    fix = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a = 1\n-if a: go()\n+    if a: go()\n"
    assert undone_fraction(parse_patch(apply), parse_patch(fix)) == 0.0
