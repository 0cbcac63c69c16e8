"""judge.config_plain: a PlainConfig takes exactly the settings JudgeConfig takes unchanged, with JudgeConfig's
values and defaults; every other setting is left to JudgeConfig."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from judge.config import JudgeConfig
from judge.config_plain import PlainConfig, plain_config

FIELDS = tuple(JudgeConfig.model_fields)

# Candidate values of each field, of every kind a file, a variable or a flag can give.
CANDIDATES = {
    "semantic": ["auto", "required", "off", "Off", "", None, 1],
    "output_mode": ["auto", "json_schema", "json_object", "grammar", "none", "other", ""],
    "temperature": [0.0, -0.0, 2.0, 2.0000001, -0.1, 1, "0.5", math.nan, math.inf, True],
    "max_tokens": [16, 15, 32_000, 32_001, 400, 400.0, "400", True],
    "timeout": [0.001, 0.0, -1.0, math.inf, math.nan, 5, "5"],
    "retries": [0, 10, 11, -1, 3.0, False],
    "deadline": [1.0, 0.0, "1"],
    "samples": [1, 15, 16, 0],
    "token_budget": [1, 0, 10**30, None],
    "max_patch_tokens": [200, 199, 10**9],
    "gate_timeout": [0.5, 0.0, math.inf],
    "gate_max_output": [2, 1, 16 * 1024 * 1024, 16 * 1024 * 1024 + 1],
    "model": ["openai/gpt-4o-mini", "", "x\ud800", 1, None],
    "api_base": ["http://127.0.0.1:8080/v1", ""],
    "api_key": ["sk-1", ""],
    "templates_dir": ["/t", "", "é"],
    "approvals": ["/a.jsonl", ""],
    "artifacts_root": ["/r", "", "/r\udcff"],
    "evidence_key": ["/k", ""],
    "policies": [{}, {"enable_shell_gates": True}, None],
    "policy_overrides": [{"preset": "strict"}],
    "fence_seed": [1],
    "no_such_setting": ["x"],
}


def _model(values: dict) -> JudgeConfig | None:
    try:
        return JudgeConfig(**values)
    except ValidationError:
        return None


def _same(plain: PlainConfig, model: JudgeConfig) -> None:
    for name in FIELDS:
        mine, theirs = getattr(plain, name), getattr(model, name)
        assert mine == theirs and type(mine) is type(theirs), name
    assert plain.semantic_enabled == model.semantic_enabled


def test_defaults_are_judge_configs(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))  # the state directory is read when the config is made
    _same(PlainConfig(), JudgeConfig())
    _same(plain_config({}), JudgeConfig())
    assert set(PlainConfig.__slots__) == set(FIELDS)


@pytest.mark.parametrize("name", sorted(CANDIDATES))
def test_a_setting_is_taken_as_judge_config_takes_it_or_left_to_it(name: str) -> None:
    taken = 0
    for value in CANDIDATES[name]:
        values = {name: value}
        plain, model = plain_config(values), _model(values)
        if plain is not None:
            assert model is not None, f"{name}={value!r}: JudgeConfig refuses it"
            _same(plain, model)
            taken += 1
    assert taken or name in ("policies", "policy_overrides", "fence_seed", "no_such_setting")


def test_settings_together() -> None:
    values = {"semantic": "required", "model": "openai/local", "samples": 3, "temperature": 0.5,
              "artifacts_root": "/srv/runs", "evidence_key": "/srv/key"}
    _same(plain_config(values), JudgeConfig(**values))
    assert plain_config({**values, "samples": "3"}) is None  # one setting JudgeConfig would convert: all go to it


def test_plain_config_is_frozen() -> None:
    with pytest.raises(AttributeError):
        PlainConfig().model = "x"  # type: ignore[misc]
