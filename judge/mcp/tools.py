"""What each tool of `judge mcp` does with its arguments: validate_step, explain_rules, instructions_for_step.

Each returns an Answer (structured content and its text) or raises InputError, one line naming the argument at
fault, which the server sends as a tool error. Nothing a call sends configures judge: the model, its server and
the policies that let commands run are the server's own (its JudgeConfig, pinned for clients).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

import anyio

from judge.config import JudgeConfig
from judge.errors import ContractViolation, InputError
from judge.instructions import render_instructions
from judge.intake import asked_of, take
from judge.pipeline import ajudge
from judge.rule_ids import CATALOG
from judge.workspace.roots import WorkspaceRoots

__all__ = ["Answer", "Settings", "explain_rules", "instructions_for_step", "validate_step"]


@dataclass(frozen=True)
class Settings:
    """The server's own: its configuration (already pinned for clients) and the roots a workspace must lie in."""

    config: JudgeConfig
    roots: WorkspaceRoots


@dataclass(frozen=True)
class Answer:
    """A tool's answer: ``text`` for the model reading it, ``structured`` (the same, as JSON) for a program."""

    text: str
    structured: dict | None = None
    meta: dict | None = None  # the result's `_meta`: facts for a program beside the answer itself

    @classmethod
    def of(cls, data: dict, meta: dict | None = None) -> "Answer":
        return cls(json.dumps(data, ensure_ascii=False), data, meta)


async def validate_step(arguments: Mapping[str, Any], settings: Settings) -> Answer:
    """judge's verdict on ``result`` for ``step``: {valid, reason}, or the full verdict with ``explain``."""
    explain = arguments.get("explain", False)
    if not isinstance(explain, bool):
        raise InputError("must be true or false", field="explain")
    asked = asked_of(arguments, settings.roots, also=("explain",))
    request = await anyio.to_thread.run_sync(lambda: take(asked.step, asked.result, records=asked.records,
                                                          workspace=asked.workspace, config=settings.config))
    refusal = request.refusal(own_key=False)  # the key is the server's: a problem with it is a verdict
    if refusal is not None:
        raise refusal
    verdict = await ajudge(request, settings.config)
    # `valid` is only whether the report holds up: a valid report of a step not done is not accepted
    decided = verdict.outcome
    outcome = {"accepted": decided.accepted, "nextAction": decided.next_action}  # type: ignore[union-attr]
    return Answer.of(verdict.full_json() if explain else verdict.contract(), meta={"judge/outcome": outcome})


def explain_rules(arguments: Mapping[str, Any], settings: Settings) -> Answer:
    """The rule catalogue (judge.rule_ids.CATALOG), or the entries of one rule id or one stage."""
    _known(arguments, ("rule", "stage"))
    rule, stage = arguments.get("rule"), arguments.get("stage")
    entries = [info for info in CATALOG if rule in (None, info.id) and stage in (None, info.stage)]
    if rule is not None and not entries:
        which = "no rule" if not any(info.id == rule for info in CATALOG) else "no entry of that stage"
        raise InputError(f"{json.dumps(rule)[:80]}: {which}; call explain_rules without arguments for every id",
                         field="rule")
    if stage is not None and not entries:
        stages = ", ".join(sorted({info.stage for info in CATALOG}))
        raise InputError(f"{json.dumps(stage)[:80]} is not a stage; the stages are {stages}", field="stage")
    return Answer.of({"rules": [{"id": info.id, "stage": info.stage, "when": info.when} for info in entries]})


def instructions_for_step(arguments: Mapping[str, Any], settings: Settings) -> Answer:
    """The executor's instructions (Markdown) for ``step``, or for any step without one."""
    _known(arguments, ("step",))
    try:
        return Answer(render_instructions(arguments.get("step"), config=settings.config))
    except ContractViolation as violation:
        raise InputError(f"breaks schemas/{violation.schema} at {violation.path}: {violation.problem}",
                         field="step") from None


def _known(arguments: Mapping[str, Any], names: tuple[str, ...], required: tuple[str, ...] = ()) -> None:
    unknown = sorted(set(arguments) - set(names))
    if unknown:
        raise InputError(f"unknown argument(s) {', '.join(map(repr, unknown))}; the arguments are "
                         f"{', '.join(names)}", field="arguments")
    missing = [name for name in required if arguments.get(name) is None]
    if missing:
        raise InputError(f"missing {', '.join(missing)}: give {' and '.join(required)}", field="arguments")
