"""False rejections on real diffs: git diffs between two released versions of real packages.

    python bench/real_release_diffs.py SDIST_OLD SDIST_NEW [SDIST_OLD SDIST_NEW ...]

Get sdists with e.g. `pip download --no-deps --no-binary :all: requests==2.31.0 -d /tmp/sdists`.
Nothing of them is copied into this repository: each pair is unpacked into a
temporary git repository, and every changed file becomes one honest, valid step
(patch = that file's `git diff -M`, declared in filesWritten and filesTouched),
plus one step with the whole release diff. judge must accept all of them; the
script prints how many it rejected, by rule, and the first few reasons.
Exit code 1 when any honest step was rejected.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import judge

_ENV = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b")


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-c", "core.autocrlf=false", *args], cwd=repo, env=_ENV, check=True,
                          capture_output=True).stdout


def _unpack(sdist: Path, into: Path) -> None:
    for child in into.iterdir():
        if child.name != ".git":
            subprocess.run(["rm", "-rf", str(child)], check=True)
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            parts = Path(member.name).parts[1:]  # drop the `name-version/` top folder
            if not parts or not (member.isfile() or member.isdir()):
                continue
            target = into.joinpath(*parts)
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.extractfile(member).read())  # type: ignore[union-attr]
            if member.mode & 0o100:
                target.chmod(0o755)


def release_steps(old: Path, new: Path) -> list[tuple[str, dict, dict]]:
    """(label, step, result) for every changed file of old -> new, and one for the whole diff."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        _git(repo, "init", "-q")
        _unpack(old, repo)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", "old")
        _unpack(new, repo)
        _git(repo, "add", "-A")
        names = _git(repo, "diff", "--cached", "-M", "--name-status", "-z").split(b"\0")
        changes = _name_status(names)
        steps = []
        for status, paths in changes:
            patch = _git(repo, "diff", "--cached", "-M", "--binary", "--", *paths).decode("utf-8", "replace")
            steps.append((f"{new.name}:{paths[-1]}", *_honest_step(patch, paths, f"Update {paths[-1]} for {new.name}")))
        whole = _git(repo, "diff", "--cached", "-M").decode("utf-8", "replace")
        every = sorted({p for _, paths in changes for p in paths})
        steps.append((f"{new.name}:(whole release)", *_honest_step(whole, every, f"Upgrade to {new.name}")))
    return steps


def _name_status(fields: list[bytes]) -> list[tuple[str, list[str]]]:
    changes, i = [], 0
    while i < len(fields) and fields[i]:
        status = fields[i].decode()
        count = 2 if status[0] in "RC" else 1
        changes.append((status, [f.decode("utf-8", "replace") for f in fields[i + 1 : i + 1 + count]]))
        i += 1 + count
    return changes


def _honest_step(patch: str, paths: list[str], description: str) -> tuple[dict, dict]:
    step = {"id": "release", "description": description, "mode": "apply"}
    result = {"mode": "apply", "success": True, "patch": patch, "filesWritten": paths, "filesTouched": paths,
              "summary": description}
    return step, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdists", nargs="+", type=Path, help="pairs: OLD NEW OLD NEW ...")
    args = parser.parse_args()
    if len(args.sdists) % 2:
        parser.error("give sdists in OLD NEW pairs")
    missing = [str(p) for p in args.sdists if not p.is_file()]
    if missing:
        parser.error(f"no such sdist: {', '.join(missing)}")
    rejected: collections.Counter[str] = collections.Counter()
    examples: list[str] = []
    total = 0
    for old, new in zip(args.sdists[::2], args.sdists[1::2]):
        for label, step, result in release_steps(old, new):
            total += 1
            verdict = judge.validate(step, result)
            if not verdict.valid:
                rejected[verdict.rule or "?"] += 1
                examples.append(f"{label}: {verdict.reason[:220]}")
    bad = sum(rejected.values())
    print(f"{total} honest steps from {len(args.sdists) // 2} release pairs; rejected {bad} ({bad / max(total, 1):.2%})")
    for rule, count in rejected.most_common():
        print(f"  {rule}: {count}")
    for line in examples[:15]:
        print("  -", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
