"""Small eval sets and a runner for `judge eval` that keeps every file (store, cache, reports) in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.builders import diff, make_case
from judge.cli.main import main

XSS_PATCH = "</script><script>alert(1)</script>"


def eval_line(case_id: str, step_result: tuple[dict, dict], valid: bool, rule: str | None = None,
              tags: list[str] | None = None, executions: list[dict] | None = None) -> str:
    step, result = step_result
    expected: dict = {"valid": valid}
    if rule is not None:
        expected["rule"] = rule
    case = {"id": case_id, "step": step, "result": result, "expected": expected}
    if tags is not None:
        case["tags"] = tags
    if executions is not None:
        case["executions"] = executions
    return json.dumps(case)


def execution(step_id: str, command: list[str], stdout: str = "", exit_code: int | None = 0, stderr: str = "",
              run_id: str = "run-1") -> dict:
    """An execution record as `judge run` writes it, its evidenceHash computed (never written by hand)."""
    from judge.runs.record import derived_status, evidence_hash

    return {"version": 1, "stepId": step_id, "runId": run_id, "command": command, "exitCode": exit_code,
            "stdout": stdout, "stderr": stderr, "stdoutBytes": len(stdout.encode()), "stderrBytes": len(stderr.encode()),
            "startedAt": "2026-02-07T16:00:00.000Z", "finishedAt": "2026-02-07T16:00:01.000Z",
            "durationSeconds": 1.0, "timedOut": False, "status": derived_status(exit_code, False, None),
            "evidenceHash": evidence_hash(command, stdout, stderr, exit_code),
            "artifacts": [f"artifacts/{run_id}/{step_id}/evidence.json"]}


def mixed_set() -> list[str]:
    """Two right, three wrong of three kinds (false accept, wrong rule, false reject), one bad line."""
    return [
        eval_line("valid-edit", make_case(), True, tags=["python"]),
        eval_line("hidden-file", make_case(diff("hidden_extra_file.diff")), False, "undeclared_file", ["python"]),
        eval_line("mislabelled|pipe\nnewline", make_case(), False, "scope_excluded", ["python", "odd-id"]),
        eval_line("wrong-rule", make_case(diff("hidden_extra_file.diff")), False, "scope_excluded"),
        # labelled valid, but the "patch" has no file header: judge rejects it (malformed_patch)
        eval_line("xss-patch", make_case(XSS_PATCH), True, tags=["html"]),
        '{"id": "broken", "step": ',
    ]


def write_set(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_cli(*argv: str) -> int:
    try:
        return main(list(argv))
    except SystemExit as exc:  # argparse
        return int(exc.code or 0)


def run_eval(tmp_path: Path, lines: list[str], name: str = "run", *flags: str) -> tuple[int, dict, Path]:
    """`judge eval` with every report format; returns (exit code, JSON report, folder of the reports)."""
    folder = tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    source = write_set(folder / "set.jsonl", lines)
    code = run_cli("eval", str(source), "--out", str(folder / "report.json"), "--markdown", str(folder / "report.md"),
                   "--junit", str(folder / "report.xml"), "--html", str(folder / "report.html"),
                   "--store", str(folder / "store.sqlite"), "--cache", str(folder / "cache.sqlite"), *flags)
    return code, json.loads((folder / "report.json").read_text(encoding="utf-8")), folder
