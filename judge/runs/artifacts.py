"""Execution artifacts on disk: `<root>/artifacts/<run_id>/<step>/` with command.txt, stdout.log, stderr.log, evidence.json.

The command runs beside its artifacts and may try to steer them. So the root and every directory
under it are opened with no symlink followed (a link anywhere on the way is refused), and the step
directory only appears complete: its files are written into a fresh directory of a temporary
name after the command ended, then renamed to ``<step>`` if that name is still free. Evidence is
append-only: a used name is refused before the command runs, and a name that appeared while it
ran (a forged evidence.json, a link) is a collision: judge leaves nothing of its own beside it.
"""

from __future__ import annotations

import errno
import os
import secrets
import shlex
import time
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from judge.errors import InputError, field_ref
from judge.workspace.confine import check_segment
from judge.runs.dirfd import create_new_file, entry_exists, open_child_dir, open_real_dir, still_named
from judge.runs.execute import DEFAULT_TIMEOUT_S, check_run_inputs, run_command
from judge.runs.json_stream import object_pieces
from judge.runs.binding import WorkBinding, bound
from judge.runs.keys import sign
from judge.runs.record import DEFAULT_LIMIT
from judge.contract.models import ExecutionEvidence

__all__ = ["ARTIFACT_FILES", "ArtifactDir", "new_run_id", "prepare_artifact_dir", "record_execution",
           "write_artifacts"]

ARTIFACT_FILES = ("command.txt", "stdout.log", "stderr.log", "evidence.json")
_TEXT_SLICE = 1024 * 1024  # characters encoded at once when writing a log


@dataclass(frozen=True)
class ArtifactDir:
    """Where one run's artifacts go: ``root/artifacts/run_id/step_id``, checked free by prepare_artifact_dir."""

    root: Path
    run_id: str
    step_id: str

    @property
    def path(self) -> Path:
        return self.root / "artifacts" / self.run_id / self.step_id


def new_run_id() -> str:
    """A sortable, unique run id: UTC time and 8 random hex digits."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(4)


def record_execution(
    command: Sequence[str],
    *,
    step_id: str,
    root: str | os.PathLike[str],
    run_id: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    limit: int = DEFAULT_LIMIT,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    key: bytes | None = None,
    work: WorkBinding | None = None,
    cpu_seconds: float | None = None,
) -> ExecutionEvidence:
    """Run ``command`` and write its artifacts; the returned record lists them (paths relative to ``root``).

    ``key``: the evidence key (judge.runs.keys) the record is signed with before it is written; None: unsigned.
    ``work``: the work the command runs on (judge.runs.binding), which the record names and the MAC covers.
    ``cpu_seconds``: run it contained (judge.runs.execute.run_process)."""
    check_run_inputs(command, timeout, limit)  # before any directory is made
    run_id = run_id or new_run_id()
    directory = prepare_artifact_dir(root, run_id, step_id)
    evidence = run_command(command, step_id=step_id, run_id=run_id, timeout=timeout, limit=limit, cwd=cwd,
                           env=env, cpu_seconds=cpu_seconds)
    if work is not None:
        evidence = bound(evidence, work)
    return write_artifacts(directory, sign(key, evidence) if key is not None else evidence)


def prepare_artifact_dir(root: str | os.PathLike[str], run_id: str, step_id: str) -> ArtifactDir:
    """Check ``<root>/artifacts/<run_id>/<step_id>`` can be written, before anything runs: the ids are plain names,
    no symlink is on the way (missing directories are made), and the step's name is free. InputError if not."""
    check_segment(step_id, "step_id")
    check_segment(run_id, "run_id")
    target = ArtifactDir(Path(root), run_id, step_id)
    with ExitStack() as fds:
        run_fd = _open_run_dir(target, fds)
        if entry_exists(run_fd, step_id):
            raise InputError(f"{target.path}: already holds artifacts; use a new {field_ref('run_id')}")
    return target


