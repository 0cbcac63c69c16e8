"""The approvals file (judge/workspace/approvals.py) and `judge approve`: append-only, one record a line, never
through a link; a torn or corrupt line is counted, never fatal; an approval counts only for the exact work it names
and only with the MAC of the orchestrator's key."""

from __future__ import annotations

import json
import multiprocessing
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from helpers.builders import run_cli
from judge.contract.schema import parse_approval
from judge.errors import InputError
from judge.runs.keys import read_key
from judge.workspace.approvals import (
    APPROVALS_FILE, ApprovalLine, append_approval, approval_for, read_approvals, refused_approvals,
)

WORK_A = "a" * 64
WORK_B = "b" * 64
NOW = datetime(2026, 2, 7, 16, 0, 0, 123456, tzinfo=timezone.utc)
KEY = bytes(range(32))  # the orchestrator's key in these library tests; the CLI tests make theirs in the state dir
OTHER_KEY = bytes(range(1, 33))


def _approve(path, **fields):
    """append_approval signed with KEY, for WORK_A unless the test names other work."""
    return append_approval(path, **{"work": WORK_A, "key": KEY, **fields})


@pytest.fixture
def file(tmp_path: Path) -> Path:
    return tmp_path / ".judge" / "approvals.jsonl"


def _record(step_id: str = "step-1", by: str = "ana", work: str | None = None) -> bytes:
    return json.dumps({"version": 1, "stepId": step_id, "by": by, "note": None, "work": work,
                       "at": "2026-02-07T16:00:00.000Z"}).encode() + b"\n"


def test_append_then_read_round_trip(file):
    approval = _approve(file, step_id="step-1", by="Ana Lima", note="checked the diff\nline two", work=WORK_A,
                               now=NOW)
    assert file.read_bytes().count(b"\n") == 1  # the newline in the note is escaped: one record, one line
    assert parse_approval(json.loads(file.read_text(encoding="utf-8"))) == approval
    assert approval.at == "2026-02-07T16:00:00.123Z"
    facts = read_approvals(file, "step-1")
    assert (facts.path, facts.step_id, facts.approvals, facts.corrupt_lines) == (
        str(file), "step-1", (ApprovalLine(1, approval),), ())


def test_now_in_another_zone_is_written_in_utc(file):
    from datetime import timedelta

    east = datetime(2026, 2, 7, 18, 0, tzinfo=timezone(timedelta(hours=2)))
    assert _approve(file, step_id="s", by="ana", now=east).at == "2026-02-07T16:00:00.000Z"


def test_several_steps_in_one_file_each_read_in_file_order(file):
    first = _approve(file, step_id="step-1", by="ana", now=NOW)
    _approve(file, step_id="step-2", by="bo", now=NOW)
    third = _approve(file, step_id="step-1", by="cy", work=WORK_B, now=NOW)
    assert read_approvals(file, "step-1").approvals == (ApprovalLine(1, first), ApprovalLine(3, third))
    assert [line.line for line in read_approvals(file, "step-2").approvals] == [2]
    assert read_approvals(file, "step-3").approvals == ()


def test_a_torn_last_line_is_left_alone_and_the_new_record_gets_its_own_line(file):
    file.parent.mkdir(parents=True)
    file.write_bytes(_record(by="old") + b'{"version": 1, "stepId": "step-1", "by": "to')
    approval = _approve(file, step_id="step-1", by="new", now=NOW)
    facts = read_approvals(file, "step-1")
    assert [(line.line, line.approval.by) for line in facts.approvals] == [(1, "old"), (3, "new")]
    assert facts.approvals[-1].approval == approval
    assert facts.corrupt_lines == (2,)


def test_corrupt_lines_are_counted_with_their_numbers_and_skipped(file):
    file.parent.mkdir(parents=True)
    file.write_bytes(b"".join([
        b"not json\n",
        _record(),
        b"[1, 2]\n",
        b"\n",  # blank: not a record, not corrupt either
        json.dumps({"version": 1, "stepId": "step-1", "by": "", "at": "2026-02-07T16:00:00Z"}).encode() + b"\n",
        json.dumps({"version": 2, "stepId": "step-1", "by": "x", "at": "2026-02-07T16:00:00Z"}).encode() + b"\n",
        b'{"version": 1, "stepId": "step-1", "by": "x", "at": "2026-02-07T16:00:00Z", "extra": 1}\n',
        b"\xff\xfe\n",
        _record(by="bo"),
    ]))
    facts = read_approvals(file, "step-1")
    assert facts.corrupt_lines == (1, 3, 5, 6, 7, 8)
    assert [(line.line, line.approval.by) for line in facts.approvals] == [(2, "ana"), (9, "bo")]


