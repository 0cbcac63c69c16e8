"""judge/evidence/ledger.py: finding an operation in an append-only JSONL ledger; corrupt lines never crash it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.errors import InputError
from judge.workspace import jsonl
from judge.workspace.ledger import read_ledger


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(data)
    return path


def _lines(*entries: object) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in entries)


@pytest.mark.parametrize("entry", [
    {"op": "close", "payload": {"commitment": "cmt_1"}},
    {"op": "close", "commitment": "cmt_1"},
    {"op": "close", "target": "cmt_1"},
    {"op": "close", "id": "cmt_1"},
    {"op": "close", "payload": {"id": "cmt_1"}},
], ids=["mentu-payload", "top-level", "target", "id", "payload-id"])
def test_operation_is_found_where_ledgers_put_the_id(tmp_path, entry):
    facts = read_ledger(_write(tmp_path, _lines({"op": "commit", "commitment": "cmt_1"}, entry)), "close", "cmt_1")
    assert (facts.found_line, facts.entries, facts.corrupt_lines) == (2, 2, ())


@pytest.mark.parametrize("entry", [
    {"op": "close", "payload": {"commitment": "cmt_2"}},
    {"op": "claim", "payload": {"commitment": "cmt_1"}},
    {"op": "CLOSE", "commitment": "cmt_1"},
    {"kind": "close", "commitment": "cmt_1"},
    {"op": "close", "payload": "cmt_1"},
], ids=["other-id", "other-op", "op-case", "no-op-key", "payload-not-object"])
def test_other_entries_do_not_count(tmp_path, entry):
    assert read_ledger(_write(tmp_path, _lines(entry)), "close", "cmt_1").found_line is None


def test_corrupt_lines_are_numbered_and_skipped(tmp_path):
    data = b'{"op": "commit"}\n{broken\n\n[1]\n"text"\n\xff\xfe\n' + _lines({"op": "close", "id": "c"})
    facts = read_ledger(_write(tmp_path, data), "close", "c")
    assert (facts.corrupt_lines, facts.found_line, facts.entries) == ((2, 4, 5, 6), 7, 2)


def test_last_line_without_newline_counts(tmp_path):
    assert read_ledger(_write(tmp_path, b'{"op": "close", "id": "c"}'), "close", "c").found_line == 1


def test_overlong_line_is_corrupt_and_read_in_bounded_pieces(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonl, "MAX_LINE", 64)
    data = b'{"op": "note", "text": "' + b"x" * 1000 + b'"}\n' + _lines({"op": "close", "id": "c"})
    facts = read_ledger(_write(tmp_path, data), "close", "c")
    assert (facts.corrupt_lines, facts.found_line) == ((1,), 2)


def test_empty_ledger(tmp_path):
    assert read_ledger(_write(tmp_path, b""), "close", "c") == read_ledger(tmp_path / "ledger.jsonl", "close", "c")


@pytest.mark.parametrize("name, match", [("missing.jsonl", "no such file"), (".", "is a directory")])
def test_unreadable_ledger_is_input_error(tmp_path, name, match):
    with pytest.raises(InputError, match=match):
        read_ledger(tmp_path / name, "close", "c")
