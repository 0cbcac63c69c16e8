"""Keyed execution records (judge/runs/keys.py): the evidence key file, evidenceMac, and what a key changes in a
verdict — a forged record (its unkeyed hash recomputed) is caught only when judge has a key the executor cannot read."""

from __future__ import annotations

import json
import multiprocessing
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest

import judge
from helpers.builders import run_cli
from judge.context import StepContext
from judge.contract.schema import parse_execution_evidence, parse_result, parse_step
from judge.errors import InputError
from judge.gates.prepare import GateIO, run_commands
from judge.gates.spec import gate_spec
from judge.gates.truth import RecordTrust, backing, intact
from judge.runs.artifacts import record_execution
from judge.runs.keys import (
    KEY_FILE, configured_key, evidence_mac, load_or_create_key, mac_problem, read_key, sign,
)
from judge.runs.record import evidence_hash
from judge.workspace.work_hash import work_binding
from helpers.scenario_repos import Repo, git_env  # noqa: F401  (git_env: autouse fixture)

PY = sys.executable
TESTS = [PY, "-c", "print('3 passed')"]
TESTS_TEXT = shlex.join(TESTS)
STEP = {"id": "step-1", "description": "Run the checks of the parser", "mode": "apply", "expectsNoChanges": True}
RESULT = {"mode": "apply", "success": True, "summary": "ran the checks"}
CLAIM = {"commands_run": [TESTS_TEXT], "tests_run": [TESTS_TEXT], "tests_passed": True}
# The stand-in test command above counts as one for the steps that claim it (policy test_commands)
CLAIMING = {**STEP, "policies": {"test_commands": ["python -c *"]}}


def _config(root: Path, **values) -> judge.JudgeConfig:
    return judge.JudgeConfig(semantic="off", artifacts_root=str(root), **values)


def _signed(root: Path, command=TESTS, step_id="step-1", run_id="r1"):
    """A record `judge run --root ROOT` would make: signed with ROOT's key (made on first use)."""
    return record_execution(command, step_id=step_id, root=root, run_id=run_id,
                            key=load_or_create_key(root / KEY_FILE))


def _forged(record, **changes) -> dict:
    """``record`` rewritten as a forger would: fields changed, evidenceHash recomputed, the MAC dropped."""
    data = {**record.to_json(), **changes}
    data.pop("evidenceMac", None)
    data["evidenceHash"] = evidence_hash(data["command"], data["stdout"], data["stderr"], data["exitCode"])
    return data


# --- the key file ----------------------------------------------------------------------------------


def test_a_missing_key_is_made_private_and_then_reused(tmp_path):
    path = tmp_path / "judge" / KEY_FILE
    assert read_key(path) is None
    key = load_or_create_key(path)
    info = path.stat()
    assert len(key) == 32 and stat.S_IMODE(info.st_mode) == 0o600 and stat.S_ISREG(info.st_mode)
    assert path.read_text(encoding="ascii") == key.hex() + "\n"
    assert load_or_create_key(path) == key == read_key(path)
    assert sorted(os.listdir(path.parent)) == [KEY_FILE]  # no temporary file left
    assert load_or_create_key(tmp_path / "other.key") != key


def test_the_key_is_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        load_or_create_key(tmp_path / KEY_FILE)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600


def _plant(path: Path, kind: str) -> None:
    if kind == "symlink":
        target = path.with_name("real.key")
        target.write_text("ab" * 32 + "\n")
        target.chmod(0o600)
        path.symlink_to(target)
    elif kind == "directory":
        path.mkdir()
    else:
        content, mode = {"short": ("ab" * 16 + "\n", 0o600), "long": ("ab" * 33, 0o600),
                         "not-hex": ("zz" * 32 + "\n", 0o600), "empty": ("", 0o600),
                         "group-readable": ("ab" * 32 + "\n", 0o640), "world-readable": ("ab" * 32 + "\n", 0o604),
                         "group-writable": ("ab" * 32 + "\n", 0o620)}[kind]
        path.write_text(content)
        path.chmod(mode)


