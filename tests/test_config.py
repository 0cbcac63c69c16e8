"""Configuration layers: flags > JUDGE_* environment > judge.toml > [tool.judge] of pyproject.toml > defaults."""

import json

import pytest
from pydantic import ValidationError

from helpers.builders import make_case
from judge.cli.main import main
from judge.config import ENV_VARS, JudgeConfig, load_config
from judge.errors import InputError
from helpers.loopback import content, scripted_server  # noqa: F401 - scripted_server is a fixture


def _load(tmp_path, flags=None, env=None):
    return load_config(flags or {}, env or {}, cwd=tmp_path)


def test_defaults(tmp_path):
    config = _load(tmp_path)
    assert config == JudgeConfig()
    assert config.semantic == "auto" and config.model is None and config.temperature == 0
    assert config.samples == 1 and config.token_budget is None and config.output_mode == "auto"
    assert config.semantic_enabled is False


def test_defaults_ignore_the_process_environment_when_env_is_given(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_MODEL", "openai/from-process")
    assert _load(tmp_path, env={}).model is None


def test_env_defaults_to_the_process_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_MODEL", "openai/from-process")
    assert load_config({}, cwd=tmp_path).model == "openai/from-process"


def test_cwd_defaults_to_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "judge.toml").write_text('model = "openai/here"\n')
    monkeypatch.chdir(tmp_path)
    assert load_config({}, {}).model == "openai/here"


def test_pyproject_tool_judge_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.judge]\nmodel = "openai/gpt-4o-mini"\nsamples = 3\nsemantic = "required"\n')
    config = _load(tmp_path)
    assert (config.model, config.samples, config.semantic) == ("openai/gpt-4o-mini", 3, "required")


def test_pyproject_without_tool_judge_gives_defaults(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.other]\nsamples = 0\n')
    assert _load(tmp_path) == JudgeConfig()


def test_hyphenated_keys_in_files(tmp_path):
    (tmp_path / "judge.toml").write_text('max-tokens = 123\napi-base = "http://127.0.0.1:8080/v1"\n')
    config = _load(tmp_path)
    assert config.max_tokens == 123 and config.api_base == "http://127.0.0.1:8080/v1"


def test_judge_toml_overrides_pyproject_key_by_key(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.judge]\nmodel = "openai/a"\nsamples = 3\n')
    (tmp_path / "judge.toml").write_text('model = "openai/b"\n')
    config = _load(tmp_path)
    assert config.model == "openai/b"
    assert config.samples == 3


def test_environment_overrides_files(tmp_path):
    (tmp_path / "judge.toml").write_text('model = "openai/file"\nsamples = 3\ntimeout = 9\n')
    config = _load(tmp_path, env={"JUDGE_MODEL": "openai/env", "JUDGE_SAMPLES": "5"})
    assert (config.model, config.samples, config.timeout) == ("openai/env", 5, 9)


def test_environment_values_are_converted(tmp_path):
    env = {"JUDGE_TIMEOUT": "2.5", "JUDGE_RETRIES": "0", "JUDGE_TEMPERATURE": "0.3", "JUDGE_TOKEN_BUDGET": "900",
           "JUDGE_OUTPUT_MODE": "grammar", "JUDGE_SEMANTIC": "off", "JUDGE_MAX_PATCH_TOKENS": "300",
           "JUDGE_DEADLINE": "20", "JUDGE_MAX_TOKENS": "64", "JUDGE_API_BASE": "http://127.0.0.1:1/v1",
           "JUDGE_API_KEY": "k", "JUDGE_MODEL": "openai/m", "JUDGE_SAMPLES": "2"}
    assert set(env) == set(ENV_VARS)
    config = _load(tmp_path, env=env)
    assert (config.timeout, config.retries, config.temperature, config.token_budget) == (2.5, 0, 0.3, 900)
    assert (config.output_mode, config.semantic, config.max_patch_tokens, config.deadline) == ("grammar", "off", 300, 20)
    assert (config.max_tokens, config.api_key, config.samples) == (64, "k", 2)


