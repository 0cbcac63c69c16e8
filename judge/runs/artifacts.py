"""Execution artifacts on disk: `<root>/artifacts/<run_id>/<step>/` with command.txt, stdout.log, stderr.log, evidence.json.

Files are created, never overwritten (evidence is append-only): a second run under the same run
id and step is refused. The directory is made and checked before the command runs, so a bad
step id or a symlink out of the root stops the run before anything executes.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import time
from pathlib import Path
from typing import Sequence

from judge.errors import InputError, field_ref
from judge.workspace.confine import check_segment, confined
from judge.runs.execute import DEFAULT_TIMEOUT_S, check_run_inputs, run_command
from judge.runs.record import DEFAULT_LIMIT
from judge.contract.models import ExecutionEvidence

__all__ = ["ARTIFACT_FILES", "DEFAULT_ROOT", "new_run_id", "prepare_artifact_dir", "record_execution", "write_artifacts"]

ARTIFACT_FILES = ("command.txt", "stdout.log", "stderr.log", "evidence.json")
DEFAULT_ROOT = ".judge"


def new_run_id() -> str:
    """A sortable, unique run id: UTC time and 8 random hex digits."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(4)


def record_execution(
    command: Sequence[str],
    *,
    step_id: str,
    root: str | os.PathLike[str] = DEFAULT_ROOT,
    run_id: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    limit: int = DEFAULT_LIMIT,
    cwd: str | os.PathLike[str] | None = None,
) -> ExecutionEvidence:
    """Run ``command`` and write its artifacts; the returned record lists them (paths relative to ``root``)."""
    check_run_inputs(command, timeout, limit)  # before any directory is made
    run_id = run_id or new_run_id()
    directory = prepare_artifact_dir(root, run_id, step_id)
    evidence = run_command(command, step_id=step_id, run_id=run_id, timeout=timeout, limit=limit, cwd=cwd)
    return write_artifacts(directory, evidence)


def prepare_artifact_dir(root: str | os.PathLike[str], run_id: str, step_id: str) -> Path:
    """Create the empty ``<root>/artifacts/<run_id>/<step_id>/``; InputError when unsafe or already used."""
    check_segment(step_id, "step_id")
    check_segment(run_id, "run_id")
    root_path = Path(root)
    try:
        root_path.mkdir(parents=True, exist_ok=True)
        confined(root_path, "artifacts", run_id).mkdir(parents=True, exist_ok=True)
        directory = confined(root_path, "artifacts", run_id, step_id)
        directory.mkdir()
    except FileExistsError:
        raise InputError(f"{root}/artifacts/{run_id}/{step_id}: already holds artifacts; use a new {field_ref('run_id')}") from None
    except OSError as exc:
        raise InputError(f"{root}: cannot create the artifact directory ({exc.strerror or exc})", field="root") from None
    return confined(root_path, "artifacts", run_id, step_id)  # again: a link swapped in meanwhile is caught


def write_artifacts(directory: Path, evidence: ExecutionEvidence) -> ExecutionEvidence:
    """Write the four files into ``directory`` (from prepare_artifact_dir); returns the record with their paths."""
    prefix = f"artifacts/{evidence.run_id}/{evidence.step_id}"
    evidence = evidence.model_copy(update={"artifacts": tuple(f"{prefix}/{name}" for name in ARTIFACT_FILES)})
    contents = (
        shlex.join(evidence.command) + "\n",
        evidence.stdout,
        evidence.stderr,
        json.dumps(evidence.to_json(), indent=2, ensure_ascii=True) + "\n",
    )
    for name, text in zip(ARTIFACT_FILES, contents):
        _create(directory / name, text.encode("utf-8", "surrogateescape"))
    return evidence


def _create(path: Path, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise InputError(f"{path}: cannot create it ({exc.strerror or exc})") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
