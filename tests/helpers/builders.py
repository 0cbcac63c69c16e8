"""make_case(): one valid step + result pair to start every test from, changed only where the test says."""

from __future__ import annotations

import copy
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def diff(name: str) -> str:
    """A diff fixture from tests/fixtures/diffs/, named by scenario."""
    with open(FIXTURES / "diffs" / name, encoding="utf-8", newline="") as handle:
        return handle.read()


_DEFAULT = object()


def text_diff(path: str, old: str | None, new: str | None, context: int = 3) -> str:
    """A git-style diff of one file from ``old`` to ``new`` text (None: the file is absent on that side)."""
    import difflib

    lines = list(difflib.unified_diff((old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
                                      "/dev/null" if old is None else f"a/{path}",
                                      "/dev/null" if new is None else f"b/{path}", n=context))
    mode = "new file mode 100644\n" if old is None else "deleted file mode 100644\n" if new is None else ""
    return f"diff --git a/{path} b/{path}\n{mode}" + "".join(lines)


def make_case(patch: object = _DEFAULT, *, step: dict | None = None, **result: object) -> tuple[dict, dict]:
    """(step, result) for a valid apply step editing src/app.py; keyword arguments override result keys.

    ``patch`` (positional) replaces the patch. A value of ``...`` (Ellipsis) removes that key.
    """
    base_step = {"id": "step-1", "description": "Add input validation to parse_port() in src/app.py", "mode": "apply"}
    base_result = {
        "mode": "apply",
        "success": True,
        "patch": diff("python_edit.diff"),
        "filesWritten": ["src/app.py"],
        "filesTouched": ["src/app.py", "tests/test_app.py"],
        "summary": "parse_port() now rejects ports outside 1-65535",
    }
    base_step.update(copy.deepcopy(step or {}))
    if patch is not _DEFAULT:
        result = {"patch": patch, **result}
    for key, value in result.items():
        if value is ...:
            base_result.pop(key, None)
        else:
            base_result[key] = value
    return base_step, base_result


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """judge's main() in-process: (exit code, stdout, stderr). A usage error's SystemExit counts as its code;
    a traceback on stderr is always a failure."""
    from judge.cli.main import main

    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err
