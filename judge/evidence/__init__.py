"""Evidence from outside the result: git state, evidence files, the ledger, and real command runs."""

from judge.evidence.artifacts import record_execution
from judge.evidence.execution import evidence_hash, run_command, truncate_output
from judge.evidence.git import EMPTY_TREE, GitFacts
from judge.evidence.workspace import Workspace, WorkspaceFacts, gather_workspace

__all__ = [
    "EMPTY_TREE",
    "GitFacts",
    "Workspace",
    "WorkspaceFacts",
    "evidence_hash",
    "gather_workspace",
    "record_execution",
    "run_command",
    "truncate_output",
]
