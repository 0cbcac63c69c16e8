"""The gates example (docs/gates.md) runs end to end: examples/gates/demo.sh with the installed `judge`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the example builds a git repository")


def test_the_gates_example_gives_each_verdict_the_readme_promises(tmp_path: Path) -> None:
    judge_bin = Path(sys.executable).parent
    if not (judge_bin / "judge").exists():
        pytest.skip("the `judge` console script is not installed beside this Python")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PATH=f"{judge_bin}{os.pathsep}{env.get('PATH', '')}", TMPDIR=str(tmp_path))
    proc = subprocess.run(["sh", str(ROOT / "examples" / "gates" / "demo.sh")], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    verdicts = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert [v["valid"] for v in verdicts] == [True, False, False, True]
    assert "all 6 gate(s)" in verdicts[0]["reason"]
    assert verdicts[1]["reason"].startswith("evidence_incomplete:")
    assert all(name in verdicts[1]["reason"] for name in ("changed_files", "commands_run", "tests_run"))
    assert verdicts[2]["reason"].startswith("human_approval_pending:")
    assert "| add-greeting | `python3 -m unittest -q` | 0 | SUCCESS |" in proc.stdout
    # judge's own runs of the tests left no bytecode in the judged repository
    repo = next(tmp_path.glob("tmp.*/repo"))
    assert not list(repo.rglob("__pycache__"))