def write_artifacts(target: ArtifactDir, evidence: ExecutionEvidence) -> ExecutionEvidence:
    """Write the four files and publish them as ``target``; returns the record with their paths (relative to the root).

    InputError, with nothing of judge's left under the step's name, when that name was taken
    meanwhile or a directory on the way was moved or replaced by a link.
    """
    prefix = f"artifacts/{evidence.run_id}/{evidence.step_id}"
    evidence = evidence.model_copy(update={"artifacts": tuple(f"{prefix}/{name}" for name in ARTIFACT_FILES)})
    with ExitStack() as fds:
        run_fd = _open_run_dir(target, fds)  # walked again: the command may have swapped any level for a link
        temporary = f".{target.step_id}.incomplete-{secrets.token_hex(4)}"
        shown = target.path.with_name(temporary)
        try:
            os.mkdir(temporary, 0o755, dir_fd=run_fd)  # judge's own, never one found there
        except OSError as exc:
            raise InputError(f"{shown}: cannot create it ({exc.strerror or exc})") from None
        step_fd = open_child_dir(run_fd, temporary, create=False, shown=shown)
        fds.callback(os.close, step_fd)
        try:
            for name, pieces in zip(ARTIFACT_FILES, _contents(evidence)):
                create_new_file(step_fd, name, pieces, shown=f"{target.path}/{name}")
            _publish(target, run_fd, step_fd, temporary)
        except BaseException:
            _discard(run_fd, step_fd, temporary)
            raise
    return evidence


def _open_run_dir(target: ArtifactDir, fds: ExitStack) -> int:
    """A descriptor on ``root/artifacts/run_id`` (made when missing), walked with no symlink followed."""
    fd = open_real_dir(target.root, create=True)
    fds.callback(os.close, fd)
    for shown in (target.root / "artifacts", target.root / "artifacts" / target.run_id):
        fd = open_child_dir(fd, shown.name, create=True, shown=shown)
        fds.callback(os.close, fd)
    return fd


def _contents(evidence: ExecutionEvidence) -> Iterator[Iterator[bytes]]:
    """Each file's bytes in pieces: a 16 MiB output is never copied whole again (escaped, it is up to 6 times longer)."""
    yield iter(((shlex.join(evidence.command) + "\n").encode("utf-8", "surrogateescape"),))
    yield _encoded(evidence.stdout)
    yield _encoded(evidence.stderr)
    yield (piece.encode("ascii") for piece in chain(object_pieces(evidence.to_json(), indent=2), "\n"))


def _encoded(text: str) -> Iterator[bytes]:
    for start in range(0, len(text), _TEXT_SLICE):
        yield text[start:start + _TEXT_SLICE].encode("utf-8", "surrogateescape")


def _publish(target: ArtifactDir, run_fd: int, step_fd: int, temporary: str) -> None:
    """Rename the written directory to the step's name if that is free, then check the root's path leads to it."""
    moved = InputError(f"{target.path}: a directory on the way was moved or replaced while judge wrote the "
                       "artifacts; nothing is recorded: keep the artifact root where the command cannot write")
    if not still_named(step_fd, run_fd, temporary):
        raise moved
    taken = InputError(f"{target.path}: appeared while the command ran, not made by judge (its files are not "
                       f"evidence); judge wrote nothing there: run again with a new {field_ref('run_id')}")
    if entry_exists(run_fd, target.step_id):
        raise taken
    try:  # onto a name made since the check: a non-empty directory, a file or a link makes rename fail
        os.rename(temporary, target.step_id, src_dir_fd=run_fd, dst_dir_fd=run_fd)
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR):
            raise taken from None
        raise InputError(f"{target.path}: cannot create it ({exc.strerror or exc})") from None
    with ExitStack() as fds:  # what the root's path now leads to is judge's directory, holding judge's files only
        if not still_named(step_fd, _open_run_dir(target, fds), target.step_id) or \
                sorted(os.listdir(step_fd)) != sorted(ARTIFACT_FILES):
            raise moved


def _discard(run_fd: int, step_fd: int, temporary: str) -> None:
    """Remove what judge wrote (wherever its directory went), so no half-written evidence stays behind."""
    for name in ARTIFACT_FILES:
        try:
            os.unlink(name, dir_fd=step_fd)
        except OSError:
            pass
    if still_named(step_fd, run_fd, temporary):
        try:
            os.rmdir(temporary, dir_fd=run_fd)
        except OSError:
            pass
