"""How a judge run is configured: flags > environment > judge.toml / pyproject.toml > defaults.

Configuration is explicit: a JudgeConfig is built once and passed down; nothing
global is mutated. The files are never read from a judged workspace: the executor writes there, and a
`[tool.judge] api_base` of its own would receive the orchestrator's key (or `semantic = "off"` its verdict).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Mapping, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge.contract.gates import PolicyLayer
from judge.errors import InputError


__all__ = ["JudgeConfig", "load_config", "ENV_VARS", "state_dir"]

Semantic = Literal["auto", "required", "off"]
OutputMode = Literal["auto", "json_schema", "json_object", "grammar", "none"]


def state_dir() -> Path:
    """Where judge keeps what it trusts (evidence key, records, approvals): ``$XDG_STATE_HOME/judge``, else
    ``~/.local/state/judge`` (an XDG_STATE_HOME that is not absolute is ignored, as the XDG specification says).
    Outside every repository, since the executor works in one (judge.runs.state refuses state inside one)."""
    configured = os.environ.get("XDG_STATE_HOME", "")
    base = Path(configured) if os.path.isabs(configured) else Path.home() / ".local" / "state"
    return base / "judge"


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


# Environment variable -> config field.
ENV_VARS = {
    "JUDGE_SEMANTIC": "semantic",
    "JUDGE_MODEL": "model",
    "JUDGE_API_BASE": "api_base",
    "JUDGE_API_KEY": "api_key",
    "JUDGE_TEMPERATURE": "temperature",
    "JUDGE_MAX_TOKENS": "max_tokens",
    "JUDGE_TIMEOUT": "timeout",
    "JUDGE_RETRIES": "retries",
    "JUDGE_DEADLINE": "deadline",
    "JUDGE_SAMPLES": "samples",
    "JUDGE_TOKEN_BUDGET": "token_budget",
    "JUDGE_MAX_PATCH_TOKENS": "max_patch_tokens",
    "JUDGE_OUTPUT_MODE": "output_mode",
}


# Settings only code may set (the API): a file or variable in the working directory must not reach them.
_CODE_ONLY = frozenset({"fence_seed"})


def load_config(
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    *,
    judged: Iterable[str | os.PathLike[str]] = (),
    warn: Callable[[str], None] | None = None,
) -> JudgeConfig:
    """Merge the layers; a bad value anywhere is an InputError naming its source.

    ``judged``: the work trees the executor writes (the judged repository, the drive workspace, a server's
    workspace roots). A configuration file inside one of them is not read; ``warn`` gets one line naming it."""
    values: dict[str, Any] = {}
    source: dict[str, str] = {}
    for name, layer in _file_layers(cwd or Path.cwd(), tuple(judged), warn):
        if _CODE_ONLY.intersection(k.replace("-", "_") for k in layer):
            raise InputError(f"{name}: fence_seed cannot be set in a file (it would make the data fence predictable)")
        _merge(values, source, layer, name)
    env = os.environ if env is None else env
    _merge(values, source, {field: env[var] for var, field in ENV_VARS.items() if env.get(var, "") != ""}, "environment")
    _merge(values, source, {k: v for k, v in (flags or {}).items() if v is not None}, "command line")
    try:
        return JudgeConfig(**values)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else "?"
        where = source.get(field, "configuration")
        named = ".".join(str(part) for part in error["loc"]) or "?"  # policies.enable_shel_gates, not just policies
        raise InputError(f"config {named} (from {where}): {error['msg']}") from None


def _merge(values: dict, source: dict, layer: Mapping[str, Any], name: str) -> None:
    for key, value in layer.items():
        values[key.replace("-", "_")] = value
        source[key.replace("-", "_")] = name


def _file_layers(cwd: Path, judged: tuple[str | os.PathLike[str], ...],
                 warn: Callable[[str], None] | None) -> list[tuple[str, dict]]:
    """[tool.judge] of pyproject.toml, then judge.toml (which wins), from the working directory, unless the
    file lies in a judged work tree."""
    layers = []
    for path, table in ((cwd / "pyproject.toml", ("tool", "judge")), (cwd / "judge.toml", ())):
        if not path.is_file():
            continue
        inside = _judged_root_of(path, judged)
        if inside is not None:
            if warn is not None and _configures_judge(path, table):
                warn(f"ignoring {path}: it lies inside the judged work tree {inside}, which the executor can write. "
                     "Give judge's settings as flags or JUDGE_* variables, or in a judge.toml in a directory outside "
                     "it that you run judge from")
            continue
        tomllib = _toml()
        try:
            data: Any = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise InputError(f"{path}: not readable TOML ({exc})") from None
        for key in table:
            data = data.get(key, {}) if isinstance(data, dict) else {}
        if not isinstance(data, dict):
            raise InputError(f"{path}: [{'.'.join(table) or 'top level'}] must be a table")
        if data:
            layers.append((str(path), data))
    return layers


def _toml() -> Any:
    """The TOML reader, imported when a configuration file is there to read (most runs have none)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


def _judged_root_of(path: Path, judged: tuple[str | os.PathLike[str], ...]) -> str | None:
    """The judged work tree ``path`` lies in, links resolved (a judge.toml linked into one is in it), or None."""
    real = os.path.realpath(path)
    for root in judged:
        top = os.path.realpath(root)
        if real == top or real.startswith(top.rstrip(os.sep) + os.sep):
            return top
    return None


def _configures_judge(path: Path, table: tuple[str, ...]) -> bool:
    """Whether an ignored file would have set anything: judge.toml always, pyproject.toml with a [tool.judge] table.
    Looked for as text, not parsed: the file is the executor's, and a file judge ignores must not make it fail."""
    if not table:
        return True
    try:
        with open(path, "rb") as handle:
            head = handle.read(1024 * 1024)
    except OSError:
        return False
    return b"tool.judge" in head