def test_an_empty_environment_variable_is_ignored(tmp_path):
    (tmp_path / "judge.toml").write_text('model = "openai/file"\n')
    assert _load(tmp_path, env={"JUDGE_MODEL": "", "JUDGE_SAMPLES": ""}).model == "openai/file"


def test_other_environment_variables_are_ignored(tmp_path):
    assert _load(tmp_path, env={"JUDGE_UNKNOWN": "1", "OPENAI_API_KEY": "sk-x"}) == JudgeConfig()


def test_flags_override_the_environment(tmp_path):
    config = _load(tmp_path, flags={"model": "openai/flag", "samples": 7},
                   env={"JUDGE_MODEL": "openai/env", "JUDGE_SAMPLES": "5", "JUDGE_RETRIES": "1"})
    assert (config.model, config.samples, config.retries) == ("openai/flag", 7, 1)


def test_flags_left_as_none_do_not_override(tmp_path):
    config = _load(tmp_path, flags={"model": None, "samples": None}, env={"JUDGE_MODEL": "openai/env"})
    assert config.model == "openai/env" and config.samples == 1


def test_a_bad_environment_value_names_its_source(tmp_path):
    with pytest.raises(InputError, match=r"^config samples \(from environment\): "):
        _load(tmp_path, env={"JUDGE_SAMPLES": "0"})


def test_a_bad_flag_names_its_source(tmp_path):
    with pytest.raises(InputError, match=r"^config samples \(from command line\): "):
        _load(tmp_path, flags={"samples": 0})


def test_a_bad_file_value_names_the_file(tmp_path):
    (tmp_path / "judge.toml").write_text('samples = 3\ntimeout = -1\n')
    with pytest.raises(InputError) as caught:
        _load(tmp_path)
    assert str(caught.value).startswith(f"config timeout (from {tmp_path / 'judge.toml'}): ")


def test_a_bad_pyproject_value_names_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.judge]\nsemantic = "sometimes"\n')
    with pytest.raises(InputError, match=r"config semantic \(from .*pyproject\.toml\)"):
        _load(tmp_path)


def test_a_bad_value_overridden_by_a_good_one_is_fine(tmp_path):
    (tmp_path / "judge.toml").write_text('samples = 0\n')
    assert _load(tmp_path, env={"JUDGE_SAMPLES": "3"}).samples == 3


def test_an_unknown_key_in_a_file_is_an_error_naming_the_file(tmp_path):
    (tmp_path / "judge.toml").write_text('modle = "openai/typo"\n')
    with pytest.raises(InputError, match=r"config modle \(from .*judge\.toml\)"):
        _load(tmp_path)


def test_a_non_numeric_environment_value(tmp_path):
    with pytest.raises(InputError, match=r"config timeout \(from environment\)"):
        _load(tmp_path, env={"JUDGE_TIMEOUT": "soon"})


def test_bad_toml_is_an_input_error(tmp_path):
    (tmp_path / "judge.toml").write_text('model = "unterminated\n')
    with pytest.raises(InputError, match=r"judge\.toml: not readable TOML"):
        _load(tmp_path)


def test_bad_pyproject_toml_is_an_input_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.judge\nmodel = 1\n")
    with pytest.raises(InputError, match=r"pyproject\.toml: not readable TOML"):
        _load(tmp_path)


def test_tool_judge_that_is_not_a_table_is_an_input_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool]\njudge = 3\n")
    with pytest.raises(InputError, match=r"must be a table"):
        _load(tmp_path)


def test_config_is_frozen():
    with pytest.raises(ValidationError):
        JudgeConfig().samples = 3  # type: ignore[misc]


def test_semantic_enabled_needs_a_model_and_not_off():
    assert JudgeConfig(model="openai/x").semantic_enabled
    assert not JudgeConfig(model="openai/x", semantic="off").semantic_enabled
    assert not JudgeConfig(semantic="required").semantic_enabled


# --- the command line -----------------------------------------------------------------------------------------

@pytest.fixture
def cli_case(tmp_path, monkeypatch):
    """A valid case written to files, the working directory an empty tmp dir and no JUDGE_* variables."""
    monkeypatch.chdir(tmp_path)
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    step, result = make_case()
    (tmp_path / "step.json").write_text(json.dumps(step))
    (tmp_path / "result.json").write_text(json.dumps(result))
    return ["validate", "--step", str(tmp_path / "step.json"), "--result", str(tmp_path / "result.json")]


