"""Reading an execution record file (`judge run`'s evidence.json) for the command line: a file that breaks its schema
is one line naming the file and the JSON path."""

from __future__ import annotations

from typing import Any

from judge.errors import InputError

__all__ = ["read_record"]


def read_record(path: str, label: str) -> Any:
    """The execution record (ExecutionEvidence) in file ``path``; InputError worded ``{label} {path}: ...`` when
    unreadable or off-schema."""
    from judge.contract.jsonio import read_json
    from judge.contract.schema import parse_execution_evidence
    from judge.errors import ContractViolation

    try:
        return parse_execution_evidence(read_json(path, label))
    except ContractViolation as violation:
        where = violation.path.replace("$.execution-evidence", "$")
        raise InputError(f"{label} {path}: breaks schemas/execution-evidence.schema.json at {where}: "
                         f"{violation.problem}") from None
