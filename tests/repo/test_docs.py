"""The reference in docs/ builds with `mkdocs build --strict`: every page in the nav, every link and anchor resolves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_docs_build_strict(tmp_path: Path) -> None:
    # The dev extra holds the docs extra, so a missing mkdocs fails here rather than skipping.
    # Material prints a banner about MkDocs 2 on every build; it is not a warning about these pages.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-4000:]
    assert "WARNING" not in run.stderr, run.stderr[-4000:]
    assert (tmp_path / "site" / "rules" / "index.html").is_file()
