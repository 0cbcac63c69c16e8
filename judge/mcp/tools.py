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
from judge.contract.models import ExecutionEvidence
from judge.contract.schema import parse_execution_evidence
from judge.errors import ContractViolation, InputError
from judge.instructions import render_instructions
from judge.pipeline import avalidate
from judge.rule_ids import CATALOG
from judge.workspace.checked import contract_then_workspace
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

    @classmethod
    def of(cls, data: dict) -> "Answer":
        return cls(json.dumps(data, ensure_ascii=False), data)


async def validate_step(arguments: Mapping[str, Any], settings: Settings) -> Answer:
    """judge's verdict on ``result`` for ``step``: {valid, reason}, or the full verdict with ``explain``."""
    _known(arguments, ("step", "result", "workspace", "evidence", "explain"), required=("step", "result"))
    explain = arguments.get("explain", False)
    if not isinstance(explain, bool):
        raise InputError("must be true or false", field="explain")
    evidence = _records(arguments.get("evidence"))
    step, result, workspace = arguments["step"], arguments["result"], None
    if arguments.get("workspace") is not None:
        workspace = settings.roots.workspace(arguments["workspace"])
        step, result, workspace = await anyio.to_thread.run_sync(contract_then_workspace, step, result, workspace)
    verdict = await avalidate(step, result, config=settings.config, workspace=workspace, evidence=evidence)
    return Answer.of(verdict.model_dump(mode="json") if explain else verdict.contract())


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


def _records(evidence: Any) -> tuple[ExecutionEvidence, ...]:
    """The attached execution records; InputError naming the first that breaks its schema."""
    if evidence is None:
        return ()
    if not isinstance(evidence, list):
        raise InputError("must be a list of execution records as `judge run` writes them", field="evidence")
    records = []
    for index, record in enumerate(evidence):
        try:
            records.append(parse_execution_evidence(record))
        except ContractViolation as violation:
            where = violation.path.replace("$.execution-evidence", "$", 1)
            raise InputError(f"breaks schemas/execution-evidence.schema.json at {where}: {violation.problem}",
                             field=f"evidence[{index}]") from None
    return tuple(records)

