"""Fail closed when only the model can decide: a result that changed no file (an evidence file, or nothing at all
under semantic `required`) is reviewed by the model against the step, with the evidence file's content fenced as
data; with no model it is never `valid` silently.

The model is a loopback server with SYNTHETIC replies (tests/helpers/loopback.py); the requests judge sends are real.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import judge
from judge import Workspace
from helpers.loopback import content
from helpers.scenario_repos import Repo, git_env  # noqa: F401  (git_env: autouse fixture)

STEP = {"id": "audit-deps", "description": "Audit the dependency licences and record which ones are GPL",
        "mode": "apply"}
# The attack of the review: `type: analysis`, an empty patch, a summary that proves nothing.
EVIDENCE = {"version": 1, "nodeId": "audit-deps", "timestamp": "2026-02-07T16:00:00.000Z",
            "summary": "Audited QZXJ-licences: none are GPL", "type": "analysis"}
EMPTY_RESULT = {"mode": "apply", "success": True, "patch": "", "summary": "audit done, see the evidence file"}
_FENCE = re.compile(r"fence token ([0-9a-f]{16})")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "repo", {"README.md": "# app\n", "requirements.txt": "requests\n"})
    path = repo.root / ".orchestrator" / "evidence" / "audit-deps.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(EVIDENCE), encoding="utf-8")
    return repo


def _config(server, semantic: str = "required") -> judge.JudgeConfig:
    return judge.JudgeConfig(semantic=semantic, model="openai/judge-test", api_base=server.api_base, retries=0,
                             timeout=5, deadline=20, output_mode="none")


def _fenced(user: str) -> list[str]:
    fence = _FENCE.search(user).group(1)
    return re.findall(rf"<<<DATA {fence}\n(.*?)\nDATA {fence}>>>", user, flags=re.S)


@pytest.mark.loopback
@pytest.mark.parametrize("semantic", ["required", "auto"])
def test_an_evidence_only_result_is_rejected_when_the_model_says_so(repo, scripted_server, semantic):
    server = scripted_server([content(False, "step_not_implemented: the evidence names no licence at all")])
    verdict = judge.validate(STEP, EMPTY_RESULT, config=_config(server, semantic),
                             workspace=Workspace(repo.root, repo.base))
    assert (verdict.valid, verdict.rule) == (False, "step_not_implemented"), verdict.reason
    assert "names no licence" in verdict.reason
    assert len(server.requests) == 1
    user = server.requests[0].body["messages"][1]["content"]
    evidence_block = next(block for block in _fenced(user) if ".orchestrator/evidence/audit-deps.json" in block)
    assert json.loads(evidence_block.split("\n", 1)[1]) == EVIDENCE  # the whole file, as data
    trusted = re.sub(r"<<<DATA .*?>>>", "", user, flags=re.S)
    assert "QZXJ" not in trusted and "the step changed no file" in trusted


@pytest.mark.loopback
def test_an_evidence_only_result_the_model_accepts_is_valid_with_its_reason(repo, scripted_server):
    server = scripted_server([content(True, "the evidence records the audit the step asks for")])
    verdict = judge.validate(STEP, EMPTY_RESULT, config=_config(server), workspace=Workspace(repo.root, repo.base))
    assert verdict.valid, verdict.reason
    assert "semantic review by openai/judge-test: the evidence records the audit" in verdict.reason
    assert verdict.evidence_method == "evidence_file"


@pytest.mark.loopback
def test_required_review_of_a_result_without_any_patch_asks_the_model(scripted_server):
    server = scripted_server([content(False, "step_not_implemented: nothing was done")])
    step = {**STEP, "expectsNoChanges": True}
    verdict = judge.validate(step, EMPTY_RESULT, config=_config(server))
    assert (verdict.valid, verdict.rule, len(server.requests)) == (False, "step_not_implemented", 1), verdict.reason


@pytest.mark.loopback
def test_an_unanswering_model_leaves_an_evidence_only_result_not_valid(repo, scripted_server):
    from helpers.loopback import Reply

    server = scripted_server([Reply(500, {"error": "down"})])
    verdict = judge.validate(STEP, EMPTY_RESULT, config=_config(server), workspace=Workspace(repo.root, repo.base))
    assert (verdict.valid, verdict.rule) == (False, "llm_unavailable"), verdict.reason


def test_required_review_without_a_model_is_not_valid_and_says_what_to_do(repo):
    config = judge.JudgeConfig(semantic="required")
    verdict = judge.validate(STEP, EMPTY_RESULT, config=config, workspace=Workspace(repo.root, repo.base))
    assert (verdict.valid, verdict.rule) == (False, "llm_unavailable")
    assert "--model" in verdict.reason and "JUDGE_MODEL" in verdict.reason


def test_auto_review_without_a_model_says_the_work_was_not_verified(repo):
    verdict = judge.validate(STEP, EMPTY_RESULT, workspace=Workspace(repo.root, repo.base))
    assert verdict.valid and verdict.reason.endswith("step implementation not verified: no model configured.")


def test_semantic_off_is_the_orchestrators_explicit_choice(repo):
    verdict = judge.validate(STEP, EMPTY_RESULT, config=judge.JudgeConfig(semantic="off", model="openai/x"),
                             workspace=Workspace(repo.root, repo.base))
    assert verdict.valid and "semantic review off" in verdict.reason


@pytest.mark.loopback
def test_a_long_evidence_file_is_cut_to_the_patch_budget_and_says_so(repo, scripted_server):
    path = repo.root / ".orchestrator" / "evidence" / "audit-deps.json"
    path.write_text(json.dumps({**EVIDENCE, "summary": "licence ok. " * 5000}), encoding="utf-8")
    server = scripted_server([content(False, "step_not_implemented: no licence is named")])
    config = _config(server).model_copy(update={"max_patch_tokens": 500})
    judge.validate(STEP, EMPTY_RESULT, config=config, workspace=Workspace(repo.root, repo.base))
    user = server.requests[0].body["messages"][1]["content"]
    block = next(block for block in _fenced(user) if ".orchestrator/evidence/audit-deps.json" in block)
    assert "[cut by judge: the first 2,000 of " in block and len(block) < 2200