def test_an_overlong_line_is_corrupt(file, monkeypatch):
    from judge.workspace import jsonl

    monkeypatch.setattr(jsonl, "MAX_LINE", 200)
    file.parent.mkdir(parents=True)
    file.write_bytes(b'{"note": "' + b"x" * 1000 + b'"}\n' + _record())
    facts = read_approvals(file, "step-1")
    assert (facts.corrupt_lines, [line.line for line in facts.approvals]) == ((1,), [2])


def test_a_missing_file_holds_no_approvals(tmp_path):
    facts = read_approvals(tmp_path / "nowhere" / "approvals.jsonl", "step-1")
    assert (facts.approvals, facts.corrupt_lines) == ((), ())


def test_a_symlink_at_the_file_is_refused_on_append_and_read_and_its_target_untouched(tmp_path):
    target = tmp_path / "target.jsonl"
    target.write_bytes(_record())
    link = tmp_path / "approvals.jsonl"
    link.symlink_to(target)
    for attempt in (lambda: _approve(link, step_id="step-1", by="ana"),
                    lambda: read_approvals(link, "step-1")):
        with pytest.raises(InputError) as error:
            attempt()
        assert error.value.field == "approvals" and "symbolic link" in str(error.value)
        assert len(str(error.value).splitlines()) == 1
    assert target.read_bytes() == _record()


def test_a_dangling_symlink_is_refused_and_nothing_is_created(tmp_path):
    link = tmp_path / "approvals.jsonl"
    link.symlink_to(tmp_path / "created.jsonl")
    with pytest.raises(InputError, match="symbolic link"):
        _approve(link, step_id="step-1", by="ana")
    assert not (tmp_path / "created.jsonl").exists()


def test_a_directory_is_refused_on_append_and_read(tmp_path):
    for attempt in (lambda: _approve(tmp_path, step_id="step-1", by="ana"),
                    lambda: read_approvals(tmp_path, "step-1")):
        with pytest.raises(InputError, match="is a directory") as error:
            attempt()
        assert error.value.field == "approvals"


def test_a_fifo_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "approvals.jsonl"
    os.mkfifo(fifo)
    for attempt in (lambda: _approve(fifo, step_id="step-1", by="ana"),
                    lambda: read_approvals(fifo, "step-1")):
        with pytest.raises(InputError, match="not a plain file"):
            attempt()


def test_an_unreadable_file_is_an_input_error(file):
    if os.geteuid() == 0:
        pytest.skip("root reads any file")
    file.parent.mkdir(parents=True)
    file.write_bytes(_record())
    file.chmod(0)
    with pytest.raises(InputError, match="cannot read it") as error:
        read_approvals(file, "step-1")
    assert error.value.field == "approvals"


def test_a_file_in_the_way_of_the_directory_is_an_input_error(tmp_path):
    (tmp_path / "plain").write_bytes(b"")
    for attempt, says in ((lambda: _approve(tmp_path / "plain" / "a.jsonl", step_id="s", by="ana"),
                           "cannot create its directory"),
                          (lambda: read_approvals(tmp_path / "plain" / "a.jsonl", "s"), "cannot read it")):
        with pytest.raises(InputError, match=says) as error:
            attempt()
        assert error.value.field == "approvals"


def test_a_new_file_and_its_directories_are_created_with_mode_0644(tmp_path):
    file = tmp_path / "a" / "b" / "approvals.jsonl"
    old = os.umask(0o022)
    try:
        _approve(file, step_id="step-1", by="ana")
    finally:
        os.umask(old)
    assert file.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("inputs, field", [
    ({"by": ""}, "by"),
    ({"by": " \t"}, "by"),
    ({"by": "b" * 201}, "by"),
    ({"by": None}, "by"),
    ({"step_id": ""}, "step_id"),
    ({"step_id": "s" * 201}, "step_id"),
    ({"step_id": 7}, "step_id"),
    ({"note": "n" * 10_001}, "note"),
    ({"by": "\udcff"}, "by"),  # a lone surrogate cannot be written as UTF-8
    ({"work": "A" * 64}, "work"),
    ({"work": "a" * 63}, "work"),
    ({"work": "a" * 64 + "\n"}, "work"),
    ({"work": 5}, "work"),
    ({"work": None}, "work"),
])
def test_bad_input_is_an_input_error_naming_the_field_and_nothing_is_written(file, inputs, field):
    with pytest.raises(InputError) as error:
        _approve(file, **{"step_id": "step-1", "by": "ana", **inputs})
    assert error.value.field == field and len(str(error.value).splitlines()) == 1
    assert not file.exists()


