"""judge/evidence/files.py: reading `.orchestrator/evidence/<stepId>.json` safely, and what makes it count."""

from __future__ import annotations

import json
import os

import pytest

from judge.workspace import evidence_file as files_module
from judge.workspace.evidence_file import evidence_path, read_evidence_file

EVIDENCE = {"version": 1, "nodeId": "deploy-staging", "timestamp": "2026-02-07T16:00:00.000Z",
            "summary": "Deployed build #1234 to staging", "type": "external_effect", "outcome": {"buildId": "1234"}}


@pytest.fixture
def root(tmp_path):
    (tmp_path / ".orchestrator" / "evidence").mkdir(parents=True)
    return tmp_path


def _write(root, data: bytes, step_id: str = "deploy-staging"):
    (root / evidence_path(step_id)).write_bytes(data)


def test_seed_example_is_valid(root):
    _write(root, json.dumps(EVIDENCE).encode())
    facts = read_evidence_file(root, "deploy-staging")
    assert facts.valid and facts.evidence.summary == EVIDENCE["summary"] and facts.evidence.outcome == {"buildId": "1234"}


def test_no_file_is_none(root):
    assert read_evidence_file(root, "deploy-staging") is None


@pytest.mark.parametrize("data, problem", [
    (b"{", "not valid JSON"),
    (b"\xff", "not UTF-8"),
    (json.dumps({**EVIDENCE, "version": True}).encode(), "$.version"),
    (json.dumps({**EVIDENCE, "timestamp": "yesterday"}).encode(), "$.timestamp"),
    (json.dumps({**EVIDENCE, "type": "vibes"}).encode(), "$.type"),
    (json.dumps({**EVIDENCE, "outcome": []}).encode(), "$.outcome"),
], ids=["bad-json", "not-utf8", "version-true", "timestamp", "unknown-type", "outcome-not-object"])
def test_broken_file_says_why(root, data, problem):
    _write(root, data)
    facts = read_evidence_file(root, "deploy-staging")
    assert not facts.valid and problem in facts.problem


def test_bom_is_accepted(root):
    _write(root, b"\xef\xbb\xbf" + json.dumps(EVIDENCE).encode())
    assert read_evidence_file(root, "deploy-staging").valid


def test_oversized_file_is_not_read_whole(root, monkeypatch):
    monkeypatch.setattr(files_module, "_MAX_BYTES", 100)
    _write(root, json.dumps({**EVIDENCE, "summary": "x" * 500}).encode())
    assert "larger than" in read_evidence_file(root, "deploy-staging").problem


def test_a_directory_in_its_place_is_not_a_file(root):
    (root / evidence_path("deploy-staging")).mkdir()
    assert "not a regular file" in read_evidence_file(root, "deploy-staging").problem


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_never_blocks_the_read(root):
    os.mkfifo(root / evidence_path("deploy-staging"))
    assert "not a regular file" in read_evidence_file(root, "deploy-staging").problem


def test_a_symlink_is_never_the_evidence_itself(root):
    # Even one inside the repository: it could point at an old, committed file.
    (root / "real.json").write_text(json.dumps(EVIDENCE), encoding="utf-8")
    os.symlink(root / "real.json", root / evidence_path("deploy-staging"))
    assert "symlink" in read_evidence_file(root, "deploy-staging").problem


@pytest.mark.parametrize("step_id", ["../x", "..", "a/b", "", "x\x00"])
def test_step_ids_that_would_escape_name_no_file(root, step_id):
    assert read_evidence_file(root, step_id) is None
