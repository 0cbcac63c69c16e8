"""The whole pipeline against recorded real model traffic (cassettes/, recorded from a real server).

The recorded model may be a poor judge (the offline recipe's 135M model is); these tests check
that judge carries what the model said into the verdict, with every call accounted for.
Each test names its cassette; pytest-recording plays it (tests/helpers/cassettes.py, tests/conftest.py).
"""

from __future__ import annotations

import pytest

import judge
from helpers.builders import diff, make_case
from helpers import cassettes
from helpers.cassettes import recorded_config, recorded_review, recorded_replies, recorded_setup
from judge.llm.prompt import load_prompt

FIX_STEP = {
    "mode": "fix_regression",
    "description": "Fix the regression: parse_port() must accept the string ' 8080 ' with spaces again",
    "applyFiles": ["src/app.py"],
}


def _judged(step: dict, result: dict, **config: object) -> judge.Verdict:
    return judge.validate(step, result, config=recorded_config(**config))


def uses_cassette(name: str) -> pytest.MarkDecorator:
    """The test replays (or, re-recording, writes) cassettes/NAME."""
    return pytest.mark.default_cassette(name)


def _assert_follows_recording(verdict: judge.Verdict, cassette: object, samples: int = 1) -> None:
    valid, calls = recorded_review(cassette, samples)
    assert verdict.valid is valid
    report = verdict.semantic_review
    assert len(report.calls) == calls
    assert report is not None and report.prompt_sha256 == load_prompt().sha256
    usage = [reply["usage"] for reply in recorded_replies(cassette)]
    assert report.prompt_tokens == sum(u["prompt_tokens"] for u in usage)
    assert report.completion_tokens == sum(u["completion_tokens"] for u in usage)
    assert verdict.semantic.status in ("passed", "rejected", "error")
    if not verdict.valid:
        assert verdict.rule in ("step_not_implemented", "overreach", "reversal", "llm_unavailable")


@pytest.mark.vcr
@uses_cassette("apply_parse_port.yaml")
def test_apply_step_verdict_follows_the_recorded_model(vcr):
    verdict = _judged(*make_case())
    _assert_follows_recording(verdict, vcr)


@pytest.mark.vcr
@uses_cassette("apply_wrong_change.yaml")
def test_apply_step_the_patch_does_not_do(vcr):
    step, result = make_case(step={"description": "Rename parse_port() to parse_tcp_port() in src/app.py and its callers"})
    verdict = _judged(step, result)
    _assert_follows_recording(verdict, vcr)


@pytest.mark.vcr
@uses_cassette("fix_partial_reversal.yaml")
def test_fix_regression_with_a_partial_reversal_signal(vcr):
    apply_patch = diff("python_edit.diff")
    added = [line for line in apply_patch.splitlines() if line.startswith("+    if")]
    patch = (
        "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
        "@@ -6,5 +6,4 @@ import sys\n def parse_port(value):\n-    port = int(value)\n"
        f"-{added[0][1:]}\n+    port = int(value.strip())\n"
        "         raise ValueError(f\"port out of range: {port}\")\n     return port\n"
    )
    step, result = make_case(patch, mode="fix_regression", step={**FIX_STEP, "applyPatch": apply_patch})
    verdict = _judged(step, result)
    _assert_follows_recording(verdict, vcr)
    assert "partial_reversal" in {f.rule for f in verdict.findings}


@pytest.mark.vcr
@uses_cassette("apply_three_samples.yaml")
def test_samples_vote_and_record_agreement(vcr):
    verdict = _judged(*make_case(), samples=3)
    _assert_follows_recording(verdict, vcr, samples=3)
    report = verdict.semantic_review
    assert len(report.samples) == 3
    votes = [s.valid for s in report.samples]
    assert report.agreement == pytest.approx(max(votes.count(v) for v in (True, False, None)) / 3, abs=1e-3)


# Skipped before pytest-recording opens the cassette: re-recording, it would record the miss instead of failing on it
# (and --record-mode=rewrite would delete the cassette the first test just recorded).
@pytest.mark.skipif(cassettes.RECORD_MODE != "none", reason="re-recording: the miss would be recorded")
@pytest.mark.vcr
@uses_cassette("apply_parse_port.yaml")
def test_a_request_missing_from_the_cassette_fails_closed_and_says_why(vcr):
    step, result = make_case(step={"description": "A step description that was never recorded"})
    verdict = judge.validate(step, result, config=recorded_config())
    # The cause: the request reached vcrpy, which had no recording for it (litellm only says "Connection error").
    assert vcr.play_count == 0 and len(vcr) >= 1
    assert (verdict.valid, verdict.rule) == (False, "llm_unavailable")
    recorded_at = recorded_setup()["api_base"]  # the server the cassettes were recorded from
    assert f"cannot connect to {recorded_at}" in verdict.reason and "HTTP 500" not in verdict.reason
    assert len(verdict.semantic_review.calls) == 1 and verdict.semantic_review.calls[0].attempts == 1
