"""`judge mcp`: the MCP server, driven by the official SDK's own client — in-process (memory streams for the
handshake era, the direct dispatcher for 2026-07-28) and as a real `python -m judge.cli.main mcp` subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from referencing import Registry

from helpers.builders import run_cli
from judge.config import JudgeConfig
from judge.contract.schema import load_schema
from judge.gates.policies import pinned_for_clients
from judge.instructions import render_instructions
from judge.mcp.server import INSTRUCTIONS_URI, build_server
from judge.mcp.tools import Settings
from judge.pipeline import validate
from judge.rule_ids import CATALOG
from judge.workspace.roots import WorkspaceRoots
from helpers.scenario_repos import Repo, git_env  # noqa: F401  (git_env: autouse fixture)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MODES = ("legacy", "auto")  # the initialize handshake over memory streams; 2026-07-28 through the direct dispatcher
APP = "def greet(name):\n    return 'hi ' + name\n"


def example(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


@pytest.fixture
def roots(tmp_path: Path) -> Path:
    path = tmp_path / "roots"
    path.mkdir()
    return path


@pytest.fixture
def settings(tmp_path: Path, roots: Path) -> Settings:
    config = JudgeConfig(artifacts_root=str(tmp_path / "artifacts"), approvals=str(tmp_path / "approvals.jsonl"),
                         templates_dir=str(tmp_path / "templates"))
    return Settings(pinned_for_clients(config), WorkspaceRoots.of([roots]))


def with_client(settings: Settings, body: Callable[[Client], Awaitable[Any]], mode: str = "legacy") -> Any:
    async def main() -> Any:
        with anyio.fail_after(60):
            async with Client(build_server(settings), mode=mode) as client:
                return await body(client)
    return anyio.run(main)


def call(settings: Settings, tool: str, arguments: dict, mode: str = "legacy") -> types.CallToolResult:
    return with_client(settings, lambda client: client.call_tool(tool, arguments), mode)


def cli_verdict(capsys, *argv: str) -> dict:
    code, out, _ = run_cli(capsys, "validate", *argv)
    assert code in (0, 1), out
    return json.loads(out)


def assert_tool_error(result: types.CallToolResult, *words: str) -> str:
    assert result.is_error and result.structured_content is None
    text = result.content[0].text
    assert text.startswith("judge: ") and "\n" not in text and '"valid": true' not in text
    for word in words:
        assert word in text, text
    return text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("result_file", ["result-valid.json", "result-undeclared.json"])
def test_verdict_equals_judge_validate(settings: Settings, capsys, result_file: str, mode: str) -> None:
    expected = cli_verdict(capsys, "--step", str(EXAMPLES / "step.json"), "--result", str(EXAMPLES / result_file))
    result = call(settings, "validate_step", {"step": example("step.json"), "result": example(result_file)}, mode)
    assert not result.is_error
    assert result.structured_content == expected
    assert json.loads(result.content[0].text) == expected
    assert expected["valid"] is (result_file == "result-valid.json")


def test_explain_gives_the_full_verdict(settings: Settings) -> None:
    result = call(settings, "validate_step", {"step": example("step.json"), "result": example("result-undeclared.json"),
                                              "explain": True})
    verdict = result.structured_content
    expected = validate(example("step.json"), example("result-undeclared.json")).full_json()
    assert untimed(verdict) == untimed(expected) and verdict["rule"] == "undeclared_file"
    assert verdict["findings"][0]["rule"] == "undeclared_file" and verdict["outcome"]["nextAction"] == "retry"


def untimed(verdict: dict) -> dict:
    """The verdict without its stages' timings, which differ from run to run."""
    return {**verdict, "stages": [{**stage, "durationMs": None} for stage in verdict["stages"]]}


def test_a_step_that_breaks_its_schema_is_a_schema_invalid_verdict_as_on_the_cli(settings: Settings, tmp_path: Path,
                                                                                capsys) -> None:
    step = {**example("step.json"), "allowedFiles": "src/**"}
    (tmp_path / "step.json").write_text(json.dumps(step))
    expected = cli_verdict(capsys, "--step", str(tmp_path / "step.json"), "--result", str(EXAMPLES / "result-valid.json"))
    result = call(settings, "validate_step", {"step": step, "result": example("result-valid.json")})
    assert result.structured_content == expected and expected["reason"].startswith("schema_invalid")
    assert "$.step.allowedFiles" in expected["reason"]


