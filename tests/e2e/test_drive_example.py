"""The retry driver's example (docs/interfaces/drive.md) runs end to end: examples/drive/demo.sh, installed `judge`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_drive_example_is_rejected_once_then_accepted(tmp_path: Path) -> None:
    judge_bin = Path(sys.executable).parent
    if not (judge_bin / "judge").exists():
        pytest.skip("the `judge` console script is not installed beside this Python")
    env = {**os.environ, "PATH": f"{judge_bin}{os.pathsep}{os.environ.get('PATH', '')}", "TMPDIR": str(tmp_path)}
    proc = subprocess.run(["sh", str(ROOT / "examples" / "drive" / "demo.sh")], capture_output=True, text=True,
                          env=env, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[0])["valid"] is True
    lines = [json.loads(line) for line in (tmp_path / "judge-drive-demo.jsonl").read_text().splitlines()]
    assert [(line["request"]["mode"], line["verdict"]["rule"], line["stop"]) for line in lines] == [
        ("apply", "undeclared_file", None), ("fix_regression", None, "accepted")]
    assert lines[1]["request"]["feedback"] == lines[0]["verdict"]["reason"]
    assert "vendor/requests/adapters.py" in lines[1]["request"]["applyFiles"]
