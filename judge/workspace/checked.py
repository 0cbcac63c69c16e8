"""The order a caller checks its inputs in before judging (`judge validate`, `judge serve`, `judge mcp`): the
contract first, then the workspace, so that a step or result that breaks its contract gets the schema_invalid
verdict, never an error that its missing or malformed fields caused while reading git or the ledger."""

from __future__ import annotations

from typing import Any

from judge.contract.schema import parse_result, parse_step
from judge.errors import ContractViolation
from judge.workspace.facts import Workspace

__all__ = ["contract_then_workspace"]


def contract_then_workspace(step: Any, result: Any, workspace: Workspace) -> tuple[Any, Any, Workspace | None]:
    """(step, result, workspace) to judge: the models once they pass their contract (the pipeline takes them, so it
    is checked once) and the workspace, checked readable (InputError when not); the raw input and no workspace when
    the contract is broken (the verdict is schema_invalid, and the workspace is never read)."""
    try:
        step, result = parse_step(step), parse_result(result)
    except ContractViolation:
        return step, result, None
    workspace.check()
    return step, result, workspace