def changed_repo(path: Path) -> tuple[Repo, dict, dict]:
    """A repository whose work tree changed greeting.py since its base, with a step and the result that claims it."""
    repo = Repo(path, {"greeting.py": APP})
    repo.write({"greeting.py": APP.replace("'hi '", "'Hello, '")})
    step = {"id": "greet", "description": "greet() says Hello", "mode": "apply"}
    result = {"mode": "apply", "success": True, "patch": repo.diff(), "filesWritten": ["greeting.py"],
              "filesTouched": ["greeting.py"], "summary": "greet() now says Hello, NAME"}
    return repo, step, result


@pytest.mark.parametrize("claimed", [True, False], ids=["claimed", "unclaimed-file"])
def test_workspace_inside_a_root_is_judged_as_on_the_cli(settings: Settings, roots: Path, tmp_path: Path, capsys,
                                                         claimed: bool) -> None:
    repo, step, result = changed_repo(roots / "repo")
    if not claimed:
        repo.write({"notes.txt": "left behind\n"})
    (tmp_path / "step.json").write_text(json.dumps(step))
    (tmp_path / "result.json").write_text(json.dumps(result))
    expected = cli_verdict(capsys, "--step", str(tmp_path / "step.json"), "--result", str(tmp_path / "result.json"),
                           "--repo", str(repo.root), "--base", repo.base)
    answer = call(settings, "validate_step", {"step": step, "result": result,
                                              "workspace": {"repo": str(repo.root), "base": repo.base}})
    assert answer.structured_content == expected
    assert expected["valid"] is claimed
    assert claimed or expected["reason"].startswith("changed_but_unclaimed")


def test_workspace_outside_the_roots_is_refused(settings: Settings, tmp_path: Path) -> None:
    repo, step, result = changed_repo(tmp_path / "elsewhere")
    answer = call(settings, "validate_step", {"step": step, "result": result,
                                              "workspace": {"repo": str(repo.root), "base": repo.base}})
    assert_tool_error(answer, "workspace.repo", "not inside a workspace root")


