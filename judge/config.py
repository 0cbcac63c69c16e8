"""How a judge run is configured: flags > environment > judge.toml / pyproject.toml > defaults.

Configuration is explicit: a JudgeConfig is built once and passed down; nothing global is mutated. Where the
values come from, and which files are never read, is judge.config_layers'.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Mapping, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge.config_layers import ENV_VARS, merged_settings, state_dir
from judge.contract.gates import PolicyLayer
from judge.errors import InputError

__all__ = ["JudgeConfig", "load_config", "config_from", "ENV_VARS", "state_dir"]

Semantic = Literal["auto", "required", "off"]
OutputMode = Literal["auto", "json_schema", "json_object", "grammar", "none"]


class JudgeConfig(BaseModel):
    """Every knob of a run. ``semantic``: ``auto`` runs the LLM stage when a model is set and
    otherwise says it was skipped; ``required`` fails closed (``llm_unavailable``) without one;
    ``off`` never calls a model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    semantic: Semantic = "auto"
    model: Optional[str] = Field(default=None, description="Any litellm model string, e.g. openai/gpt-4o-mini.")
    api_base: Optional[str] = Field(default=None, description="Base URL of an OpenAI-compatible server.")
    api_key: Optional[str] = Field(default=None, description="Key for api_base; providers' own env vars also work.")
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=400, ge=16, le=32_000, description="Reply tokens per call.")
    timeout: float = Field(default=60.0, gt=0, description="Seconds per HTTP call.")
    retries: int = Field(default=3, ge=0, le=10, description="Transport retries per call after the first try.")
    deadline: float = Field(default=180.0, gt=0, description="Seconds for all tries of one call together.")
    samples: int = Field(default=1, ge=1, le=15, description="Independent judgements; the majority decides.")
    token_budget: Optional[int] = Field(default=None, ge=1, description="Tokens per verdict; reached: no re-ask.")
    max_patch_tokens: int = Field(default=6000, ge=200, description="Patch size in the prompt before reduction.")
    output_mode: OutputMode = "auto"
    policies: Optional[PolicyLayer] = Field(
        default=None, description="Policies for every step (judge.toml [policies]); a step's own policies override them.")
    policy_overrides: Optional[PolicyLayer] = Field(
        default=None, description="Policies over every step's own (the command line's policy flags).")
    # judge's own state and settings live outside any repository (judge.runs.state): the executor works in one
    templates_dir: str = Field(default_factory=lambda: str(state_dir() / "templates"), min_length=1,
                               description="Where step templates are; default: in judge's state directory.")
    approvals: str = Field(default_factory=lambda: str(state_dir() / "approvals.jsonl"), min_length=1,
                           description="The approvals file (JSONL); default: in judge's state directory.")
    artifacts_root: str = Field(default_factory=lambda: str(state_dir()), min_length=1,
                                description="Where command gates' runs are recorded; default: judge's state directory "
                                            "($XDG_STATE_HOME/judge or ~/.local/state/judge).")
    evidence_key: Optional[str] = Field(
        default=None, min_length=1,
        description="The key execution records and approvals must be signed with (judge.runs.keys); default: "
                    "<artifacts_root>/evidence.key when that file exists, else no record or approval is trusted.")
    gate_timeout: float = Field(default=600.0, gt=0, description="Seconds a command gate's command may run.")
    gate_max_output: int = Field(default=64 * 1024, ge=2, le=16 * 1024 * 1024,
                                 description="Bytes of stdout and of stderr a command gate's record keeps.")
    fence_seed: Optional[int] = Field(
        default=None, description="Derive the data fence from a seed (recording cassettes only; never in production)."
    )

    @property
    def semantic_enabled(self) -> bool:
        return self.semantic != "off" and self.model is not None


def load_config(
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    *,
    judged: Iterable[str | os.PathLike[str]] = (),
    warn: Callable[[str], None] | None = None,
) -> JudgeConfig:
    """Merge the layers (judge.config_layers.merged_settings); a bad value anywhere is an InputError naming its
    source.

    ``judged``: the work trees the executor writes (the judged repository, the drive workspace, a server's
    workspace roots). A configuration file inside one of them is not read; ``warn`` gets one line naming it."""
    return config_from(*merged_settings(flags, env, cwd, judged=judged, warn=warn))


def config_from(values: Mapping[str, Any], source: Mapping[str, str]) -> JudgeConfig:
    """The JudgeConfig of merged settings; InputError naming the layer of the first bad value."""
    try:
        return JudgeConfig(**values)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else "?"
        where = source.get(field, "configuration")
        named = ".".join(str(part) for part in error["loc"]) or "?"  # policies.enable_shel_gates, not just policies
        raise InputError(f"config {named} (from {where}): {error['msg']}") from None