def _cli(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_cli_samples_zero_is_a_usage_error(cli_case, capsys):
    code, out, err = _cli(capsys, cli_case + ["--samples", "0"])
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("judge: config samples (from command line)")


def test_cli_bad_environment_value_is_a_usage_error(cli_case, capsys, monkeypatch):
    monkeypatch.setenv("JUDGE_RETRIES", "99")
    code, out, err = _cli(capsys, cli_case)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "config retries (from environment)" in err


def test_cli_bad_judge_toml_is_a_usage_error(cli_case, capsys, tmp_path):
    (tmp_path / "judge.toml").write_text("model = \n")
    code, out, err = _cli(capsys, cli_case)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "judge.toml" in err


def test_cli_semantic_required_without_a_model(cli_case, capsys):
    code, out, err = _cli(capsys, cli_case + ["--semantic", "required"])
    assert code == 1
    verdict = json.loads(out)
    assert set(verdict) == {"valid", "reason"}
    assert verdict["valid"] is False
    assert verdict["reason"].startswith("llm_unavailable")
    assert "no model is configured" in verdict["reason"]


def test_cli_semantic_required_from_judge_toml(cli_case, capsys, tmp_path):
    (tmp_path / "judge.toml").write_text('semantic = "required"\n')
    code, out, _ = _cli(capsys, cli_case)
    assert code == 1 and json.loads(out)["reason"].startswith("llm_unavailable")


def test_cli_without_a_model_skips_the_semantic_stage(cli_case, capsys):
    code, out, _ = _cli(capsys, cli_case)
    assert code == 0
    assert "no model configured" in json.loads(out)["reason"]


@pytest.mark.loopback
def test_cli_uses_the_model_from_judge_toml_and_the_flag_wins(cli_case, capsys, tmp_path, scripted_server):
    server = scripted_server([content(False, "step_not_implemented: parse_port() is unchanged")])
    (tmp_path / "judge.toml").write_text(
        f'model = "openai/from-file"\napi_base = "{server.api_base}"\nretries = 0\ntimeout = 5\noutput_mode = "none"\n')
    code, out, _ = _cli(capsys, cli_case + ["--model", "openai/from-flag"])
    assert code == 1, out
    assert json.loads(out)["reason"].startswith("step_not_implemented")
    assert server.count == 1 and server.requests[0].body["model"] == "from-flag"


def test_a_config_file_cannot_seed_the_data_fence(tmp_path):
    """Review finding: a judge.toml in the judged repository could make the fence predictable."""
    (tmp_path / "judge.toml").write_text("fence_seed = 1\n")
    with pytest.raises(InputError, match="fence_seed cannot be set in a file"):
        load_config({}, env={}, cwd=tmp_path)


def test_the_environment_cannot_seed_the_data_fence(tmp_path):
    assert load_config({}, env={"JUDGE_FENCE_SEED": "1"}, cwd=tmp_path).fence_seed is None


# --- never from the judged work tree: the executor writes there ------------------------------------------------

FORGED = '[project]\nname = "app"\n\n[tool.judge]\napi_base = "http://127.0.0.1:9/v1"\nsemantic = "off"\n'


def test_files_inside_a_judged_work_tree_are_not_read_and_each_is_named(tmp_path):
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "sub" / "pyproject.toml").write_text(FORGED)
    (repo / "sub" / "judge.toml").write_text('model = "openai/forged"\n')
    warned: list[str] = []
    config = load_config({}, {}, cwd=repo / "sub", judged=[repo], warn=warned.append)
    assert config == JudgeConfig()
    assert [line.split(":", 1)[0] for line in warned] == [f"ignoring {repo / 'sub' / name}"
                                                          for name in ("pyproject.toml", "judge.toml")]
    assert all("JUDGE_*" in line and "flags" in line for line in warned)


def test_a_file_outside_the_judged_work_tree_is_read(tmp_path):
    (tmp_path / "orchestrator").mkdir()
    (tmp_path / "orchestrator" / "judge.toml").write_text('model = "openai/mine"\n')
    warned: list[str] = []
    config = load_config({}, {}, cwd=tmp_path / "orchestrator", judged=[tmp_path / "repo"], warn=warned.append)
    assert config.model == "openai/mine" and warned == []


