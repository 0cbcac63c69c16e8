"""PlainConfig: a JudgeConfig's values without pydantic, for a `judge validate` whose settings are plain — no
policies, texts that are text, numbers typed and in range — so that reading its settings loads no pydantic.

``plain_config`` takes exactly the settings JudgeConfig takes unchanged and gives the same values, its defaults
included (tests/test_config_plain.py holds the two together); for any other setting — one JudgeConfig would
convert (a number as text from a JUDGE_* variable), refuse, or that is a model (policies) — it returns None, and
JudgeConfig reads them (and words what is wrong).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from judge.config_layers import state_dir
from judge.contract.plain import is_text

__all__ = ["PlainConfig", "plain_config"]


def _one_of(*allowed: str) -> Callable[[Any], bool]:
    return lambda value: type(value) is str and value in allowed


def _text(shortest: int) -> Callable[[Any], bool]:
    return lambda value: is_text(value, shortest)


def _number(kind: type, low: float | None, high: float | None = None, *, above: bool = False) -> Callable[[Any], bool]:
    """``kind`` exactly (JudgeConfig would convert an int to a float, or text to a number) within the bounds."""
    def check(value: Any) -> bool:
        if type(value) is not kind:
            return False
        if low is not None and not (value > low if above else value >= low):
            return False
        return high is None or value <= high
    return check


# Each setting PlainConfig takes, with what JudgeConfig's field takes unchanged (judge.config).
_TAKES: dict[str, Callable[[Any], bool]] = {
    "semantic": _one_of("auto", "required", "off"),
    "model": _text(0),
    "api_base": _text(0),
    "api_key": _text(0),
    "temperature": _number(float, 0, 2),
    "max_tokens": _number(int, 16, 32_000),
    "timeout": _number(float, 0, above=True),
    "retries": _number(int, 0, 10),
    "deadline": _number(float, 0, above=True),
    "samples": _number(int, 1, 15),
    "token_budget": _number(int, 1),
    "max_patch_tokens": _number(int, 200),
    "output_mode": _one_of("auto", "json_schema", "json_object", "grammar", "none"),
    "templates_dir": _text(1),
    "approvals": _text(1),
    "artifacts_root": _text(1),
    "evidence_key": _text(1),
    "gate_timeout": _number(float, 0, above=True),
    "gate_max_output": _number(int, 2, 16 * 1024 * 1024),
}


class PlainConfig:
    """JudgeConfig's fields and defaults, plain. Frozen, like JudgeConfig."""

    __slots__ = (*_TAKES, "policies", "policy_overrides", "fence_seed")

    def __init__(self, **given: Any) -> None:
        state = state_dir()
        defaults = {"semantic": "auto", "model": None, "api_base": None, "api_key": None, "temperature": 0.0,
                    "max_tokens": 400, "timeout": 60.0, "retries": 3, "deadline": 180.0, "samples": 1,
                    "token_budget": None, "max_patch_tokens": 6000, "output_mode": "auto", "policies": None,
                    "policy_overrides": None, "templates_dir": str(state / "templates"),
                    "approvals": str(state / "approvals.jsonl"), "artifacts_root": str(state), "evidence_key": None,
                    "gate_timeout": 600.0, "gate_max_output": 64 * 1024, "fence_seed": None}
        for name, value in {**defaults, **given}.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"PlainConfig is frozen: cannot set {name}")

    @property
    def semantic_enabled(self) -> bool:
        return self.semantic != "off" and self.model is not None


def plain_config(values: Mapping[str, Any]) -> PlainConfig | None:
    """The PlainConfig of merged settings (judge.config_layers), or None when JudgeConfig must read them."""
    if all(name in _TAKES and _TAKES[name](value) for name, value in values.items()):
        return PlainConfig(**values)
    return None
