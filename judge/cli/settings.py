"""The semantic stage's flags, shared by `validate` and `eval`; each also comes from JUDGE_* or judge.toml (flags win),
never from a judge.toml or pyproject.toml inside the judged work tree."""

from __future__ import annotations

import argparse

__all__ = ["add_model_flags", "config_of", "plain_config_of"]

_MODEL_FLAGS = ("semantic", "model", "api_base", "samples", "temperature", "max_tokens", "timeout", "retries",
                "token_budget", "output_mode")


def add_model_flags(parser: argparse.ArgumentParser, renamed: dict[str, str] | None = None) -> None:
    """The flags, each named ``--dest-with-dashes`` unless ``renamed`` gives it another flag (a command whose own
    flag has that name, as `drive --timeout` for the executor)."""
    group = _Renaming(parser.add_argument_group("semantic review (LLM stage)"), renamed or {})
    group.add_argument("--semantic", choices=("auto", "required", "off"),
                       help="auto: run when a model is set; required: no answer means invalid; off: never")
    group.add_argument("--model", help="any litellm model string, e.g. openai/gpt-4o-mini or openai/local")
    group.add_argument("--api-base", dest="api_base", metavar="URL", help="OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    group.add_argument("--samples", type=int, metavar="N", help="ask N times; the majority decides")
    group.add_argument("--temperature", type=float)
    group.add_argument("--max-tokens", dest="max_tokens", type=int, metavar="N", help="reply tokens per call")
    group.add_argument("--timeout", type=float, metavar="S", help="seconds per call")
    group.add_argument("--retries", type=int, metavar="N", help="transport retries per call")
    group.add_argument("--token-budget", dest="token_budget", type=int, metavar="N", help="tokens per verdict")
    group.add_argument("--output-mode", dest="output_mode",
                       choices=("auto", "json_schema", "json_object", "grammar", "none"),
                       help="how the reply format is enforced (grammar: llama.cpp servers)")


class _Renaming:
    """An argument group whose flags ``renamed`` (dest -> flag) names otherwise."""

    def __init__(self, group: argparse._ArgumentGroup, renamed: dict[str, str]) -> None:
        self._group, self._renamed = group, renamed

    def add_argument(self, flag: str, **options) -> None:
        dest = options.get("dest", flag.lstrip("-").replace("-", "_"))
        self._group.add_argument(self._renamed.get(dest, flag), **{**options, "dest": dest})


def config_of(args: argparse.Namespace, extra: dict | None = None, workspace: str | None = None):
    """The run's JudgeConfig: these flags (and ``extra`` settings) over JUDGE_* variables over judge.toml / pyproject.toml.

    The files are not read from a work tree the executor writes: ``--repo``, ``--workspace-root``s, or
    ``workspace`` (drive's executor runs in the working directory when there is no --repo); a file ignored
    there is named on stderr."""
    from judge.config import config_from

    return config_from(*_settings(args, extra, workspace))


def plain_config_of(args: argparse.Namespace, extra: dict | None = None):
    """``config_of`` for a command that reads only a config's values (`validate`): a PlainConfig when the settings
    are plain (judge.config_plain), so that no pydantic is loaded for them; the JudgeConfig otherwise."""
    from judge.config_plain import plain_config

    values, sources = _settings(args, extra, None)
    plain = plain_config(values)
    if plain is not None:
        return plain
    from judge.config import config_from

    return config_from(values, sources)


def _settings(args: argparse.Namespace, extra: dict | None, workspace: str | None) -> tuple[dict, dict]:
    import sys

    from judge.config_layers import merged_settings

    judged = [path for path in (getattr(args, "repo", None), workspace) if path]
    judged += list(getattr(args, "workspace_roots", None) or ())
    return merged_settings({**{name: getattr(args, name) for name in _MODEL_FLAGS}, **(extra or {})}, judged=judged,
                           warn=lambda line: sys.stderr.write(f"judge: warning: {line}\n"))