@pytest.mark.parametrize("kind, message", [
    ("symlink", "is a symlink"), ("directory", "not a regular file"), ("short", "not an evidence key"),
    ("long", "not an evidence key"), ("not-hex", "not an evidence key"), ("empty", "holds 0 bytes"),
    ("group-readable", "chmod 600"), ("world-readable", "chmod 600"), ("group-writable", "chmod 600"),
])
@pytest.mark.parametrize("reader", [read_key, load_or_create_key], ids=["read", "load-or-create"])
def test_a_file_that_is_not_a_private_key_is_refused_and_left_alone(tmp_path, kind, message, reader):
    path = tmp_path / KEY_FILE
    _plant(path, kind)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(InputError, match=message) as info:
        reader(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    assert sorted(os.listdir(tmp_path)) == before


def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / KEY_FILE, 0o600)
    with pytest.raises(InputError, match="not a regular file"):
        read_key(tmp_path / KEY_FILE)


def _make_key(path: str, barrier, results) -> None:
    barrier.wait()
    results.put(load_or_create_key(path).hex())


@pytest.mark.parametrize("attempt", range(3))
def test_four_processes_making_the_key_at_once_all_get_the_one_key(tmp_path, attempt):
    context = multiprocessing.get_context("fork")
    path = str(tmp_path / "root" / KEY_FILE)
    barrier, results = context.Barrier(4), context.Queue()
    workers = [context.Process(target=_make_key, args=(path, barrier, results)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    keys = [results.get(timeout=5) for _ in workers]
    assert len(set(keys)) == 1 and keys[0] == Path(path).read_text().strip()
    assert os.listdir(Path(path).parent) == [KEY_FILE]


def test_configured_key_explicit_default_and_none(tmp_path):
    assert configured_key(None, str(tmp_path)) is None  # no file at the default place: hash checks only
    secret = load_or_create_key(tmp_path / KEY_FILE)
    found = configured_key(None, str(tmp_path))
    assert (found.path, found.secret) == (str(tmp_path / KEY_FILE), secret)
    assert secret.hex() not in repr(found)  # a traceback or a log line never shows it
    with pytest.raises(InputError, match="no such evidence key"):
        configured_key(str(tmp_path / "missing.key"), str(tmp_path))


# --- evidenceMac ---------------------------------------------------------------------------------


def test_the_mac_covers_what_happened_and_when(tmp_path):
    record = _signed(tmp_path)
    key = read_key(tmp_path / KEY_FILE)
    assert record.evidence_mac == evidence_mac(key, record) and mac_problem(key, record) is None
    for field, value in [("run_id", "r2"), ("step_id", "step-2"), ("exit_code", 1), ("timed_out", True),
                         ("error", "cannot run"), ("started_at", "2020-01-01T00:00:00Z"),
                         ("finished_at", "2020-01-01T00:00:00Z"), ("duration_seconds", 99.0),
                         ("stdout_bytes", 1), ("evidence_hash", "0" * 64)]:
        changed = record.model_copy(update={field: value})
        assert mac_problem(key, changed) == "carries an evidenceMac this key did not make", field
    assert mac_problem(bytes(32), record) is not None  # another key
    assert mac_problem(key, record.model_copy(update={"evidence_mac": None})) == "carries no evidenceMac"


def test_a_whole_duration_rewritten_as_an_integer_keeps_its_mac(tmp_path):
    # a JSON tool may write 2.0 as 2: the record says the same, so its MAC must still verify
    key = load_or_create_key(tmp_path / KEY_FILE)
    record = sign(key, record_execution(TESTS, step_id="step-1", root=tmp_path, run_id="r1")
                  .model_copy(update={"duration_seconds": 2.0}))
    assert mac_problem(key, record.model_copy(update={"duration_seconds": 2})) is None
    rewritten = parse_execution_evidence({**record.to_json(), "durationSeconds": 2})
    assert mac_problem(key, rewritten) is None


def test_an_unsigned_record_is_written_as_before_keys_existed(tmp_path):
    record = record_execution(TESTS, step_id="step-1", root=tmp_path, run_id="r1")
    written = json.loads((tmp_path / "artifacts/r1/step-1/evidence.json").read_text())
    assert record.evidence_mac is None and "evidenceMac" not in written


def test_a_signed_record_is_written_with_its_mac(tmp_path):
    record = _signed(tmp_path)
    written = json.loads((tmp_path / "artifacts/r1/step-1/evidence.json").read_text())
    assert written["evidenceMac"] == record.evidence_mac == evidence_mac(read_key(tmp_path / KEY_FILE), record)


# --- judging with a key --------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path) -> Repo:
    """The judged repository: the step checks it and changes nothing (STEP expectsNoChanges)."""
    return Repo(tmp_path / "repo", {"app.py": "x = 1\n"})


def _bound(root: Path, repo: Repo, command=TESTS, step_id="step-1", run_id="r1"):
    """A record `judge run --root ROOT --repo REPO --base BASE` would make: signed and bound to REPO's work now."""
    return record_execution(command, step_id=step_id, root=root, run_id=run_id, cwd=repo.root,
                            key=load_or_create_key(root / KEY_FILE), work=work_binding(repo.root, repo.base, step_id))


def _claimed(repo: Repo, record, root: Path, step=CLAIMING, **config) -> judge.Verdict:
    return judge.validate(step, {**RESULT, "evidence": CLAIM}, evidence=[record.to_json()],
                          workspace=judge.Workspace(str(repo.root), repo.base), config=_config(root, **config))


def test_a_record_signed_and_bound_by_judge_run_backs_the_tests_claim(tmp_path, repo):
    verdict = _claimed(repo, _bound(tmp_path, repo), tmp_path)
    assert verdict.valid, verdict.reason


def test_a_record_made_on_another_tree_state_backs_nothing(tmp_path, repo):
    """A genuine signed record made on the base tree says nothing of the work that came after it."""
    record = _bound(tmp_path, repo)
    repo.write({"app.py": "x = 'broken'\n"})
    result = {**RESULT, "patch": repo.diff(), "filesWritten": ["app.py"], "filesTouched": ["app.py"],
              "evidence": CLAIM}
    verdict = judge.validate({**CLAIMING, "expectsNoChanges": False, "description": "Set x in app.py to a string"},
                             result, evidence=[record], workspace=judge.Workspace(str(repo.root), repo.base),
                             config=_config(tmp_path))
    assert (verdict.valid, verdict.rule) == (False, "unverifiable_claim")
    assert "record made on another tree state; rerun `judge run` on this work" in verdict.reason


def test_a_record_of_another_repository_backs_nothing(tmp_path, repo):
    twin = Repo(tmp_path / "twin", {"app.py": "x = 1\n"})
    verdict = _claimed(repo, _bound(tmp_path, twin), tmp_path)
    assert verdict.rule == "unverifiable_claim" and "another repository" in verdict.reason


def test_a_record_of_an_older_judge_bound_to_nothing_backs_nothing_and_is_not_called_forged(tmp_path, repo):
    old = _signed(tmp_path)  # signed as before records were bound: genuine, but of no known tree
    verdict = _claimed(repo, old, tmp_path)
    assert verdict.rule == "unverifiable_claim" and "bound to no tree state" in verdict.reason
    assert judge.validate(STEP, RESULT, evidence=[old], config=_config(tmp_path)).valid  # not forged


def test_a_signed_record_of_a_command_that_runs_no_tests_does_not_back_a_tests_claim(tmp_path, repo):
    version = [PY, "--version"]
    text = shlex.join(version)
    claim = {"commands_run": [text], "tests_run": [text], "tests_passed": True}
    verdict = judge.validate(STEP, {**RESULT, "evidence": claim}, evidence=[_bound(tmp_path, repo, version)],
                             workspace=judge.Workspace(str(repo.root), repo.base),
                             config=_config(tmp_path, policy_overrides={"require_tests_evidence": True}))
    assert verdict.rule == "unverifiable_claim" and "is not a test command" in verdict.reason


def test_a_forged_record_is_caught_when_judge_has_a_key(tmp_path):
    honest = _signed(tmp_path, [PY, "-c", "import sys; print('1 failed'); sys.exit(1)"])
    forged = _forged(honest, stdout="3 passed\n", exitCode=0, status="SUCCESS")
    verdict = judge.validate(STEP, RESULT, evidence=[forged], config=_config(tmp_path))
    assert (verdict.valid, verdict.rule) == (False, "execution_evidence_invalid")
    assert "is not signed with this judge's evidence key" in verdict.reason
    assert str(tmp_path / KEY_FILE) in verdict.reason and f"judge run --root {tmp_path}" in verdict.reason
    assert "carries no evidenceMac" in verdict.reason


def test_a_bound_record_whose_binding_is_edited_is_caught(tmp_path, repo):
    record = _bound(tmp_path, repo).to_json()
    moved = {**record, "workHash": "0" * 64}  # retargeted at other work: the MAC covers the binding
    verdict = judge.validate(STEP, RESULT, evidence=[moved], config=_config(tmp_path))
    assert verdict.rule == "execution_evidence_invalid" and "did not make" in verdict.reason
    stripped = {k: v for k, v in record.items() if k not in ("repository", "base", "workHash")}
    assert judge.validate(STEP, RESULT, evidence=[stripped], config=_config(tmp_path)).rule == \
        "execution_evidence_invalid"


def test_a_record_signed_with_another_key_is_caught(tmp_path):
    load_or_create_key(tmp_path / KEY_FILE)
    elsewhere = _signed(tmp_path / "executor")  # the executor's own `judge run`, with its own key
    verdict = judge.validate(STEP, RESULT, evidence=[elsewhere], config=_config(tmp_path))
    assert verdict.rule == "execution_evidence_invalid" and "did not make" in verdict.reason


def test_a_forged_record_never_backs_a_tests_claim(tmp_path, repo):
    load_or_create_key(tmp_path / KEY_FILE)
    forged = _forged(record_execution(TESTS, step_id="step-1", root=tmp_path / "x", run_id="r1"))
    verdict = judge.validate(CLAIMING, {**RESULT, "evidence": CLAIM}, evidence=[forged], config=_config(tmp_path))
    assert not verdict.valid and verdict.rule == "execution_evidence_invalid"
    # and where the gates judge it themselves, the record backs nothing
    record = parse_execution_evidence(forged)
    key = read_key(tmp_path / KEY_FILE)
    assert intact(record, "step-1") and not intact(record, "step-1", key)
    found = backing(TESTS_TEXT, (record,), RecordTrust("step-1", key, None), commands_run=(TESTS_TEXT,))
    assert found.record is None and "carries no evidenceMac" in found.problem


def test_without_a_key_a_recomputed_hash_passes_the_rules_but_backs_no_claim(tmp_path, repo):
    # what an unkeyed hash proves: no edit was made by someone who did not recompute it; nothing more
    forged = _forged(record_execution(TESTS, step_id="step-1", root=tmp_path, run_id="r1"), stdout="all good\n")
    assert judge.validate(STEP, RESULT, evidence=[forged], config=_config(tmp_path)).valid
    verdict = _claimed(repo, parse_execution_evidence(forged), tmp_path)
    assert verdict.rule == "unverifiable_claim" and "judge has no evidence key" in verdict.reason


def test_a_hand_written_record_backs_no_claim_when_no_key_exists(tmp_path, repo):
    """No key file anywhere: an unsigned pytest record the executor wrote itself backs nothing."""
    record = record_execution(TESTS, step_id="step-1", root=tmp_path, run_id="r1")
    verdict = _claimed(repo, record, tmp_path)
    assert verdict.rule == "unverifiable_claim" and "accept_unsigned_records" in verdict.reason


def test_unsigned_records_back_claims_only_when_the_policy_says_so(tmp_path, repo):
    record = record_execution(TESTS, step_id="step-1", root=tmp_path, run_id="r1")
    policy = {**CLAIMING, "policies": {**CLAIMING["policies"], "accept_unsigned_records": True}}
    verdict = _claimed(repo, record, tmp_path, step=policy)
    assert verdict.valid, verdict.reason


def test_a_signed_record_verifies_without_a_key_too(tmp_path):
    record = _signed(tmp_path / "orchestrator")
    assert judge.validate(STEP, RESULT, evidence=[record], config=_config(tmp_path)).valid


@pytest.mark.parametrize("edit, problem", [
    (lambda r: {**r, "stdout": "3 passed, honestly\n"}, "does not match its evidenceHash"),
    (lambda r: {**_forged(parse_execution_evidence(r), stdout="x\n"), "evidenceMac": r["evidenceMac"]},
     "did not make"),
    (lambda r: {**r, "startedAt": "2020-01-01T00:00:00.000Z"}, "did not make"),
    (lambda r: {**r, "runId": "r-other"}, "did not make"),
], ids=["output-edited", "output-edited-hash-recomputed", "time-edited", "run-id-edited"])
def test_an_edited_signed_record_fails_its_hash_or_its_mac(tmp_path, edit, problem):
    record = _signed(tmp_path).to_json()
    verdict = judge.validate(STEP, RESULT, evidence=[edit(record)], config=_config(tmp_path))
    assert verdict.rule == "execution_evidence_invalid" and problem in verdict.reason


def test_a_bad_key_file_fails_closed_in_the_api(tmp_path):
    _plant(tmp_path / KEY_FILE, "world-readable")
    verdict = judge.validate(STEP, RESULT, config=_config(tmp_path))
    assert (verdict.valid, verdict.rule, verdict.outcome.next_action) == (False, "execution_evidence_invalid",
                                                                          "diagnose")
    assert "could not read its evidence key" in verdict.reason and "chmod 600" in verdict.reason


def test_an_explicit_key_that_does_not_exist_fails_closed(tmp_path):
    verdict = judge.validate(STEP, RESULT, config=_config(tmp_path, evidence_key=str(tmp_path / "none.key")))
    assert verdict.rule == "execution_evidence_invalid" and "no such evidence key" in verdict.reason


# --- the command line ------------------------------------------------------------------------------


def _files(tmp_path: Path, record_path: Path) -> tuple[str, str]:
    (tmp_path / "step.json").write_text(json.dumps(STEP))
    (tmp_path / "result.json").write_text(json.dumps(RESULT))
    return str(tmp_path / "step.json"), str(tmp_path / "result.json")


def test_judge_run_signs_and_binds_by_default_and_validate_checks_it(capsys, tmp_path, repo):
    root = tmp_path / "orchestrator"
    code, out, _ = run_cli(capsys, "run", "--step", "step-1", "--root", str(root), "--run-id", "r1",
                           "--repo", str(repo.root), "--base", repo.base, "--", *TESTS)
    record = json.loads(out)
    assert code == 0 and record["evidenceMac"] == evidence_mac(read_key(root / KEY_FILE),
                                                               parse_execution_evidence(record))
    assert (record["repository"], record["base"]) == (os.path.realpath(repo.root), repo.base)
    assert record["workHash"] == work_binding(repo.root, repo.base, "step-1").work_hash
    evidence = root / "artifacts/r1/step-1/evidence.json"
    (tmp_path / "step.json").write_text(json.dumps(CLAIMING))
    (tmp_path / "result.json").write_text(json.dumps({**RESULT, "evidence": CLAIM}))
    common = ["validate", "--step", str(tmp_path / "step.json"), "--result", str(tmp_path / "result.json"),
              "--repo", str(repo.root), "--base", repo.base]
    assert run_cli(capsys, *common, "--evidence", str(evidence), "--artifacts", str(root))[0] == 0
    assert run_cli(capsys, *common, "--evidence", str(evidence), "--evidence-key", str(root / KEY_FILE))[0] == 0
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(_forged(parse_execution_evidence(record))))
    code, out, _ = run_cli(capsys, *common, "--evidence", str(forged), "--artifacts", str(root))
    assert code == 1 and "not signed with this judge's evidence key" in json.loads(out)["reason"]


def test_judge_run_keeps_its_key_and_records_in_the_state_directory_by_default(capsys, tmp_path, repo, judge_state,
                                                                                monkeypatch):
    monkeypatch.chdir(repo.root)  # run from inside the repository, as an orchestrator may
    code, out, _ = run_cli(capsys, "run", "--step", "step-1", "--run-id", "r1", "--base", repo.base, "--", *TESTS)
    assert code == 0 and (judge_state / KEY_FILE).exists() and (judge_state / "artifacts/r1/step-1").is_dir()
    assert not (repo.root / ".judge").exists() and json.loads(out)["repository"] == os.path.realpath(repo.root)


@pytest.mark.parametrize("where", ["root", "key"])
def test_judge_run_refuses_its_root_or_key_inside_a_git_work_tree_and_runs_nothing(capsys, tmp_path, repo, where):
    marker = tmp_path / "ran"
    inside = repo.root / ".judge"
    flags = ["--root", str(inside)] if where == "root" else ["--evidence-key", str(inside / KEY_FILE)]
    code, out, err = run_cli(capsys, "run", "--step", "s", "--repo", str(repo.root), "--base", repo.base, *flags,
                             "--", PY, "-c", f"open({str(marker)!r}, 'w')")
    assert (code, out, len(err.splitlines())) == (2, "", 1) and "inside the git work tree" in err, err
    assert not marker.exists() and not inside.exists()


def test_judge_run_binds_the_tree_the_command_started_on_and_warns_when_the_command_changed_it(capsys, tmp_path,
                                                                                               repo):
    before = work_binding(repo.root, repo.base, "s").work_hash
    code, out, err = run_cli(capsys, "run", "--step", "s", "--repo", str(repo.root), "--base", repo.base,
                             "--root", str(tmp_path / "r"), "--", PY, "-c",
                             f"open({str(repo.root / 'app.py')!r}, 'w').write('x = 9\\n')")
    assert code == 0 and json.loads(out)["workHash"] == before != work_binding(repo.root, repo.base, "s").work_hash
    assert "the command changed the work tree" in err


def test_judge_run_needs_the_base_to_sign(capsys, tmp_path, repo):
    code, out, err = run_cli(capsys, "run", "--step", "s", "--repo", str(repo.root), "--root", str(tmp_path / "r"),
                             "--", "true")
    assert (code, out) == (2, "") and "--base: required to sign" in err and not (tmp_path / "r").exists()


def test_judge_run_no_sign_writes_an_unsigned_unbound_record_and_no_key(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "run", "--step", "s", "--root", str(tmp_path), "--no-sign", "--", *TESTS)
    written = json.loads(out)
    assert code == 0 and "evidenceMac" not in written and "workHash" not in written
    assert not (tmp_path / KEY_FILE).exists()


def test_judge_run_with_an_explicit_key(capsys, tmp_path, repo):
    key_path = tmp_path / "secure" / "judge.key"
    code, out, _ = run_cli(capsys, "run", "--step", "s", "--root", str(tmp_path / "root"), "--repo", str(repo.root),
                           "--base", repo.base, "--evidence-key", str(key_path), "--", *TESTS)
    assert code == 0 and key_path.exists() and not (tmp_path / "root" / KEY_FILE).exists()
    assert mac_problem(read_key(key_path), parse_execution_evidence(json.loads(out))) is None


@pytest.mark.parametrize("argv, message", [
    (["--step", "s", "--no-sign", "--evidence-key", "{tmp}/k"], "contradict"),
    (["--step", "s", "--repo", "{tmp}/repo", "--base", "{base}"], "chmod 600"),
    (["--step", "../up"], "path separator"),
], ids=["no-sign-and-key", "bad-key-file", "bad-step"])
def test_judge_run_bad_key_input_is_exit_2_and_runs_nothing(capsys, tmp_path, repo, argv, message):
    _plant(tmp_path / KEY_FILE, "world-readable")
    marker = tmp_path / "ran"
    argv = [a.format(tmp=tmp_path, base=repo.base) for a in argv]
    code, out, err = run_cli(capsys, "run", *argv, "--root", str(tmp_path), "--", PY, "-c", f"open({str(marker)!r}, 'w')")
    assert (code, out, len(err.splitlines())) == (2, "", 1) and message in err
    assert not marker.exists() and not (tmp_path / "artifacts").exists()


def test_judge_run_bad_input_makes_no_key(capsys, tmp_path):
    root = tmp_path / "root"
    code, _, err = run_cli(capsys, "run", "--step", "../up", "--root", str(root), "--", "true")
    assert code == 2 and not root.exists()


@pytest.mark.parametrize("flags, message", [
    (["--evidence-key", "{tmp}/missing.key"], "--evidence-key"),
    (["--artifacts", "{tmp}/bad"], "chmod 600"),
], ids=["missing-explicit-key", "world-readable-default-key"])
def test_validate_with_a_bad_key_is_exit_2_with_one_line(capsys, tmp_path, flags, message):
    (tmp_path / "bad").mkdir()
    _plant(tmp_path / "bad" / KEY_FILE, "world-readable")
    step, result = _files(tmp_path, tmp_path)
    code, out, err = run_cli(capsys, "validate", "--step", step, "--result", result,
                             *[f.format(tmp=tmp_path) for f in flags])
    assert (code, out, len(err.splitlines())) == (2, "", 1) and message in err


# --- command gates sign their own records ------------------------------------------------------------


def _gate_case(tmp_path: Path) -> tuple[Repo, dict, dict]:
    repo = Repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    repo.write({"app.py": "x = 2\n"})
    step = {"id": "step-1", "description": "Set x to 2 in app.py", "mode": "apply",
            "gates": [{"type": "command_exit_0", "parameters": {"command": TESTS_TEXT}}],
            "policies": {"enable_shell_gates": True, "shell_gate_allowlist": ["*"]}}
    result = {"mode": "apply", "success": True, "patch": repo.diff(), "filesWritten": ["app.py"],
              "filesTouched": ["app.py"], "summary": "x is 2", "evidence": {"commands_run": [TESTS_TEXT]}}
    return repo, step, result


def test_command_gates_sign_their_records_with_the_artifacts_key(tmp_path):
    repo, step, result = _gate_case(tmp_path)
    root = tmp_path / "judge"
    workspace = judge.Workspace(str(repo.root), repo.base)
    unkeyed = judge.validate(step, result, workspace=workspace, config=_config(root))
    assert unkeyed.valid and unkeyed.execution_evidence[0].evidence_mac is None  # no key: none is made mid-way
    assert read_key(root / KEY_FILE) is None
    load_or_create_key(root / KEY_FILE)  # as the first `judge run --root` would
    first = judge.validate(step, result, workspace=workspace, config=_config(root))
    assert first.valid, first.reason
    key = read_key(root / KEY_FILE)
    assert key is not None and [mac_problem(key, r) for r in first.execution_evidence] == [None]
    second = judge.validate(step, result, workspace=workspace, config=_config(root))  # now with the key checked
    assert second.valid, second.reason
    assert mac_problem(key, second.execution_evidence[0]) is None
    assert second.execution_evidence[0].run_id != first.execution_evidence[0].run_id


def test_command_gates_sign_with_the_configured_key(tmp_path):
    repo, step, result = _gate_case(tmp_path)
    key_path = tmp_path / "secure" / "judge.key"
    key = load_or_create_key(key_path)
    verdict = judge.validate(step, result, workspace=judge.Workspace(str(repo.root), repo.base),
                             config=_config(tmp_path / "judge", evidence_key=str(key_path)))
    assert verdict.valid, verdict.reason
    assert mac_problem(key, verdict.execution_evidence[0]) is None
    assert not (tmp_path / "judge" / KEY_FILE).exists()


@pytest.mark.parametrize("keyed", [True, False], ids=["with-key", "without-key"])
def test_judge_runs_the_gates_command_itself_unless_a_signed_record_of_it_is_attached(tmp_path, keyed):
    repo, step, result = _gate_case(tmp_path)
    root = tmp_path / "judge"
    if keyed:
        load_or_create_key(root / KEY_FILE)
    step_model, result_model = parse_step(step), parse_result(result)
    forged = parse_execution_evidence(_forged(record_execution(TESTS, step_id="step-1", root=tmp_path / "x",
                                                               run_id="r1")))
    facts = judge.Workspace(str(repo.root), repo.base).read("step-1", result_model.patch)
    ctx = StepContext(step_model, result_model, facts, (forged,), configured_key(None, str(root)))
    spec = gate_spec(step_model, result_model.evidence, None, (), None)
    made = run_commands(ctx, spec, (forged,), GateIO(artifacts_root=str(root)))
    assert len(made) == 1  # a forged record never saves the run: unsigned, or signed with no key judge holds


def test_a_signed_record_of_the_gates_command_is_not_run_again(tmp_path):
    repo, step, result = _gate_case(tmp_path)
    root = tmp_path / "judge"
    signed = _bound(root, repo)
    verdict = judge.validate(step, result, workspace=judge.Workspace(str(repo.root), repo.base),
                             config=_config(root), evidence=[signed])
    assert verdict.valid, verdict.reason
    assert [r.run_id for r in verdict.execution_evidence] == ["r1"]  # the attached one only: nothing was run


def test_a_signed_record_of_the_gates_command_on_another_tree_state_is_run_again(tmp_path):
    repo, step, result = _gate_case(tmp_path)
    root = tmp_path / "judge"
    repo.write({"app.py": "x = 1\n"})
    stale = _bound(root, repo)  # made on the base tree, before the change
    repo.write({"app.py": "x = 2\n"})
    verdict = judge.validate(step, result, workspace=judge.Workspace(str(repo.root), repo.base),
                             config=_config(root), evidence=[stale])
    assert verdict.valid, verdict.reason
    assert [r.run_id for r in verdict.execution_evidence][0] == "r1" and len(verdict.execution_evidence) == 2


def test_a_passing_record_does_not_outvote_judges_own_failing_run(tmp_path):
    """Without a key an attached record may be forged: judge runs the command, and its own run decides."""
    repo = Repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    repo.write({"app.py": "x = 2\n"})
    failing = [PY, "-c", "import sys; sys.exit(3)"]
    text = shlex.join(failing)
    step = {"id": "step-1", "description": "Set x to 2 in app.py", "mode": "apply",
            "gates": [{"type": "command_exit_0", "parameters": {"command": text}}],
            "policies": {"enable_shell_gates": True, "shell_gate_allowlist": ["*"]}}
    result = {"mode": "apply", "success": True, "patch": repo.diff(), "filesWritten": ["app.py"],
              "filesTouched": ["app.py"], "summary": "x is 2", "evidence": {"commands_run": [text]}}
    passing = record_execution(failing, step_id="step-1", root=tmp_path / "elsewhere", run_id="r1")
    forged = _forged(passing, exitCode=0, status="SUCCESS")
    verdict = judge.validate(step, result, workspace=judge.Workspace(str(repo.root), repo.base),
                             config=_config(tmp_path / "judge"), evidence=[forged])
    assert not verdict.valid and verdict.rule == "gate_failed", verdict.reason
    assert "exited 3" in verdict.reason