def test_an_approval_without_work_approves_nothing(file):
    """An executor appends `work: null` to approve whatever it left: that approves nothing, signed or not."""
    file.parent.mkdir(parents=True)
    file.write_bytes(_record())
    facts = read_approvals(file, "step-1")
    assert approval_for(facts, WORK_A, KEY) is None
    assert [line.line for line in refused_approvals(facts, KEY)] == [1]


def test_an_approval_covers_only_the_work_it_names(file):
    _approve(file, step_id="step-1", by="ana", work=WORK_A, now=NOW)
    facts = read_approvals(file, "step-1")
    assert approval_for(facts, WORK_A, KEY).work == WORK_A
    assert approval_for(facts, WORK_B, KEY) is None
    assert refused_approvals(facts, KEY) == ()


def test_an_approval_without_the_keys_mac_approves_nothing(file):
    """A line appended by hand (the executor can write the file) names the work but cannot carry the MAC."""
    file.parent.mkdir(parents=True)
    file.write_bytes(_record(work=WORK_A))
    _approve(file, step_id="step-1", by="bo", work=WORK_A, key=OTHER_KEY, now=NOW)
    facts = read_approvals(file, "step-1")
    assert approval_for(facts, WORK_A, KEY) is None
    assert [line.line for line in refused_approvals(facts, KEY)] == [1, 2]


def test_an_edited_approval_approves_nothing(file):
    _approve(file, step_id="step-1", by="ana", work=WORK_A, now=NOW)
    line = json.loads(file.read_text(encoding="utf-8"))
    file.write_text(json.dumps({**line, "work": WORK_B}) + "\n", encoding="utf-8")  # moved to other work
    facts = read_approvals(file, "step-1")
    assert approval_for(facts, WORK_B, KEY) is None and approval_for(facts, WORK_A, KEY) is None


def test_without_a_key_no_approval_counts(file):
    _approve(file, step_id="step-1", by="ana", work=WORK_A, now=NOW)
    facts = read_approvals(file, "step-1")
    assert approval_for(facts, WORK_A, None) is None
    assert len(refused_approvals(facts, None)) == 1


def test_approval_for_takes_the_first_that_covers(file):
    _approve(file, step_id="step-1", by="ana", work=WORK_B, now=NOW)
    _approve(file, step_id="step-1", by="bo", work=WORK_A, key=OTHER_KEY, now=NOW)
    _approve(file, step_id="step-1", by="cy", work=WORK_A, now=NOW)
    _approve(file, step_id="step-1", by="dan", work=WORK_A, now=NOW)
    facts = read_approvals(file, "step-1")
    assert approval_for(facts, WORK_A, KEY).by == "cy"
    assert approval_for(facts, WORK_B, KEY).by == "ana"
    assert approval_for(read_approvals(file, "step-2"), WORK_A, KEY) is None


def _append_many(path: str, name: str, start, count: int) -> None:
    start.wait()
    for _ in range(count):
        # A long note: a write split in two would leave a line that is not a record.
        _approve(path, step_id="step-1", by=name, note=name * 9_000)


def test_concurrent_appends_from_8_processes_give_intact_lines(file):
    context = multiprocessing.get_context("fork")
    start = context.Barrier(8)
    workers = [context.Process(target=_append_many, args=(str(file), chr(ord("a") + n), start, 20)) for n in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0] * 8
    facts = read_approvals(file, "step-1")
    assert facts.corrupt_lines == ()
    # A writer that reads the file's end while another's write is under way may see it torn and start with a
    # newline: a blank line, harmless, never a broken record.
    assert len([line for line in file.read_bytes().splitlines() if line]) == len(facts.approvals) == 160
    assert all(line.approval.note == line.approval.by * 9_000 for line in facts.approvals)
    assert sorted({line.approval.by for line in facts.approvals}) == list("abcdefgh")


