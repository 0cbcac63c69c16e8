"""What a report records about how its run judged (model, semantic mode, prompt, judge version, set file,
settings), and where two runs differ: the header of `judge eval compare`, and what `judge eval merge` refuses."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from judge.eval.report.model import RunMeta

__all__ = ["ANSWER_SETTINGS", "Provenance", "answer_differences", "provenance_rows", "short_digest"]

# Settings that change what is sent, how answers are combined or which gates a step has; transport knobs
# (timeout, retries) do not, nor the command gates' (an eval case has no workspace: no command runs).
# The verdict cache keys on these; shards judged with different values of any cannot be merged.
ANSWER_SETTINGS = ("semantic", "model", "api_base", "temperature", "max_tokens", "samples", "token_budget",
                   "max_patch_tokens", "output_mode", "policies", "policy_overrides", "templates_dir")
# Shown in their own rows (samples inside the model's), so not again among the other settings.
_OWN_ROWS = ("model", "semantic", "samples")


@dataclass(frozen=True)
class Provenance:
    """One row of a comparison header: what ``label`` was in each run, and whether it differs."""

    label: str
    base: str
    head: str

    @property
    def differs(self) -> bool:
        return self.base != self.head


def provenance_rows(base: RunMeta, head: RunMeta) -> list[Provenance]:
    """Model, semantic mode, prompt, judge version and set file, always; then every other setting that differs."""
    rows = [
        Provenance("model", base.model, head.model),
        Provenance("semantic mode", _text(base.settings.get("semantic")), _text(head.settings.get("semantic"))),
        Provenance("prompt sha256", short_digest(base.prompt_sha256), short_digest(head.prompt_sha256)),
        Provenance("judge version", _text(base.judge_version), _text(head.judge_version)),
        Provenance("set file sha256", short_digest(base.set_file_sha256), short_digest(head.set_file_sha256)),
    ]
    for key in sorted(set(base.settings) | set(head.settings)):
        if key in _OWN_ROWS:
            continue
        before, after = _text(base.settings.get(key)), _text(head.settings.get(key))
        if before != after:
            rows.append(Provenance(key, before, after))
    return rows


def answer_differences(first: RunMeta, other: RunMeta) -> list[str]:
    """What differs between two runs that can change a verdict: a setting of ANSWER_SETTINGS, the prompt, judge's
    version; each as ``name first vs other``."""
    pairs = [(key, first.settings.get(key), other.settings.get(key)) for key in ANSWER_SETTINGS]
    pairs += [("prompt sha256", first.prompt_sha256, other.prompt_sha256),
              ("judge version", first.judge_version, other.judge_version)]
    return [f"{name} {_text(a)} vs {_text(b)}" for name, a, b in pairs if a != b]


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def short_digest(digest: str | None) -> str:
    """A sha256 as its first 12 hex digits, enough to tell two apart at a glance."""
    return digest[:12] if digest else "not recorded"
