"""Scenarios for the gate tests: a small project in a real git repository, the result an honest executor returns
for what it changed, execution records made by really running a command, and judge.validate with everything
judge writes (artifacts, approvals) kept outside the repository."""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import judge
from helpers.builders import text_diff
from judge.contract.models import ExecutionEvidence
from judge.runs.artifacts import record_execution
from judge.runs.keys import KEY_FILE, load_or_create_key
from judge.workspace.work_hash import work_binding
from helpers.scenario_repos import Repo, git, snapshot

PY = sys.executable
STEP_ID = "step-1"
APP = "def port(value):\n    return int(value)\n"
APP_FIXED = "def port(value):\n    port = int(value)\n    if not 0 < port < 65536:\n        raise ValueError(value)\n    return port\n"
TEST_APP = "from src.app import port\n\n\ndef test_port():\n    assert port('80') == 80\n"
TEST_APP_MORE = TEST_APP + "\n\ndef test_range():\n    import pytest\n    with pytest.raises(ValueError):\n        port('0')\n"
FILES = {
    "src/app.py": APP,
    "tests/test_app.py": TEST_APP,
    "README.md": "# app\n",
    "config/settings.json": '{"name": "app", "port": 8080}\n',
}
DESCRIPTION = "Add range validation to port() in src/app.py and a test for it"


def command(*argv: str) -> str:
    """The command line a gate or an evidence document names for ``argv`` (split back to ``argv`` by shlex)."""
    return shlex.join(argv)


def py(code: str) -> str:
    """A command line running ``code`` with this Python."""
    return command(PY, "-c", code)


def step(*gates: dict, **extra: Any) -> dict:
    return {"id": STEP_ID, "description": DESCRIPTION, "mode": "apply", **({"gates": list(gates)} if gates else {}),
            **extra}


def gate(kind: str, description: str = "", **parameters: Any) -> dict:
    return {"type": kind, "parameters": parameters, **({"description": description} if description else {})}


@dataclass
class Project:
    """A repository holding FILES at ``base``; the test changes it the way an executor would."""

    tmp: Path
    repo: Repo

    @property
    def root(self) -> Path:
        return self.repo.root

    def change(self, files: dict[str, str] | None = None) -> "Project":
        self.repo.write({"src/app.py": APP_FIXED, "tests/test_app.py": TEST_APP_MORE} if files is None else files)
        return self

    def changed(self) -> list[str]:
        tracked = git(self.root, "diff", "--name-only", self.repo.base).split()
        return sorted(set(tracked + self.untracked()))

    def untracked(self) -> list[str]:
        return git(self.root, "ls-files", "--others", "--exclude-standard").split()

    def patch(self) -> str:
        """Base to work tree, untracked files included: what `git diff` of the whole change shows."""
        untracked = "".join(text_diff(path, None, (self.root / path).read_text(encoding="utf-8"))
                            for path in self.untracked())
        return git(self.root, "diff", self.repo.base) + untracked

    def result(self, evidence: dict | None = None, **override: Any) -> dict:
        files = self.changed()
        result = {"mode": "apply", "success": True, "patch": self.patch(), "filesWritten": files,
                  "filesTouched": files, "summary": "port() rejects ports outside 1-65535; a test shows it"}
        if evidence is not None:
            result["evidence"] = evidence
        result.update(override)
        return result

    def workspace(self) -> judge.Workspace:
        return judge.Workspace(self.root, self.repo.base)

    def config(self, **settings: Any) -> judge.JudgeConfig:
        return config(self.tmp, **settings)

    def validate(self, step_data: Any, result: Any = None, *, records: tuple = (), workspace: bool = True,
                 **settings: Any) -> judge.Verdict:
        """judge.validate with this project as the workspace (unless ``workspace`` is False); asserts judge left
        the repository as it found it (commands the gates run are the test's own and write nothing there)."""
        before = snapshot(self.root)
        verdict = judge.validate(step_data, self.result() if result is None else result,
                                 workspace=self.workspace() if workspace else None, evidence=records,
                                 config=self.config(**settings))
        assert snapshot(self.root) == before
        return verdict


def project(tmp: Path, files: dict[str, str] | None = None) -> Project:
    return Project(tmp, Repo(tmp / "repo", FILES if files is None else files))


def config(tmp: Path, **settings: Any) -> judge.JudgeConfig:
    """semantic off, artifacts, approvals and templates under ``tmp`` (never the working directory or the repo)."""
    defaults = {"semantic": "off", "artifacts_root": str(tmp / "judge-artifacts"),
                "approvals": str(tmp / "approvals.jsonl"), "templates_dir": str(tmp / "templates")}
    return judge.JudgeConfig(**{**defaults, **settings})


# The stand-in test commands these tests run (`python -c "print('3 passed')"`) count as test commands only because
# the step's policy says so: a record of any other command never backs a tests claim.
STAND_IN_TESTS = {"test_commands": ["python -c *"]}


def shell_on(*patterns: str) -> dict:
    """Policies that let judge run commands matching ``patterns`` (all of them when none is given)."""
    return {"enable_shell_gates": True, "shell_gate_allowlist": list(patterns or ("*",))}


def record(tmp: Path, argv: list[str] | tuple[str, ...], step_id: str = STEP_ID, cwd: Path | None = None,
           run_id: str | None = None, sign: bool = True) -> ExecutionEvidence:
    """A real `judge run` record: ``argv`` run for ``step_id``, its artifacts under tmp/runs. Signed (``sign``) as
    `judge run --base` signs: with the key in the artifacts root ``config`` gives validation, bound to the work of the
    project's repository (tmp/repo) against its first commit, as it is when the command starts."""
    key = work = None
    if sign:
        key = load_or_create_key(tmp / "judge-artifacts" / KEY_FILE)
        base = git(tmp / "repo", "rev-list", "--max-parents=0", "HEAD").split()[0]
        work = work_binding(tmp / "repo", base, step_id)
    return record_execution(list(argv), step_id=step_id, root=tmp / "runs", run_id=run_id, cwd=cwd or tmp, key=key,
                            work=work)


def evidence(*, commands: list[str] | None = None, tests: list[str] | None = None, passed: bool | None = None,
             changed: list[str] | None = None, **more: Any) -> dict:
    """An EvidenceSchema document; keys left None are absent."""
    doc = {"changed_files": changed, "diff_summary": "port() now rejects ports outside 1-65535",
           "commands_run": commands, "tests_run": tests, "tests_passed": passed, **more}
    return {key: value for key, value in doc.items() if value is not None}


def gate_result(verdict: judge.Verdict, kind: str):
    """The one result of gate type ``kind`` in the verdict."""
    found = [result for result in verdict.gates if result.type == kind]
    assert len(found) == 1, verdict.gates
    return found[0]


def rules(verdict: judge.Verdict) -> list[str]:
    return [finding.rule for finding in verdict.findings]
