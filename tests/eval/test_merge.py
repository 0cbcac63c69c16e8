"""`judge eval merge`: the reports of every shard of one run join into one; anything else is refused, exit 2, in
one line naming the part (issue 14): a missing or repeated shard, a report that is no shard, shards of another
split, of another set file, or judged with other settings."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from helpers.builders import diff, make_case
from helpers.eval_sets import eval_line, run_cli, write_set

LINES = ([eval_line(f"valid-{n}", make_case(), True) for n in range(6)]
         + [eval_line(f"hidden-{n}", make_case(diff("hidden_extra_file.diff")), False, "undeclared_file")
            for n in range(6)])


def _shard(folder: Path, source: Path, name: str, *flags: str) -> Path:
    out = folder / f"{name}.json"
    code = run_cli("eval", str(source), "--out", str(out), "--store", str(folder / f"{name}.sqlite"), "--no-cache",
                   *flags)
    assert code == 0, name
    return out


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real reports of `judge eval`: the three shards of one set, and parts that do not belong with them."""
    folder = tmp_path_factory.mktemp("merge")
    with pytest.MonkeyPatch.context() as patch:  # no JUDGE_* setting of the caller, no .judge/ in the checkout
        patch.chdir(folder)
        for name in [name for name in os.environ if name.startswith("JUDGE_")]:
            patch.delenv(name)
        source = write_set(folder / "set.jsonl", LINES)
        relabelled = write_set(folder / "relabelled.jsonl", LINES[:-1] + [LINES[-1].replace('"valid": false',
                                                                                           '"valid": true')])
        parts = {f"p{i}": _shard(folder, source, f"p{i}", "--shard", f"{i}/3") for i in (1, 2, 3)}
        parts["whole"] = _shard(folder, source, "whole")
        parts["half1"] = _shard(folder, source, "half1", "--shard", "1/2")
        parts["relabelled2"] = _shard(folder, relabelled, "relabelled2", "--shard", "2/3")
        parts["rules-only2"] = _shard(folder, source, "rules-only2", "--shard", "2/3", "--semantic", "off")
        parts["copy2"] = folder / "copy-of-p2.json"
        shutil.copy(parts["p2"], parts["copy2"])
        parts["source"] = source
    return parts


def _merge(capsys, tmp_path: Path, *parts: Path) -> tuple[int, str, str, Path]:
    out = tmp_path / "merged.json"
    capsys.readouterr()
    code = run_cli("eval", "merge", *map(str, parts), "--out", str(out))
    stdout, stderr = capsys.readouterr()
    return code, stdout, stderr, out


def test_every_shard_once_merges_and_keeps_the_set_files_hash(shards, tmp_path: Path, capsys) -> None:
    code, _, err, out = _merge(capsys, tmp_path, shards["p3"], shards["p1"], shards["p2"])
    assert code == 0 and err == ""
    merged = json.loads(out.read_text(encoding="utf-8"))
    assert len(merged["cases"]) == len(LINES)
    file_hash = hashlib.sha256(shards["source"].read_bytes()).hexdigest()
    parts = [json.loads(shards[f"p{i}"].read_text(encoding="utf-8")) for i in (1, 2, 3)]
    assert {part["setFileSha256"] for part in parts} == {file_hash} == {merged["setFileSha256"]}
    assert len({part["setSha256"] for part in parts}) == 3  # each shard's own cases: not what tells sets apart


def _refused(capsys, tmp_path: Path, *parts: Path) -> str:
    code, out, err, merged = _merge(capsys, tmp_path, *parts)
    assert code == 2 and out == "" and not merged.exists()
    assert len(err.splitlines()) == 1 and err.startswith("judge: ")
    return err


def test_a_missing_shard_is_refused(shards, tmp_path: Path, capsys) -> None:
    err = _refused(capsys, tmp_path, shards["p1"], shards["p3"])
    assert err.startswith("judge: shard 2/3 missing: given ")
    assert f"{shards['p1']} (1/3), {shards['p3']} (3/3)" in err


def test_a_shard_given_twice_is_refused(shards, tmp_path: Path, capsys) -> None:
    err = _refused(capsys, tmp_path, shards["p1"], shards["p2"], shards["copy2"], shards["p3"])
    assert err == f"judge: report {shards['copy2']}: shard 2/3 again (also report {shards['p2']}); give each shard once\n"


def test_a_report_that_is_no_shard_is_refused(shards, tmp_path: Path, capsys) -> None:
    err = _refused(capsys, tmp_path, shards["p1"], shards["whole"])
    assert err.startswith(f"judge: report {shards['whole']}: not a shard's report (it records no shard)")


def test_shards_of_another_split_are_refused(shards, tmp_path: Path, capsys) -> None:
    err = _refused(capsys, tmp_path, shards["p1"], shards["p2"], shards["half1"])
    assert err.startswith(f"judge: report {shards['half1']}: shard 1/2, but report {shards['p1']} is shard 1/3")


def test_a_shard_of_another_set_file_is_refused(shards, tmp_path: Path, capsys) -> None:
    """The same cases with one label changed: the merged report would mix two versions of the set."""
    err = _refused(capsys, tmp_path, shards["p1"], shards["relabelled2"], shards["p3"])
    assert err.startswith(f"judge: report {shards['relabelled2']}: of another eval set file than report "
                          f"{shards['p1']} (set file sha256 ")


def test_a_shard_judged_with_other_settings_is_refused(shards, tmp_path: Path, capsys) -> None:
    err = _refused(capsys, tmp_path, shards["p1"], shards["rules-only2"], shards["p3"])
    assert err.startswith(f"judge: report {shards['rules-only2']}: judged with other settings than report "
                          f"{shards['p1']} (semantic off vs auto)")


def test_a_report_with_an_unreadable_shard_is_refused(shards, tmp_path: Path, capsys) -> None:
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({**json.loads(shards["p2"].read_text(encoding="utf-8")), "shard": "two of three"}),
                   encoding="utf-8")
    err = _refused(capsys, tmp_path, shards["p1"], odd, shards["p3"])
    assert err.startswith(f"judge: report {odd}: its shard 'two of three' is not I/N")
