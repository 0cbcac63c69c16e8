"""What an execution record is bound to: the repository, the base and the work hash of the tree its command ran
on; a record backs a claim only about that work (a record made on the base tree says nothing of the change)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # records are pydantic models; a run without any never loads them
    from judge.contract.models import ExecutionEvidence

__all__ = ["ANOTHER_TREE", "WorkBinding", "binding_problem", "bound"]

ANOTHER_TREE = "record made on another tree state; rerun `judge run` on this work"


@dataclass(frozen=True)
class WorkBinding:
    """The work a command ran on: the work tree's top (absolute, links resolved), the base commit's full id, and
    the work hash (judge/workspace/work_hash.py) of the tree at that moment."""

    repository: str
    base: str
    work_hash: str


def bound(record: ExecutionEvidence, work: WorkBinding) -> ExecutionEvidence:
    """The record carrying ``work`` (sign it afterwards: the MAC covers the binding)."""
    return record.model_copy(update={"repository": work.repository, "base": work.base, "work_hash": work.work_hash})


def binding_problem(record: ExecutionEvidence, judged: WorkBinding | None) -> str | None:
    """Why ``record`` says nothing about the ``judged`` work (None: no workspace to tell), or None when it does."""
    if record.work_hash is None or record.repository is None or record.base is None:
        return ("is bound to no tree state (an older `judge run` made it), so it backs nothing; rerun `judge run` "
                "with --base on this work")
    if judged is None:
        return ("cannot be matched to the judged work without a workspace; validate with --repo and --base, so "
                "judge can tell which tree state the record was made on")
    if record.repository != judged.repository:
        return f"was made in another repository ({record.repository[:200]!r}); rerun `judge run` on this work"
    if (record.base, record.work_hash) != (judged.base, judged.work_hash):
        return ANOTHER_TREE
    return None