def test_a_link_into_the_judged_work_tree_is_inside_it(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "judge.toml").write_text('api_base = "http://127.0.0.1:9/v1"\n')
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "judge.toml").symlink_to(tmp_path / "repo" / "judge.toml")
    warned: list[str] = []
    assert load_config({}, {}, cwd=tmp_path / "here", judged=[tmp_path / "repo"], warn=warned.append).api_base is None
    assert len(warned) == 1 and "here/judge.toml" in warned[0]


def test_an_ignored_file_is_never_parsed_and_a_pyproject_without_tool_judge_is_ignored_quietly(tmp_path):
    (tmp_path / "judge.toml").write_text("not = [toml\n")  # read, this is exit 2; ignored, it is nothing
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n')
    warned: list[str] = []
    assert load_config({}, {}, cwd=tmp_path, judged=[tmp_path], warn=warned.append) == JudgeConfig()
    assert len(warned) == 1 and "judge.toml" in warned[0]


def test_drive_without_a_repository_reads_nothing_from_the_working_directory(tmp_path, monkeypatch, capsys):
    import argparse

    from judge.cli.settings import _MODEL_FLAGS, config_of

    (tmp_path / "judge.toml").write_text('api_base = "http://127.0.0.1:9/v1"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUDGE_API_BASE", raising=False)
    args = argparse.Namespace(**dict.fromkeys(_MODEL_FLAGS), repo=None)
    assert config_of(args).api_base == "http://127.0.0.1:9/v1"  # validate with no --repo: no judged tree
    capsys.readouterr()
    assert config_of(args, workspace=".").api_base is None  # drive with no --repo: the executor's directory
    assert capsys.readouterr().err.startswith(f"judge: warning: ignoring {tmp_path / 'judge.toml'}: ")


@pytest.mark.loopback
@pytest.mark.parametrize("inside", [True, False])
def test_validate_run_inside_the_repository_never_sends_the_key_to_its_api_base(tmp_path, monkeypatch, capsys,
                                                                              scripted_server, inside):
    from helpers.scenario_repos import GIT_ENV, Repo

    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    attacker = scripted_server([content(True, "X is set to 2 in src/app.py as the step asks")])
    forged = (f'[tool.judge]\nmodel = "openai/forged"\napi_base = "{attacker.api_base}"\nretries = 0\n'
              'timeout = 5\noutput_mode = "none"\n')
    where = tmp_path / "repo" if inside else tmp_path / "elsewhere"
    where.mkdir()
    (where / "pyproject.toml").write_text(forged)  # inside: committed in base, as an earlier step could have
    repo = Repo(tmp_path / "repo", {"src/app.py": "X = 1\n"})
    repo.write({"src/app.py": "X = 2\n"})
    step, result = make_case(repo.diff(repo.base), filesWritten=["src/app.py"], filesTouched=["src/app.py"],
                             step={"description": "Set X to 2 in src/app.py"})
    (tmp_path / "step.json").write_text(json.dumps(step))
    (tmp_path / "result.json").write_text(json.dumps(result))
    monkeypatch.chdir(where)
    monkeypatch.setenv("JUDGE_API_KEY", "sk-orchestrator-secret")
    for name in ("JUDGE_MODEL", "JUDGE_API_BASE", "JUDGE_SEMANTIC"):
        monkeypatch.delenv(name, raising=False)
    code, out, err = _cli(capsys, ["validate", "--step", str(tmp_path / "step.json"), "--result",
                                   str(tmp_path / "result.json"), "--repo", str(repo.root), "--base", repo.base])
    if inside:
        assert attacker.count == 0 and code == 0, out
        assert "no model configured" in json.loads(out)["reason"]
        assert f"judge: warning: ignoring {repo.root / 'pyproject.toml'}: it lies inside the judged" in err
    else:  # the control: the same file outside the repository is the orchestrator's, and is used
        assert attacker.count >= 1 and "ignoring" not in err, err
        assert json.loads(out)["valid"] is True
