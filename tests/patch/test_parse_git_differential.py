"""judge.patch.parse against `git apply` itself (issue 11, item 3): seeded mutations of real diffs, both readers.

Whenever git refuses a patch, judge says malformed_patch; whenever both accept one, they read the
same files with the same line counts. judge may be stricter than git (a hunk followed by stray
lines, a header with no hunks): those cases are counted and printed, never failed. A few hundred
cases per run; JUDGE_DIFFERENTIAL_CASES raises it (bench/git_differential.py runs tens of thousands).
"""

from __future__ import annotations

import collections
import os
import shutil

import pytest

import judge
from helpers.patch_differential import Case, compare, mutated_cases, seeds

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is the oracle of this test")

CASES = int(os.environ.get("JUDGE_DIFFERENTIAL_CASES", "300"))
SEED = 11

_STEP = {"id": "step-1", "description": "Apply the change the patch makes", "mode": "apply"}


@pytest.fixture(scope="module")
def comparisons():
    return [compare(case) for case in mutated_cases(CASES, SEED)]


@pytest.mark.parametrize("name", sorted(seeds()))
def test_honest_seed_is_accepted_by_both_and_read_alike(name):
    result = compare(Case("seed", name, seeds()[name]))
    assert not result.git.refused, result.git.message
    assert result.kind == "agree", (result.judge_error, result.git.files)


def test_git_never_refuses_a_patch_judge_accepts(comparisons, capsys):
    kinds = collections.Counter(c.kind for c in comparisons)
    with capsys.disabled():
        print(f"\ngit differential, {len(comparisons)} mutated diffs (seed {SEED}): {dict(sorted(kinds.items()))}")
    accepted_corrupt = [(c.case.family, c.git.message, c.case.text[:300]) for c in comparisons
                        if c.kind == "git_refuses_judge_accepts"]
    assert accepted_corrupt == []


def test_when_both_accept_they_read_the_same_files_and_counts(comparisons):
    differently = [(c.case.family, c.git.files, c.case.text[:300]) for c in comparisons if c.kind == "read_differently"]
    assert differently == []


def test_the_mutations_really_break_patches(comparisons):
    # The control: without it, a generator that changed nothing would pass the two tests above.
    refused_by_git = sum(c.git.refused for c in comparisons)
    assert refused_by_git >= len(comparisons) // 4
    assert len({c.case.family.split("+")[0] for c in comparisons if c.git.refused}) >= 10


def test_validate_never_passes_a_patch_git_refuses(comparisons):
    refused = [c for c in comparisons if c.git.refused][:60]
    for result in refused:
        step, patch = dict(_STEP), result.case.text
        verdict = judge.validate(step, {"mode": "apply", "success": True, "patch": patch, "filesWritten": ["src/app.py"],
                                        "filesTouched": ["src/app.py"], "summary": "Applied the change."})
        assert not verdict.valid, result.case
        assert verdict.rule in ("malformed_patch", "missing_patch"), (verdict.rule, verdict.reason, result.case)