def test_a_ledger_outside_the_roots_is_refused(settings: Settings, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text('{"op": "close", "id": "step-3"}\n')
    answer = call(settings, "validate_step", {"step": example("step.json"), "result": example("result-valid.json"),
                                              "workspace": {"ledger": str(ledger)}})
    assert_tool_error(answer, "workspace.ledger", "not inside a workspace root")


def test_without_roots_the_server_judges_patches_only(tmp_path: Path, roots: Path) -> None:
    patch_only = Settings(pinned_for_clients(JudgeConfig()), WorkspaceRoots.of([]))
    repo, step, result = changed_repo(roots / "repo")
    answer = call(patch_only, "validate_step", {"step": step, "result": result,
                                                "workspace": {"repo": str(repo.root), "base": repo.base}})
    assert_tool_error(answer, "without a workspace root", "--workspace-root")
    assert call(patch_only, "validate_step", {"step": step, "result": result}).structured_content["valid"] is True


def test_a_workspace_that_cannot_be_read_is_a_tool_error(settings: Settings, roots: Path) -> None:
    (roots / "plain").mkdir()
    answer = call(settings, "validate_step", {"step": example("step.json"), "result": example("result-valid.json"),
                                              "workspace": {"repo": str(roots / "plain"), "base": "a" * 40}})
    assert_tool_error(answer, "workspace.repo")


def test_a_clients_step_cannot_turn_shell_gates_on(settings: Settings, roots: Path, tmp_path: Path) -> None:
    repo, step, result = changed_repo(roots / "repo")
    planted = tmp_path / "ran"
    step = {**step, "policies": {"enable_shell_gates": True, "shell_gate_allowlist": ["*"]},
            "gates": [{"type": "command_exit_0", "parameters": {"command": f"touch {planted}"}}]}
    answer = call(settings, "validate_step", {"step": step, "result": result,
                                              "workspace": {"repo": str(repo.root), "base": repo.base}})
    assert answer.structured_content["valid"] is False
    assert answer.structured_content["reason"].startswith("command_not_allowed")
    assert not planted.exists()


BAD_CALLS = {
    "no result": ({"step": {}}, ["the call has no result"]),
    "unknown argument": ({"step": {}, "result": {}, "model": "openai/gpt-4o"}, ["'model'", "unknown key",
                                                                                 "server's own settings"]),
    "explain not a boolean": ({"explain": "yes"}, ["explain", "true or false"]),
    "evidence not a list": ({"evidence": {"stepId": "x"}}, ["evidence", "list of execution records"]),
    "records under both names": ({"evidence": [], "records": []}, ["records", "'evidence'", "two names"]),
    "workspace key unknown": ({"workspace": {"repo": "/x", "api_base": "http://evil"}}, ["workspace", "'api_base'"]),
}


@pytest.mark.parametrize("case", BAD_CALLS, ids=list(BAD_CALLS))
def test_bad_input_is_a_tool_error_never_a_verdict(settings: Settings, case: str) -> None:
    arguments, words = BAD_CALLS[case]
    if case not in ("no result", "unknown argument"):
        arguments = {"step": example("step.json"), "result": example("result-valid.json"), **arguments}
    assert_tool_error(call(settings, "validate_step", arguments), *words)


def test_a_bug_in_judge_is_a_tool_error_and_the_server_goes_on(settings: Settings, monkeypatch) -> None:
    async def broken(*args: Any, **kwargs: Any) -> None:  # SYNTHETIC: ajudge never raises; a bug around it might
        raise RuntimeError("synthetic failure")

    arguments = {"step": example("step.json"), "result": example("result-valid.json")}

    async def body(client: Client) -> tuple[types.CallToolResult, types.CallToolResult]:
        with monkeypatch.context() as patch:
            patch.setattr("judge.mcp.tools.ajudge", broken)
            failed = await client.call_tool("validate_step", arguments)
        return failed, await client.call_tool("validate_step", arguments)

    failed, after = with_client(settings, body)
    assert_tool_error(failed, "internal error", "synthetic failure")
    assert after.structured_content["valid"] is True


@pytest.mark.parametrize("mode", MODES)
def test_tools_are_listed_with_self_contained_schemas(settings: Settings, mode: str) -> None:
    tools = {tool.name: tool for tool in with_client(settings, lambda client: client.list_tools(), mode).tools}
    assert {"validate_step", "explain_rules", "instructions_for_step"} <= set(tools)
    schema = tools["validate_step"].input_schema
    refs = re.findall(r'"\$ref": "([^"]*)"', json.dumps(schema))
    assert refs and all(ref.startswith("#/$defs/") for ref in refs)
    for kind in ("step", "result", "gate", "evidence-doc", "execution-evidence"):  # the files themselves, embedded
        own = {k: v for k, v in load_schema(kind).items() if k not in ("$id", "$schema")}
        assert json.dumps(schema["$defs"][kind]).replace("#/$defs/", "") == json.dumps(own).replace(
            ".schema.json", "").replace("execute-step", "result")
    validator = Draft202012Validator(schema, registry=Registry())  # as the SDK's client reads it: nothing outside
    assert validator.is_valid({"step": example("step.json"), "result": example("result-valid.json")})
    fix_without_apply_files = {"id": "f", "description": "d", "mode": "fix_regression"}
    assert not validator.is_valid({"step": fix_without_apply_files, "result": example("result-valid.json")})
    bad_gate = {**example("step.json"), "gates": [{"type": "diff_max_lines", "parameters": {}}]}
    assert not validator.is_valid({"step": bad_gate, "result": example("result-valid.json")})
    assert tools["validate_step"].output_schema["required"] == ["valid", "reason"]
    assert set(tools["explain_rules"].input_schema["properties"]["rule"]["enum"]) == {i.id for i in CATALOG}


@pytest.mark.parametrize("mode", MODES)
def test_explain_rules_returns_the_catalogue(settings: Settings, mode: str) -> None:
    every = call(settings, "explain_rules", {}, mode).structured_content["rules"]
    assert [rule["id"] for rule in every] == [info.id for info in CATALOG]
    one = call(settings, "explain_rules", {"rule": "undeclared_file"}).structured_content["rules"]
    assert one == [{"id": "undeclared_file", "stage": "rules",
                    "when": next(i.when for i in CATALOG if i.id == "undeclared_file")}]
    semantic = call(settings, "explain_rules", {"stage": "semantic"}).structured_content["rules"]
    assert semantic and {rule["stage"] for rule in semantic} == {"semantic"}
    assert_tool_error(call(settings, "explain_rules", {"rule": "made_up_rule"}), "rule", "no rule")
    assert_tool_error(call(settings, "explain_rules", {"stage": "vibes"}), "stage", "not a stage")


@pytest.mark.parametrize("mode", MODES)
def test_the_instructions_resource_reads(settings: Settings, mode: str) -> None:
    async def body(client: Client) -> tuple[Any, Any]:
        return await client.list_resources(), await client.read_resource(INSTRUCTIONS_URI)

    listed, read = with_client(settings, body, mode)
    assert [resource.uri for resource in listed.resources] == [INSTRUCTIONS_URI]
    assert read.contents[0].mime_type == "text/markdown"
    assert read.contents[0].text == render_instructions(config=settings.config)
    error = with_client(settings, lambda client: protocol_error(client.read_resource("judge://elsewhere")), mode)
    assert error.code == types.INVALID_PARAMS and "no resource 'judge://elsewhere'" in error.message


def test_instructions_for_a_step(settings: Settings) -> None:
    fix = {"id": "fix-7", "description": "fix it", "mode": "fix_regression", "applyFiles": ["src/client.py"]}
    answer = call(settings, "instructions_for_step", {"step": fix})
    assert answer.content[0].text == render_instructions(fix, config=settings.config)
    assert "`.orchestrator/evidence/fix-7.json`" in answer.content[0].text
    broken = call(settings, "instructions_for_step", {"step": {**fix, "applyFiles": None}})
    assert_tool_error(broken, "step", "$.step.applyFiles")


def test_an_unknown_tool_is_a_protocol_error(settings: Settings) -> None:
    error = with_client(settings, lambda client: protocol_error(client.call_tool("format_disk", {})))
    assert error.code == types.INVALID_PARAMS and "unknown tool 'format_disk'" in error.message


async def protocol_error(request: Awaitable[Any]) -> MCPError:
    """The JSON-RPC error the server answered ``request`` with (inside the client, before its task group wraps it)."""
    try:
        await request
    except MCPError as error:
        return error
    raise AssertionError("the server answered instead of refusing")


def server_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}


