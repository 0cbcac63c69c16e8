"""judge imports litellm without letting the working directory change judge's environment.

litellm's import calls python-dotenv's load_dotenv() unless LITELLM_MODE says otherwise; run as `python -c`
(or under a tracer) dotenv looks for `.env` from the working directory up, so a judged workspace's `.env`
could set OPENAI_BASE_URL and send judge's model calls to a model of the executor's choosing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROBE = ("import os; from judge.llm.client import import_litellm; import_litellm(); "
          "print(os.environ.get('OPENAI_BASE_URL'), os.environ.get('JUDGE_DOTENV_PROBE'))")


def _run(cwd: Path, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "LITELLM_MODE")}
    environment.update(PYTHONPATH=str(ROOT), **env)
    done = subprocess.run([sys.executable, "-c", _PROBE], cwd=cwd, env=environment, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_dotenv_in_the_working_directory_is_not_loaded(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("OPENAI_BASE_URL=http://127.0.0.1:9/v1\nJUDGE_DOTENV_PROBE=loaded\n",
                                   encoding="utf-8")
    assert _run(tmp_path) == "None None"


def test_the_probe_sees_a_dotenv_when_litellm_is_asked_to_load_it(tmp_path: Path) -> None:
    """The same probe with litellm's DEV mode chosen by the user: the file is read, so the test above can fail."""
    (tmp_path / ".env").write_text("JUDGE_DOTENV_PROBE=loaded\n", encoding="utf-8")
    assert _run(tmp_path, LITELLM_MODE="DEV") == "None loaded"
