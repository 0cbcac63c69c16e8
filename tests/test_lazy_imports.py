"""The deterministic path must not import the LLM stack: litellm alone costs seconds of cold start.

Each check runs in a fresh interpreter. Stub `litellm`, `openai` and `tenacity` packages are put
first on sys.path, so an import of any of them shows up in sys.modules even where the real package
is not installed (and where it is, the cheap stub is what gets imported).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers.builders import diff, make_case

HEAVY = ("litellm", "openai", "tenacity", "pygit2", "tree_sitter")  # pygit2: only a run with a workspace reads a repository; tree_sitter: only JS/TS code


@pytest.fixture
def stubs(tmp_path: Path) -> Path:
    root = tmp_path / "stubs"
    for name in HEAVY:
        package = root / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(f"IMPORTED = {name!r}\n", encoding="utf-8")
    return root


def _run_fresh(stubs: Path, body: str, tmp_path: Path) -> dict:
    script = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, {stubs!r})
        {body}
        print(json.dumps({{"loaded": sorted(m for m in {heavy!r} if m in sys.modules), "answer": answer}}))
        """
    ).format(stubs=str(stubs), body=textwrap.indent(textwrap.dedent(body), "").strip(), heavy=HEAVY)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _case_literal(*patch: str) -> str:
    return repr(make_case(*patch))


def test_stubs_are_seen_when_imported(stubs: Path, tmp_path: Path) -> None:
    # The check itself can fail: importing a stub is recorded.
    report = _run_fresh(stubs, "import litellm\nanswer = litellm.IMPORTED", tmp_path)
    assert report == {"loaded": ["litellm"], "answer": "litellm"}


def test_import_judge_loads_no_llm_module(stubs: Path, tmp_path: Path) -> None:
    report = _run_fresh(stubs, "import judge\nanswer = judge.__version__", tmp_path)
    assert report["loaded"] == []


def test_deterministic_rejection_loads_no_llm_module(stubs: Path, tmp_path: Path) -> None:
    body = f"""
    import judge
    step, result = {_case_literal(diff("hidden_extra_file.diff"))}
    answer = judge.validate(step, result).rule
    """
    report = _run_fresh(stubs, body, tmp_path)
    assert report == {"loaded": [], "answer": "undeclared_file"}


def test_valid_case_with_semantic_skipped_loads_no_llm_module(stubs: Path, tmp_path: Path) -> None:
    body = f"""
    import judge
    step, result = {_case_literal()}
    verdict = judge.validate(step, result)
    answer = [verdict.valid, verdict.semantic.status]
    """
    report = _run_fresh(stubs, body, tmp_path)
    assert report == {"loaded": [], "answer": [True, "skipped"]}


def test_cli_main_loads_no_llm_module(stubs: Path, tmp_path: Path) -> None:
    step, result = make_case()
    (tmp_path / "step.json").write_text(json.dumps(step), encoding="utf-8")
    (tmp_path / "result.json").write_text(json.dumps(result), encoding="utf-8")
    body = """
    import contextlib, io
    from judge.cli.main import main
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(["validate", "--step", "step.json", "--result", "result.json", "--explain"])
    answer = [code, json.loads(out.getvalue())["valid"]]
    """
    report = _run_fresh(stubs, body, tmp_path)
    assert report == {"loaded": [], "answer": [0, True]}


def test_cli_eval_loads_no_llm_module(stubs: Path, tmp_path: Path) -> None:
    step, result = make_case()
    case = {"id": "ok", "step": step, "result": result, "expected": {"valid": True}}
    (tmp_path / "set.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    body = """
    import contextlib, io
    from judge.cli.main import main
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["eval", "set.jsonl", "--out", "metrics.json"])
    answer = code
    """
    report = _run_fresh(stubs, body, tmp_path)
    assert report == {"loaded": [], "answer": 0}