@pytest.mark.parametrize("mode", MODES)
def test_judge_mcp_subprocess_over_stdio(tmp_path: Path, roots: Path, capsys, mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "judge.cli.main", "mcp", "--workspace-root",
                                                                 str(roots)], env=server_env(), cwd=str(tmp_path))
    arguments = {"step": example("step.json"), "result": example("result-undeclared.json")}
    outside = {**arguments, "workspace": {"repo": str(tmp_path), "base": "a" * 40}}
    repo, step, result = changed_repo(roots / "repo")
    planted = tmp_path / "ran"
    shell = {"step": {**step, "policies": {"enable_shell_gates": True, "shell_gate_allowlist": ["*"]},
                      "gates": [{"type": "command_exit_0", "parameters": {"command": f"touch {planted}"}}]},
             "result": result, "workspace": {"repo": str(repo.root), "base": repo.base}}

    async def main() -> tuple[list[str], list[types.CallToolResult]]:
        with anyio.fail_after(60), open(tmp_path / "stderr.log", "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
                tools = [tool.name for tool in (await client.list_tools()).tools]
                return tools, [await client.call_tool("validate_step", each) for each in (arguments, outside, shell)]

    tools, (verdict, refused, pinned) = anyio.run(main)
    assert {"validate_step", "explain_rules"} <= set(tools)
    assert verdict.structured_content == cli_verdict(capsys, "--step", str(EXAMPLES / "step.json"), "--result",
                                                     str(EXAMPLES / "result-undeclared.json"))
    assert_tool_error(refused, "workspace.repo", "not inside a workspace root")
    # the server's own policies (shell gates off by default) hold against the client's step
    assert pinned.structured_content["reason"].startswith("command_not_allowed") and not planted.exists()
    assert f"judge mcp: serving on stdio; workspace roots: {roots}" in (tmp_path / "stderr.log").read_text()


def test_nothing_but_protocol_on_stdout(tmp_path: Path) -> None:
    """Raw JSON-RPC lines in, as a handshake-era host sends them: every line out is a JSON-RPC message."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "validate_step", "arguments": {
            "step": example("step.json"), "result": example("result-valid.json")}}},
    ]
    proc = subprocess.Popen([sys.executable, "-m", "judge.cli.main", "mcp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server_env(), cwd=str(tmp_path))
    watchdog = threading.Timer(60, proc.kill)  # a server that never answers ends the readline below with EOF
    watchdog.start()
    try:
        for message in messages:
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in range(2)]  # each blocks until its reply
        rest, err = proc.communicate(timeout=60)  # closes stdin: the server ends
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and rest == b"", (rest, err)
    assert [reply["id"] for reply in replies] == [1, 2] and all(reply["jsonrpc"] == "2.0" for reply in replies)
    assert replies[0]["result"]["serverInfo"]["name"] == "judge"
    assert replies[1]["result"]["structuredContent"]["valid"] is True
    assert b"judge mcp: serving on stdio; workspace roots: none: patches only" in err
