"""One intake for every interface: the same input gets the same verdict or the same refusal from the command line,
`judge serve`, `judge mcp` and the Python API; the pipeline names the stage and the rule it failed in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from starlette.testclient import TestClient

import judge
from helpers.builders import run_cli
from judge.config import JudgeConfig
from judge.gates.policies import pinned_for_clients
from judge.mcp.server import build_server
from judge.mcp.tools import Settings
from judge.serve.app import create_app
from judge.serve.settings import ServerSettings
from judge.workspace.roots import WorkspaceRoots
from helpers.scenario_repos import Repo, git_env  # noqa: F401  (git_env: autouse fixture)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
STEP = json.loads((EXAMPLES / "step.json").read_text(encoding="utf-8"))
VALID = json.loads((EXAMPLES / "result-valid.json").read_text(encoding="utf-8"))
FAILURE = {"mode": "apply", "success": False, "patch": "", "filesWritten": [], "filesTouched": [],
           "summary": "the vendored adapter cannot be changed without its upstream"}

pytestmark = pytest.mark.usefixtures("eval_sandbox")


class Interfaces:
    """One request sent to the command line, HTTP, MCP and the Python API, each answer as (kind, detail)."""

    def __init__(self, tmp_path: Path, roots: Path, capsys: Any) -> None:
        self.tmp, self.capsys = tmp_path, capsys
        self.config = JudgeConfig()  # judge's state directory is the test's own (conftest.judge_state)
        self.roots = WorkspaceRoots.of([roots])

    def cli(self, step: Any, result: Any, records: list, workspace: dict | None) -> tuple[str, Any, int]:
        files = []
        for name, value in (("step", step), ("result", result), *((f"record-{i}", r) for i, r in enumerate(records))):
            (self.tmp / f"{name}.json").write_text(json.dumps(value), encoding="utf-8")
            files.append(str(self.tmp / f"{name}.json"))
        flags = [f for path in files[2:] for f in ("--record", path)]
        if workspace is not None:
            flags += ["--repo", workspace["repo"], "--base", workspace["base"]]
        code, out, err = run_cli(self.capsys, "validate", "--step", files[0], "--result", files[1], *flags)
        if code == 2:
            return "refused", err, code
        return "verdict", json.loads(out), code

    def http(self, body: dict) -> tuple[str, Any, Any]:
        app = create_app(ServerSettings.checked(self.config, roots=self.roots))
        with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as client:
            response = client.post("/v1/validate", content=json.dumps(body).encode(),
                                   headers={"Content-Type": "application/json"})
        if response.status_code == 400:
            return "refused", response.json()["error"]["message"], response.headers
        assert response.status_code == 200, response.text
        return "verdict", response.json(), response.headers

    def mcp(self, arguments: dict) -> tuple[str, Any, Any]:
        settings = Settings(pinned_for_clients(self.config), self.roots)

        async def main() -> Any:
            with anyio.fail_after(60):
                async with Client(build_server(settings)) as client:
                    return await client.call_tool("validate_step", arguments)

        answer = anyio.run(main)
        if answer.is_error:
            return "refused", answer.content[0].text, None
        return "verdict", answer.structured_content, answer.meta

    def api(self, step: Any, result: Any, records: list, workspace: dict | None) -> judge.Verdict:
        place = judge.Workspace(workspace["repo"], workspace["base"]) if workspace is not None else None
        return judge.validate(step, result, records=records, workspace=place, config=self.config)

    def every(self, step: Any, result: Any, records: list = (), workspace: dict | None = None) -> dict:
        body = {"step": step, "result": result, "records": list(records),
                **({"workspace": workspace} if workspace is not None else {})}
        return {"cli": self.cli(step, result, list(records), workspace), "http": self.http(body),
                "mcp": self.mcp(body), "api": self.api(step, result, list(records), workspace)}


@pytest.fixture
def roots(tmp_path: Path) -> Path:
    (tmp_path / "roots").mkdir()
    return tmp_path / "roots"


@pytest.fixture
def interfaces(tmp_path: Path, roots: Path, capsys: Any) -> Interfaces:
    (tmp_path / "io").mkdir()
    return Interfaces(tmp_path / "io", roots, capsys)


def _same_verdict(answers: dict) -> dict:
    verdicts = {name: answer[1] for name, answer in answers.items() if name != "api"}
    assert all(answers[name][0] == "verdict" for name in verdicts), answers
    assert len({json.dumps(v, sort_keys=True) for v in verdicts.values()}) == 1, verdicts
    assert answers["api"].contract() == verdicts["cli"]
    return verdicts["cli"]


@pytest.mark.parametrize("record", [{"bogus": 1}, {"version": 1}, "not an object"], ids=["bogus", "partial", "text"])
def test_a_record_that_breaks_its_schema_is_the_same_schema_invalid_verdict_everywhere(interfaces, record):
    verdict = _same_verdict(interfaces.every(STEP, VALID, [record]))
    assert verdict["valid"] is False and verdict["reason"].startswith("schema_invalid: the record breaks its contract")
    assert "$.records[0]" in verdict["reason"]


def test_a_step_that_breaks_its_schema_is_the_same_verdict_everywhere(interfaces):
    verdict = _same_verdict(interfaces.every({"id": "s"}, VALID))
    assert verdict["reason"].startswith("schema_invalid:") and "$.step.description" in verdict["reason"]


def test_an_honest_result_is_the_same_valid_verdict_everywhere(interfaces):
    assert _same_verdict(interfaces.every(STEP, VALID))["valid"] is True


@pytest.mark.parametrize("problem", ["not a repository", "short base", "unknown base"])
def test_a_workspace_that_cannot_be_opened_is_refused_by_every_interface(interfaces, roots, problem):
    repo = Repo(roots / "repo", {"src/app.py": "x = 1\n"})
    if problem == "not a repository":
        (roots / "plain").mkdir()
        workspace = {"repo": str(roots / "plain"), "base": repo.base}
    else:
        workspace = {"repo": str(repo.root), "base": repo.base[:12] if problem == "short base" else "b" * 40}
    answers = interfaces.every(STEP, VALID, workspace=workspace)
    for name in ("cli", "http", "mcp"):
        assert answers[name][0] == "refused", (name, answers[name])
    assert answers["cli"][2] == 2
    # the Python API never raises: the same input is a verdict that fails closed
    assert answers["api"].valid is False and answers["api"].rule == "workspace_unreadable"


def test_a_failure_report_is_valid_and_not_accepted_on_every_interface(interfaces):
    answers = interfaces.every(STEP, FAILURE)
    verdict = _same_verdict(answers)
    assert verdict["valid"] is True and "the step was not done" in verdict["reason"]
    assert answers["cli"][2] == 3
    headers = answers["http"][2]
    assert (headers["judge-accepted"], headers["judge-next-action"]) == ("false", "diagnose")
    assert answers["mcp"][2]["judge/outcome"] == {"accepted": False, "nextAction": "diagnose"}
    assert answers["api"].outcome.accepted is False and answers["api"].outcome.next_action == "diagnose"


def test_an_accepted_step_says_so_on_every_interface(interfaces):
    answers = interfaces.every(STEP, VALID)
    assert answers["cli"][2] == 0
    assert (answers["http"][2]["judge-accepted"], answers["http"][2]["judge-next-action"]) == ("true", "advance")
    assert answers["mcp"][2]["judge/outcome"] == {"accepted": True, "nextAction": "advance"}


def test_a_rule_that_fails_names_its_stage_and_rule_and_keeps_the_stages_run(monkeypatch):
    from judge.rules import registry

    def exploding(ctx):  # SYNTHETIC: a bug inside one rule
        raise ValueError("boom")
        yield

    exploding.__name__ = "special_cased_input"
    monkeypatch.setattr(registry, "RULES", registry.RULES[:-1] + (exploding,))
    monkeypatch.setattr(registry.run_rules, "__defaults__", (registry.RULES,))
    verdict = judge.validate(STEP, VALID)
    assert verdict.valid is False and verdict.rule == "judge_error"
    assert "the rules stage, rule special_cased_input (test_intake) failed: ValueError: boom" in verdict.reason
    assert [(s.stage, s.status) for s in verdict.stages] == [("contract", "passed"), ("rules", "error"),
                                                             ("semantic", "skipped")]
    assert verdict.outcome.next_action == "diagnose"


def test_the_full_verdict_is_camel_case_on_every_interface(interfaces):
    full = judge.validate(STEP, VALID).full_json()
    keys = set(full) | set(full["outcome"]) | {key for stage in full["stages"] for key in stage}
    assert {"judgeVersion", "nextAction", "durationMs", "records"} <= keys
    assert not any("_" in key for key in keys)


def test_a_gate_that_fails_names_its_stage_and_gate(monkeypatch, tmp_path):
    from judge.gates import stage  # imported before the patch: it binds the registry's GATES at its import

    def file_exists(g, spec_gate):  # SYNTHETIC: a bug inside one gate family
        raise KeyError("boom")

    monkeypatch.setattr(stage, "GATES", tuple(file_exists if gate.__name__ == "file_exists" else gate
                                              for gate in stage.GATES))
    step = {**STEP, "gates": [{"type": "file_exists", "parameters": {"path": "vendor/requests/adapters.py"}}]}
    verdict = judge.validate(step, VALID, config=JudgeConfig(semantic="off"))
    assert verdict.valid is False and verdict.rule == "judge_error"
    assert "the gates stage, gate file_exists failed: KeyError" in verdict.reason
    assert [(s.stage, s.status) for s in verdict.stages] == [("contract", "passed"), ("rules", "passed"),
                                                             ("gates", "error"), ("semantic", "skipped")]


def test_an_unreadable_key_comes_before_a_broken_contract_on_the_command_line_and_in_the_api(interfaces, tmp_path,
                                                                                              capsys):
    missing = str(tmp_path / "no-such.key")
    (tmp_path / "step.json").write_text(json.dumps({"id": "s"}), encoding="utf-8")
    (tmp_path / "result.json").write_text(json.dumps(VALID), encoding="utf-8")
    code, out, err = run_cli(capsys, "validate", "--step", str(tmp_path / "step.json"), "--result",
                             str(tmp_path / "result.json"), "--evidence-key", missing)
    assert (code, out) == (2, "") and "no such evidence key" in err
    verdict = judge.validate({"id": "s"}, VALID, config=JudgeConfig(evidence_key=missing))
    assert verdict.rule == "execution_evidence_invalid" and "no such evidence key" in verdict.reason


def test_a_servers_own_key_gone_bad_is_a_verdict_not_the_clients_fault(roots, tmp_path, monkeypatch, capsys):
    served = Interfaces(tmp_path, roots, capsys)
    served.config = JudgeConfig(evidence_key=str(tmp_path / "gone.key"))  # as if deleted after the start
    for kind, verdict, _ in (served.http({"step": STEP, "result": VALID}),
                             served.mcp({"step": STEP, "result": VALID})):
        assert kind == "verdict" and verdict["valid"] is False
        assert verdict["reason"].startswith("execution_evidence_invalid: judge could not read its evidence key")


def test_a_failure_while_reading_the_workspace_is_judge_error_on_every_interface(interfaces, roots, monkeypatch):
    repo = Repo(roots / "repo", {"src/app.py": "x = 1\n"})

    def broken(self, step_id, patch):  # SYNTHETIC: judge's own failure inside the workspace reader
        raise PermissionError("synthetic")

    monkeypatch.setattr(judge.Workspace, "read", broken)
    answers = interfaces.every(STEP, VALID, workspace={"repo": str(repo.root), "base": repo.base})
    verdict = _same_verdict(answers)
    assert verdict["valid"] is False and verdict["reason"].startswith("judge_error:")
    assert "PermissionError: synthetic" in verdict["reason"]


def test_records_under_both_names_are_a_broken_contract_in_the_api():
    record = {"version": 1}
    verdict = judge.validate(STEP, VALID, records=[record], evidence=[record])
    assert verdict.rule == "schema_invalid" and "one thing under two names" in verdict.reason


def test_a_key_inside_the_judged_repository_is_refused_before_the_repository_is_read(roots, monkeypatch):
    repo = Repo(roots / "repo", {"src/app.py": "x = 1\n"})
    assert main_key(repo.root / "judge.key")

    def never(self, step_id, patch):
        raise AssertionError("the workspace was read")

    monkeypatch.setattr(judge.Workspace, "read", never)
    verdict = judge.validate(STEP, VALID, workspace=judge.Workspace(repo.root, repo.base),
                             config=JudgeConfig(evidence_key=str(repo.root / "judge.key")))
    assert verdict.rule == "execution_evidence_invalid" and "inside the judged repository" in verdict.reason


def main_key(path: Path) -> bool:
    from judge.runs.keys import load_or_create_key

    load_or_create_key(str(path))
    return path.is_file()


def test_a_failing_rule_that_shares_its_id_names_its_module(monkeypatch):
    from judge.rules import registry

    def exploding(ctx):  # SYNTHETIC: a bug in one of the two tests_weakened readings
        raise ValueError("boom")
        yield

    (entry,) = [rule for rule in registry.RULES if getattr(rule, "module", "").endswith("by_collection")]
    monkeypatch.setattr(entry, "_function", exploding)
    verdict = judge.validate(STEP, VALID)
    assert verdict.rule == "judge_error" and "rule tests_weakened (by_collection) failed" in verdict.reason
