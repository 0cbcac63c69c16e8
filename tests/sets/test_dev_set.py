"""evals/dev.jsonl: judge, with no model, gives every case its label, and the builder still writes the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import judge

ROOT = Path(__file__).resolve().parents[2]
CASES = [json.loads(line) for line in (ROOT / "evals" / "dev.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_each_dev_case_gets_its_label(case):
    verdict = judge.validate(case["step"], case["result"])
    expected = case["expected"]
    assert (verdict.valid, verdict.rule) == (expected["valid"], expected.get("rule")), verdict.reason


def test_the_builder_writes_dev_jsonl_byte_for_byte(tmp_path):
    out = tmp_path / "dev.jsonl"
    subprocess.run([sys.executable, str(ROOT / "evals" / "build_dev.py"), "--out", str(out), "--quiet"],
                   check=True, cwd=ROOT, timeout=600)
    assert out.read_bytes() == (ROOT / "evals" / "dev.jsonl").read_bytes()
