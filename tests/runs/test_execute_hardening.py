"""`judge run` against a command that attacks its own artifacts (issue 11, item 5): links swapped in while it
runs, a planted `.judge` link, a forged evidence.json, a setsid daemon holding the pipes, and huge --max-output."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest

from helpers.builders import run_cli

import judge.runs.artifacts as artifacts
import judge.runs.execute as execute
from judge.errors import InputError
from judge.runs.artifacts import ARTIFACT_FILES, prepare_artifact_dir, record_execution, write_artifacts
from judge.runs.execute import run_command
from judge.runs.json_stream import object_pieces, string_pieces
from judge.runs.record import MAX_LIMIT, evidence_hash, truncate_output

PY = sys.executable
ROOT = Path(__file__).resolve().parents[2]


def _sh(script: str) -> list[str]:
    return ["/bin/sh", "-c", script]


def _files_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def _leftovers(root: Path) -> list[str]:
    """Judge's temporary step directories still standing anywhere under ``root``."""
    return [str(p) for p in root.rglob("*.incomplete-*")]


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A directory outside the artifact root that a racing command points links at."""
    path = tmp_path / "elsewhere"
    path.mkdir()
    return path


# --- 1. a command that swaps a directory on the way for a link --------------------------------------


@pytest.mark.parametrize("level", ["root", "artifacts", "run"])
def test_a_level_swapped_for_a_link_while_the_command_runs_is_refused(tmp_path, elsewhere, level):
    root = tmp_path / "root"
    swapped = {"root": root, "artifacts": root / "artifacts", "run": root / "artifacts" / "r"}[level]
    race = _sh(f'mv "{swapped}" "{swapped}.moved" && ln -s "{elsewhere}" "{swapped}"')
    with pytest.raises(InputError, match=f"{swapped.name}: is a symlink"):
        record_execution(race, step_id="s", root=root, run_id="r")
    assert _files_under(elsewhere) == []
    assert _leftovers(tmp_path) == []


def test_the_reviews_reproduction_writes_nothing_outside_the_root(tmp_path, elsewhere):
    # The review's command: move its own step directory away and leave a link in its place.
    step = tmp_path / "root" / "artifacts" / "r" / "s"
    race = _sh(f'mv "{step}" "{step}.x"; ln -s "{elsewhere}" "{step}"')
    with pytest.raises(InputError, match="appeared while the command ran"):
        record_execution(race, step_id="s", root=tmp_path / "root", run_id="r")
    assert _files_under(elsewhere) == []
    assert os.readlink(step) == str(elsewhere)  # not judge's: left as the command made it
    assert _leftovers(tmp_path) == []


def test_a_level_replaced_by_a_real_directory_still_gets_true_paths(tmp_path):
    root = tmp_path / "root"
    evidence = record_execution(_sh(f'mv "{root}/artifacts" "{root}/old" && mkdir "{root}/artifacts"'),
                                step_id="s", root=root, run_id="r")
    assert evidence.status == "SUCCESS"
    assert all((root / path).is_file() for path in evidence.artifacts)  # the record's paths lead to its files
    assert _files_under(root / "old") == ["r"]


def _racing_write(monkeypatch, race):
    """Make ``race(step_fd)`` happen right after judge created its last file: a process that outlived the command."""
    real = artifacts.create_new_file

    def create_then_race(dir_fd, name, pieces, *, shown):
        real(dir_fd, name, pieces, shown=shown)
        if name == ARTIFACT_FILES[-1]:
            race(dir_fd)

    monkeypatch.setattr(artifacts, "create_new_file", create_then_race)


def test_step_directory_moved_away_while_written_is_refused_and_emptied(tmp_path, elsewhere, monkeypatch):
    root = tmp_path / "root"
    target = prepare_artifact_dir(root, "r", "s")
    evidence = run_command([PY, "-c", "print('ok')"], step_id="s", run_id="r")
    run_dir = root / "artifacts" / "r"

    def move_out(_step_fd):
        (temporary,) = run_dir.iterdir()
        temporary.rename(elsewhere / "moved")
        os.symlink(elsewhere / "moved", temporary)

    _racing_write(monkeypatch, move_out)
    with pytest.raises(InputError, match="moved or replaced"):
        write_artifacts(target, evidence)
    assert _files_under(elsewhere) == ["moved"]  # judge's own files went with it, and were removed there
    assert not (run_dir / "s").exists()


def test_a_file_planted_in_judges_directory_before_it_is_published_is_refused(tmp_path, monkeypatch):
    root = tmp_path / "root"
    target = prepare_artifact_dir(root, "r", "s")
    evidence = run_command([PY, "-c", "print('ok')"], step_id="s", run_id="r")
    _racing_write(monkeypatch, lambda step_fd: os.close(os.open("forged.json", os.O_CREAT | os.O_WRONLY, dir_fd=step_fd)))
    with pytest.raises(InputError, match="moved or replaced"):
        write_artifacts(target, evidence)
    assert _files_under(root / "artifacts" / "r") == ["s", "s/forged.json"]  # nothing of judge's beside it


# --- 2. a root that is, or lies under, a link -------------------------------------------------------


def test_planted_default_root_link_is_refused_before_the_command_runs(capsys, tmp_path, elsewhere, monkeypatch):
    state = tmp_path / "state"
    state.mkdir()
    (state / "judge").symlink_to(elsewhere)  # judge's default root, its state directory, made a link
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    marker = tmp_path / "ran"
    code, out, err = run_cli(capsys, "run", "--step", "s", "--no-sign", "--", PY, "-c", f"open({str(marker)!r}, 'w')")
    assert (code, out) == (2, "") and "judge: is a symlink" in err
    assert not marker.exists() and _files_under(elsewhere) == []


def test_root_under_a_link_is_refused_too(tmp_path, elsewhere):
    # A link anywhere on the root's path (the executor can plant one in any directory it writes) is refused.
    (tmp_path / "link").symlink_to(elsewhere)
    with pytest.raises(InputError, match="link: is a symlink"):
        record_execution([PY, "-c", "pass"], step_id="s", root=tmp_path / "link" / "judge-root", run_id="r")
    assert _files_under(elsewhere) == []


def test_root_link_on_the_command_line_is_one_line_exit_2(capsys, tmp_path, elsewhere):
    (tmp_path / "root").symlink_to(elsewhere)
    code, out, err = run_cli(capsys, "run", "--step", "s", "--root", str(tmp_path / "root"), "--no-sign", "--",
                             PY, "-c", "pass")
    assert (code, out, len(err.splitlines())) == (2, "", 1)
    assert "is a symlink" in err and "remove it" in err
    assert _files_under(elsewhere) == []


# --- 3. a forged evidence.json -----------------------------------------------------------------------


def test_forged_evidence_made_while_the_command_runs_is_a_collision_with_nothing_of_judges_beside_it(capsys, tmp_path):
    root = tmp_path / "root"
    step = root / "artifacts" / "r" / "s"
    forge = _sh(f'mkdir -p "{step}" && echo \'{{"forged": 1}}\' > "{step}/evidence.json"')
    code, out, err = run_cli(capsys, "run", "--step", "s", "--root", str(root), "--run-id", "r", "--no-sign", "--",
                             *forge)
    assert (code, out, len(err.splitlines())) == (2, "", 1)
    assert "appeared while the command ran" in err and "--run-id" in err
    assert _files_under(step) == ["evidence.json"]  # not adopted: no command.txt or logs of judge's beside it
    assert json.loads((step / "evidence.json").read_text()) == {"forged": 1}
    assert _leftovers(root) == []


@pytest.mark.parametrize("planted", ["empty-dir", "file"])
def test_any_step_name_made_while_the_command_runs_is_a_collision(tmp_path, planted):
    step = tmp_path / "root" / "artifacts" / "r" / "s"
    make = f'mkdir "{step}"' if planted == "empty-dir" else f'touch "{step}"'
    with pytest.raises(InputError, match="appeared while the command ran"):
        record_execution(_sh(make), step_id="s", root=tmp_path / "root", run_id="r")
    assert _leftovers(tmp_path) == []


def test_forged_evidence_made_before_the_run_stops_it_before_the_command_runs(tmp_path):
    step = tmp_path / "root" / "artifacts" / "r" / "s"
    step.mkdir(parents=True)
    (step / "evidence.json").write_text('{"forged": 1}')
    marker = tmp_path / "ran"
    with pytest.raises(InputError, match="already holds artifacts"):
        record_execution([PY, "-c", f"open({str(marker)!r}, 'w')"], step_id="s", root=tmp_path / "root", run_id="r")
    assert not marker.exists() and _files_under(step) == ["evidence.json"]


def test_published_directory_holds_judges_four_files_only(tmp_path):
    evidence = record_execution([PY, "-c", "print('ok')"], step_id="s", root=tmp_path, run_id="r")
    assert _files_under(tmp_path / "artifacts") == ["r", "r/s", *(f"r/s/{name}" for name in sorted(ARTIFACT_FILES))]
    assert evidence.artifacts == tuple(f"artifacts/r/s/{name}" for name in ARTIFACT_FILES)


# --- 4. a daemon that outlives the command -----------------------------------------------------------


def _daemon(body: str, pid_file: Path) -> list[str]:
    """A command that starts ``body`` in a new session (it keeps the command's stdout), waits until ``body``
    has written its pid to ``pid_file`` (``{announce}`` in ``body``; the test ends it by that), says hi and exits."""
    staged = pid_file.with_suffix(".tmp")
    announce = f"import os; open({str(staged)!r}, 'w').write(str(os.getpid())); os.rename({str(staged)!r}, {str(pid_file)!r})"
    return [PY, "-c", "import os, subprocess, sys, time\n"
            f"subprocess.Popen([sys.executable, '-c', {body.format(announce=announce)!r}], start_new_session=True)\n"
            f"for _ in range(3000):\n    if os.path.exists({str(pid_file)!r}): break\n    time.sleep(0.01)\n"
            "print('hi', flush=True)"]


def _end_daemon(pid_file: Path) -> None:
    try:
        os.kill(int(pid_file.read_text()), signal.SIGKILL)
    except (FileNotFoundError, ProcessLookupError):  # never started, or gone with the pipe it wrote to
        pass


def test_a_setsid_daemon_holding_stdout_does_not_hold_judge(tmp_path, monkeypatch):
    # Only the exit ends the reading here: the leftover-children grace and the timeout are longer than the
    # daemon's sleep. The thread's 60 s is a hang guard; the daemon would hold the pipe 300 s.
    monkeypatch.setattr(execute, "_DRAIN_GRACE_S", 1000.0)
    pid_file = tmp_path / "daemon.pid"
    records = []
    runner = threading.Thread(target=lambda: records.append(
        run_command(_daemon("{announce}; import time; time.sleep(300)", pid_file), step_id="s", run_id="r",
                    timeout=1000)))
    runner.start()
    try:
        runner.join(60)
        assert not runner.is_alive(), "judge waited for a daemon that left the command's process group"
    finally:
        _end_daemon(pid_file)
        runner.join()
    assert (records[0].status, records[0].stdout, records[0].timed_out) == ("SUCCESS", "hi\n", False)


def test_a_daemon_that_never_stops_writing_is_cut_at_the_timeout(tmp_path):
    # Through the command line in a child process: the 120 s limit is a hang guard, the daemon writes forever.
    pid_file = tmp_path / "daemon.pid"
    command = _daemon("import time\nprint(1, flush=True)\n{announce}\nwhile True: print(1, flush=True); time.sleep(0.01)",
                      pid_file)
    code = "import sys; from judge.cli.main import main; sys.exit(main(sys.argv[1:]))"
    try:
        done = subprocess.run([PY, "-c", code, "run", "--root", str(tmp_path), "--step", "s", "--timeout", "2",
                               "--no-sign", "--",
                               *command], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        _end_daemon(pid_file)
    record = json.loads(done.stdout)
    assert (done.returncode, record["status"], record["timedOut"]) == (0, "SUCCESS", False)
    assert record["stdout"].startswith("1\n") and "hi\n" in record["stdout"]


def test_children_left_in_the_group_are_still_heard_after_the_exit():
    # A background child in the command's own group may still write after the command exits: it is read.
    evidence = run_command(_sh("echo hi; (sleep 0.5; echo late) &"), step_id="s", run_id="r")
    assert (evidence.status, evidence.stdout) == ("SUCCESS", "hi\nlate\n")


def test_a_command_that_closes_its_pipes_and_runs_on_is_still_timed_out():
    evidence = run_command([PY, "-c", "import os, time; os.close(1); os.close(2); time.sleep(60)"], step_id="s",
                           run_id="r", timeout=0.5)
    assert (evidence.status, evidence.timed_out) == ("FAILURE", True)


# --- 5. --max-output is capped, and memory is bounded by it ------------------------------------------


def test_max_output_above_the_cap_is_refused_before_anything_runs(tmp_path):
    marker = tmp_path / "ran"
    with pytest.raises(InputError, match=f"cap of {MAX_LIMIT} bytes"):
        record_execution([PY, "-c", f"open({str(marker)!r}, 'w')"], step_id="s", root=tmp_path, limit=MAX_LIMIT + 1)
    assert not marker.exists() and not (tmp_path / "artifacts").exists()


@pytest.mark.parametrize("value, message", [("1e9", "invalid int value"), (str(10**9), "--max-output 1000000000 is above")])
def test_max_output_on_the_command_line_is_one_line_exit_2(capsys, tmp_path, value, message):
    code, out, err = run_cli(capsys, "run", "--step", "s", "--root", str(tmp_path), "--max-output", value, "--", "true")
    assert (code, out, len(err.splitlines())) == (2, "", 1) and message in err


def test_output_at_the_cap_is_kept_whole(tmp_path):
    size = MAX_LIMIT
    evidence = record_execution([PY, "-c", f"import sys; sys.stdout.buffer.write(b'\\0' * {size})"], step_id="s",
                                root=tmp_path, run_id="r", limit=MAX_LIMIT)
    assert evidence.stdout_bytes == size and evidence.stdout == "\0" * size
    assert (tmp_path / "artifacts/r/s/stdout.log").stat().st_size == size


@pytest.mark.parametrize("limit", [2, 3, 10, 4097])
def test_the_tails_ring_keeps_the_last_bytes_whatever_the_chunks(limit):
    rng = random.Random(limit)  # fixed seed: the same chunks on every run
    data = bytes(rng.randrange(256) for _ in range(50_000))
    capture, offset = execute._Capture(limit), 0
    while offset < len(data):
        size = rng.choice([0, 1, limit // 2, limit - 1, limit, limit + 1, 3 * limit, 5000])
        capture.feed(data[offset:offset + size])
        offset += size
        assert capture.text() == truncate_output(data[:offset], limit)
    assert len(capture.head) + len(capture.tail) <= limit


def _peak_bytes(action) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_writing_a_record_never_escapes_an_output_whole(tmp_path):
    # 4 MiB of NUL is 24 MiB once escaped as JSON; writing and hashing must stay far below even one output's size.
    size = 4 * 1024 * 1024
    evidence = run_command([PY, "-c", "pass"], step_id="s", run_id="r").model_copy(update={"stdout": "\0" * size})
    target = prepare_artifact_dir(tmp_path, "r", "s")
    assert _peak_bytes(lambda: write_artifacts(target, evidence)) < size
    assert _peak_bytes(lambda: evidence_hash(evidence.command, evidence.stdout, "", 0)) < size
    assert json.loads((tmp_path / "artifacts/r/s/evidence.json").read_text())["stdout"] == "\0" * size


# --- the pieces are exactly json.dumps ---------------------------------------------------------------

_TEXTS = ["", "plain", "\0\x1f\"\\/\n", "\ufffd" * 70_000, "\U0001f600é\ud800" * 30_000, "x" * (64 * 1024) + "\u2028"]


@pytest.mark.parametrize("text", _TEXTS, ids=range(len(_TEXTS)))
def test_string_pieces_are_json_dumps(text):
    assert "".join(string_pieces(text)) == json.dumps(text, ensure_ascii=True)


@pytest.mark.parametrize("indent", [None, 2])
def test_object_pieces_are_json_dumps_of_a_real_record(tmp_path, indent):
    record = record_execution([PY, "-c", "print('\\u00e9' * 70000)", "a b"], step_id="s", root=tmp_path).to_json()
    assert "".join(object_pieces(record, indent=indent)) == json.dumps(record, ensure_ascii=True, indent=indent)
    assert "".join(object_pieces({}, indent=indent)) == "{}"


@pytest.mark.parametrize("text", _TEXTS, ids=range(len(_TEXTS)))
def test_streamed_hash_is_sha256_of_the_compact_array(text):
    import hashlib

    canonical = json.dumps([["a", text], text, text[::-1], None], ensure_ascii=True, separators=(",", ":"))
    assert evidence_hash(["a", text], text, text[::-1], None) == hashlib.sha256(canonical.encode("ascii")).hexdigest()
