"""Where a run's settings come from — judge.toml / pyproject.toml, JUDGE_* variables, flags (which win) — merged
into plain values, and where judge keeps its state. judge.config builds the JudgeConfig from the values, judge.config_plain
a plain one when they need no more checking than it does.

The files are never read from a judged workspace: the executor writes there, and a `[tool.judge] api_base` of its
own would receive the orchestrator's key (or `semantic = "off"` its verdict).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from judge.errors import InputError

__all__ = ["ENV_VARS", "merged_settings", "state_dir"]


def state_dir() -> Path:
    """Where judge keeps what it trusts (evidence key, records, approvals): ``$XDG_STATE_HOME/judge``, else
    ``~/.local/state/judge`` (an XDG_STATE_HOME that is not absolute is ignored, as the XDG specification says).
    Outside every repository, since the executor works in one (judge.runs.state refuses state inside one)."""
    configured = os.environ.get("XDG_STATE_HOME", "")
    base = Path(configured) if os.path.isabs(configured) else Path.home() / ".local" / "state"
    return base / "judge"


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


def merged_settings(
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    *,
    judged: Iterable[str | os.PathLike[str]] = (),
    warn: Callable[[str], None] | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """(the settings given, by config field; the layer each came from): the files', then the environment's, then
    the flags' (None: not given), each over the one before.

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
    return values, source


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