# --- judge approve --------------------------------------------------------------------------------


def test_cli_appends_and_prints_the_record_signed_with_the_state_directorys_key(capsys, file, judge_state):
    code, out, err = run_cli(capsys, "approve", "step-1", "--by", "ana", "--note", "looked", "--work", WORK_A,
                             "--approvals", str(file))
    assert code == 0
    record = json.loads(out)
    assert {k: v for k, v in record.items() if k not in ("at", "mac")} == {
        "version": 1, "stepId": "step-1", "by": "ana", "note": "looked", "work": WORK_A}
    assert err == f"judge: approved step step-1 by ana; appended to {file}\n"
    facts = read_approvals(file, "step-1")
    assert facts.approvals[0].approval == parse_approval(record)
    key = read_key(judge_state / "evidence.key")  # made by `judge approve`, 0600, in the state directory
    assert (judge_state / "evidence.key").stat().st_mode & 0o777 == 0o600
    assert approval_for(facts, WORK_A, key).by == "ana"


def test_cli_default_file_is_in_the_state_directory(capsys, tmp_path, monkeypatch, judge_state):
    monkeypatch.chdir(tmp_path)
    code, _, _ = run_cli(capsys, "approve", "step-1", "--by", "ana", "--work", WORK_A)
    assert code == 0
    assert not (tmp_path / ".judge").exists()
    assert [line.approval.by for line in read_approvals(judge_state / APPROVALS_FILE, "step-1").approvals] == ["ana"]


def test_cli_without_work_is_a_usage_error(capsys, file):
    _usage_error(*run_cli(capsys, "approve", "step-1", "--by", "ana", "--approvals", str(file)))
    assert not file.exists()


def test_cli_refuses_a_key_inside_a_git_work_tree(capsys, file, tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    err = _usage_error(*run_cli(capsys, "approve", "step-1", "--by", "ana", "--work", WORK_A, "--approvals", str(file),
                                "--evidence-key", str(tmp_path / "repo" / "evidence.key")))
    assert "inside the git work tree" in err and not (tmp_path / "repo" / "evidence.key").exists()


def test_cli_keeps_its_stderr_line_one_line(capsys, file):
    code, _, err = run_cli(capsys, "approve", "step\n1", "--by", "ana\nbo", "--work", WORK_A,
                           "--approvals", str(file))
    assert code == 0 and len(err.splitlines()) == 1


def _usage_error(code: int, out: str, err: str) -> str:
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and err.startswith("judge: "), err
    return err


@pytest.mark.parametrize("flags, says", [
    (["--by", "", "--work", WORK_A], "judge: --by: empty"),
    (["--by", "ana", "--work", "ABC"], "judge: --work 'ABC': not a sha256"),
    (["--by", "ana", "--work", WORK_A, "--note", "n" * 10_001],
     "judge: --note: must be a string of 0 to 10000 characters"),
])
def test_cli_bad_input_is_exit_2_and_one_line(capsys, file, flags, says):
    err = _usage_error(*run_cli(capsys, "approve", "step-1", *flags, "--approvals", str(file)))
    assert err.startswith(says)
    assert not file.exists()


def test_cli_names_the_step_id_as_its_positional_argument(capsys, file):
    err = _usage_error(*run_cli(capsys, "approve", "s" * 201, "--by", "ana", "--work", WORK_A, "--approvals", str(file)))
    assert err.startswith("judge: STEP_ID: must be a string of 1 to 200 characters")


def test_cli_refuses_a_symlink_and_leaves_its_target_untouched(capsys, tmp_path):
    target = tmp_path / "target.jsonl"
    target.write_bytes(b"")
    (tmp_path / "approvals.jsonl").symlink_to(target)
    err = _usage_error(*run_cli(capsys, "approve", "step-1", "--by", "ana", "--work", WORK_A,
                                "--approvals", str(tmp_path / "approvals.jsonl")))
    assert "--approvals" in err and "symbolic link" in err
    assert target.read_bytes() == b""


def test_cli_without_by_is_a_usage_error(capsys, file):
    _usage_error(*run_cli(capsys, "approve", "step-1", "--work", WORK_A, "--approvals", str(file)))
