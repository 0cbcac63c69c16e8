"""Benchmark of judge's workspace check on a large repository, with `git status` as the yardstick.

    python bench/bench_workspace.py [--files N] [--changed C] [--repeat R] [--profile] [--json FILE] [--keep]

Issue 9's target: a workspace check of a repository of 10,000 files with a 20-file change takes
<= 0.5 s, against `git status` on the same repository as the yardstick.

Setup (untimed, deterministic: seeded content, fixed names, dates and mtimes): a git repository
in a temporary directory with ``--files`` tracked files (default 10,000: ~100 nested directories
of ~100 Python-like modules, 1-5 KB each) and a .gitignore whose patterns hide ~600 more files
(a build/ tree of 500, __pycache__/*.pyc, logs, .cache/), committed as base; then a
``--changed``-file change (default 20: edits to tracked files, 2 new untracked files, 1 deleted
file) left in the work tree, and the executor's honest result for it: the patch is
`git diff base` of the work tree with the new files added (built in a throwaway copy of the
index: the repository's own index is never written after the commit, and the benchmark checks
that at the end), filesWritten and filesTouched list exactly the changed files.

Timed, ``--repeat`` runs each (median and max), after one untimed run of each (warm file cache):
1. ``judge.workspace.git.read_git_facts(root, base, patch)`` in-process: every git fact judge reads.
2. ``judge.validate(step, result, workspace=Workspace(repo=root, base=base))`` in-process, no model
   configured (deterministic only); the target applies to this figure.
3. ``judge validate --step S --result R --repo DIR --base SHA`` as a subprocess (cold start
   included), and the peak RSS of that process tree (one more run, under a wrapper that reads
   RUSAGE_CHILDREN: the largest of judge and the git processes it runs).
4. ``git status --porcelain=v2 --untracked-files=all`` (GIT_OPTIONAL_LOCKS=0), the yardstick.
Each figure is also printed as a ratio to (4) from the same run: compare ratios, not seconds,
across machines. Every git command (setup, judge's, the yardstick) runs with no global or system
git config (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM=1) and no JUDGE_* variables.

Targets are printed next to the figures, never asserted: the exit code is 0 unless the built
result is not judged valid (then 1, with the verdict's reason) or the setup or judge does not
behave as the benchmark assumes, e.g. the repository's index changed (then 2).
``--profile`` runs cProfile over (1) and prints the top 25 entries by cumulative time.
Standard library + judge only.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import hashlib
import io
import json
import math
import os
import platform
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import judge  # noqa: E402
from judge.workspace.git import read_git_facts  # noqa: E402
from bench_deterministic import WORDS, judge_command  # noqa: E402  (the 5 MB patch's vocabulary; the CLI to run)

TARGET_SECONDS = 0.5
SEED = 20240909
# 2023-11-14: every built file gets this mtime before `git add`, so no index entry is "racily clean"
# (an entry as new as the index is re-hashed by every `git status` that may not write the index back).
FIXED_MTIME = 1_700_000_000
FIXED_DATE = "2023-11-14T22:13:20+00:00"
GITIGNORE = "build/\ndist/\n__pycache__/\n*.py[cod]\n*.log\n.cache/\n*.egg-info/\n"
IGNORED_BUILD_FILES = 500
STEP_ID = "step-1"


class BenchError(Exception):
    """The setup or judge did not behave as the benchmark assumes: its figures would mean nothing."""


class NotValid(Exception):
    """The honest result was not judged valid: the message is the verdict's reason."""


# --------------------------------------------------------------------------- environment


def clean_git_environment() -> None:
    """The same git and judge configuration for the setup, judge and the yardstick: none from the machine."""
    for name in list(os.environ):
        if name.startswith("JUDGE_") or name in (
            "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
            "GIT_EXTERNAL_DIFF", "GIT_DIFF_OPTS", "GIT_PAGER",
        ):
            del os.environ[name]
    os.environ.update({
        "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "Bench Author", "GIT_AUTHOR_EMAIL": "author@bench.invalid", "GIT_AUTHOR_DATE": FIXED_DATE,
        "GIT_COMMITTER_NAME": "Bench Committer", "GIT_COMMITTER_EMAIL": "committer@bench.invalid",
        "GIT_COMMITTER_DATE": FIXED_DATE,
        # No background `gc --auto` after building 10,000 objects: it would repack under the timed runs.
        "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "gc.auto", "GIT_CONFIG_VALUE_0": "0",
    })
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, env={**os.environ, **(env or {})})
    if proc.returncode != 0:
        raise BenchError(f"git {' '.join(args[:3])} failed: {proc.stderr.decode(errors='replace').strip()[:300]}")
    return proc.stdout


# --------------------------------------------------------------------------- the repository

_BODY = [
    "    value_{n} = request.get(\"{w}\", {k})",
    "    result = compute_{w}(value, retries={k}, strict=True)",
    "    logger.debug(\"{w} %s took %.1f ms\", key_{n}, elapsed * 1000)",
    "    total_{n} = sum(item.{w} * {k} for item in items)",
    "    cache_{n}[{k}] = build_{w}(config, limit={k})",
    "    rows = [parse_{w}(line) for line in lines if line.strip()]",
    "    # keep {w}_{n} in sync with the public API",
    "    if not {w}_{n}:",
    "        return None",
    "    with open(path_{n}, encoding=\"utf-8\") as handle:",
    "        data_{n} = json.load(handle)",
    "    for index, item in enumerate(items_{n}):",
    "        seen.add((index, item.{w}))",
    "    try:",
    "        limit = int(options[\"{w}\"])",
    "    except (KeyError, ValueError):",
    "        limit = {k}",
    "    {w}_{n} = {W}(limit=limit, timeout=timeout)",
]


def _line_pool(rng: random.Random, size: int = 4000) -> list[str]:
    pool = []
    for _ in range(size):
        word = rng.choice(WORDS)
        camel = "".join(part.capitalize() for part in word.split("_"))
        pool.append(rng.choice(_BODY).format(w=word, W=camel, n=rng.randrange(1000), k=rng.randrange(1, 500)))
    return pool


def module_text(rng: random.Random, pool: list[str], path: str) -> str:
    """A Python-like module of 1-5 KB: a docstring naming it, imports, a few functions."""
    out = [f'"""{path}: generated for bench_workspace."""', "", "import json", "import logging", "",
           "logger = logging.getLogger(__name__)", ""]
    target = rng.randint(1000, 5000)
    size = sum(len(line) + 1 for line in out)
    while size < target:
        word = rng.choice(WORDS)
        lines = ["", f"def handle_{word}_{rng.randrange(10000)}(request, items, limit={rng.randrange(1, 500)}):",
                 *rng.choices(pool, k=rng.randint(4, 14)), f"    return {word}_{rng.randrange(1000)}"]
        out.extend(lines)
        size += sum(len(line) + 1 for line in lines)
    return "\n".join(out) + "\n"


@dataclasses.dataclass
class Repo:
    root: Path
    base: str
    tracked: int
    ignored: int
    bytes: int
    edited: list[str]
    added: list[str]
    deleted: list[str]
    index_digest: str

    @property
    def changed(self) -> list[str]:
        return sorted(self.edited + self.added + self.deleted)


def build_repository(root: Path, files: int, changed: int, ignored_build: int, seed: int) -> Repo:
    """The base commit of ``files`` tracked files, then a ``changed``-file change left in the work tree."""
    if files < 10:
        raise BenchError("--files must be at least 10")
    if not 1 <= changed <= files // 2:
        raise BenchError("--changed must be between 1 and half of --files")
    rng = random.Random(seed)
    pool = _line_pool(rng)
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")

    fixed = {".gitignore": GITIGNORE,
             "README.md": "# bench repository\n\nGenerated by bench/bench_workspace.py.\n",
             "pyproject.toml": '[project]\nname = "bench-repository"\nversion = "0.0.0"\n'}
    modules = files - len(fixed)
    leaves = max(1, round(modules / 100))
    per_top = max(1, math.ceil(leaves / max(1, round(math.sqrt(leaves)))))
    dirs = [f"src/pkg_{i // per_top:02d}/sub_{i % per_top:02d}" for i in range(leaves)]
    paths = [f"{dirs[j % leaves]}/module_{j // leaves:03d}.py" for j in range(modules)]
    written: list[Path] = []
    total = 0

    def write(relative: str, text: str | bytes) -> None:
        nonlocal total
        location = root / relative
        location.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8") if isinstance(text, str) else text
        location.write_bytes(data)
        written.append(location)
        total += len(data)

    for relative, text in fixed.items():
        write(relative, text)
    for relative in paths:
        write(relative, module_text(rng, pool, relative))
    tracked_bytes = total

    ignored = 0
    for i in range(ignored_build):  # build/: a copy-like tree of compiled output
        write(f"build/lib/pkg_{i % 10:02d}/gen_{i:04d}.py", module_text(rng, pool, f"build/gen_{i:04d}.py")[:1500])
        ignored += 1
    for leaf in dirs[:20]:
        for k in range(5):
            write(f"{leaf}/__pycache__/module_{k:03d}.cpython-311.pyc", rng.randbytes(rng.randint(500, 3000)))
            ignored += 1
    for relative in ("app.log", "debug.log", "src/pkg_00/worker.log"):
        write(relative, "".join(f"INFO {rng.choice(WORDS)} {n}\n" for n in range(50)))
        ignored += 1
    for k in range(10):
        write(f".cache/entry_{k:02d}.bin", rng.randbytes(1024))
        ignored += 1
    for location in written:
        os.utime(location, (FIXED_MTIME, FIXED_MTIME))

    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD").decode().strip()
    listed = git(root, "ls-files", "-z").count(b"\0")
    if listed != files:
        raise BenchError(f"the base commit tracks {listed} files, not {files}: a .gitignore pattern caught some")

    # The change: edits, then new files, then one deletion, picked from the modules (seeded).
    deleted_count = 1 if changed >= 3 else 0
    added_count = min(2, changed - 1 - deleted_count)
    edited_count = changed - added_count - deleted_count
    picked = rng.sample(paths, edited_count + deleted_count)
    edited, deleted = sorted(picked[:edited_count]), sorted(picked[edited_count:])
    for relative in edited:
        location = root / relative
        lines = location.read_text(encoding="utf-8").split("\n")
        at = next(i for i, line in enumerate(lines) if line.startswith("def "))
        lines[at + 1:at + 1] = ["    if limit is None or limit < 1:",
                                f"        raise ValueError(\"{relative}: limit must be a positive integer\")"]
        lines[-3] = f"    limit = min(limit, {rng.randrange(10, 100)})"  # a body line becomes real code
        location.write_text("\n".join(lines), encoding="utf-8")
    added = []
    for k in range(added_count):
        relative = f"{rng.choice(dirs)}/helpers_{k}.py"
        (root / relative).write_text(module_text(rng, pool, relative), encoding="utf-8")
        added.append(relative)
    for relative in deleted:
        (root / relative).unlink()
    index = root / ".git" / "index"
    return Repo(root, base, files, ignored, tracked_bytes, edited, sorted(added), deleted, _digest(index))


def _digest(index: Path) -> str:
    stat = index.stat()
    return f"{hashlib.sha256(index.read_bytes()).hexdigest()} {stat.st_mtime_ns} {stat.st_size}"


def claimed_patch(repo: Repo, scratch: Path) -> str:
    """The honest patch: `git diff base` of the work tree, new files included (intent-to-add in an index copy)."""
    index_copy = scratch / "index-copy"
    shutil.copyfile(repo.root / ".git" / "index", index_copy)
    env = {"GIT_INDEX_FILE": str(index_copy)}
    if repo.added:
        git(repo.root, "add", "-N", "--", *repo.added, env=env)
    patch = git(repo.root, "diff", "--binary", "--no-renames", "--no-color", "--no-ext-diff", repo.base, env=env)
    index_copy.unlink()
    return patch.decode("utf-8")


def honest_case(repo: Repo, patch: str) -> tuple[dict, dict]:
    step = {"id": STEP_ID, "mode": "apply",
            "description": "Validate the limit argument of the service handlers, add two helper modules "
                           "and remove an unused module"}
    result = {"mode": "apply", "success": True, "patch": patch, "filesWritten": repo.changed,
              "filesTouched": repo.changed,
              "summary": f"{len(repo.edited)} handlers reject a missing or non-positive limit; "
                         f"{len(repo.added)} helper modules added; {len(repo.deleted)} unused module removed"}
    return step, result


# --------------------------------------------------------------------------- timing


def timed(run: Callable[[], Any], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


def child_environment() -> dict[str, str]:
    """The CLI imports the judge this benchmark measures in-process (this checkout, not another install)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    here = subprocess.run([sys.executable, "-c", "import judge; print(judge.__file__)"], capture_output=True,
                          text=True, env=env, check=True).stdout.strip()
    if Path(here).resolve() != Path(judge.__file__).resolve():
        raise BenchError(f"the CLI would import {here}, not {judge.__file__}")
    return env


# Runs one command and reports its returncode and the max RSS of its process tree (RUSAGE_CHILDREN:
# the largest of the command and every descendant it waited for; this wrapper has no other child).
_RSS_WRAPPER = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
    "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def cli_maxrss(argv: list[str], env: dict[str, str], cwd: Path) -> int:
    proc = subprocess.run([sys.executable, "-c", _RSS_WRAPPER, *argv], capture_output=True, text=True, env=env,
                          cwd=cwd, check=True)
    rc, maxrss = (int(x) for x in proc.stdout.split())
    if rc != 0:
        raise BenchError(f"`judge validate` exited {rc} under the RSS wrapper")
    return maxrss if sys.platform == "darwin" else maxrss * 1024  # Linux/BSD: KiB; macOS: bytes


def run_cli(argv: list[str], env: dict[str, str], cwd: Path) -> None:
    proc = subprocess.run(argv, capture_output=True, env=env, cwd=cwd)
    if proc.returncode != 0:
        out = proc.stdout.decode(errors="replace").strip() or proc.stderr.decode(errors="replace").strip()
        raise NotValid(f"`judge validate` exited {proc.returncode}: {out[-600:]}")


def git_status(root: Path) -> None:
    proc = subprocess.run(["git", "-C", str(root), "status", "--porcelain=v2", "--untracked-files=all"],
                          capture_output=True, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    if proc.returncode != 0:
        raise BenchError(f"git status failed: {proc.stderr.decode(errors='replace')[:300]}")


# --------------------------------------------------------------------------- facts


def facts_summary(facts: Any) -> str:
    """Every field of the GitFacts as read: tuples by their length, the rest as short values (any new field shows)."""
    if dataclasses.is_dataclass(facts):
        items = [(f.name, getattr(facts, f.name)) for f in dataclasses.fields(facts)]
    elif hasattr(facts, "_asdict"):  # a NamedTuple
        items = list(facts._asdict().items())
    else:
        names = getattr(facts, "__dict__", None) or [n for n in getattr(type(facts), "__slots__", ())]
        items = [(n, getattr(facts, n)) for n in names if not n.startswith("_")]
    parts = []
    for name, value in items:
        if name in ("root", "base", "head"):
            continue
        if isinstance(value, (tuple, list, set, frozenset, dict)):
            parts.append(f"{name} {len(value)}")
        else:
            text = repr(value)
            parts.append(f"{name} {text[:60] + '...' if len(text) > 60 else text}")
    return ", ".join(parts)


def check_facts(facts: Any, repo: Repo) -> None:
    """The facts see exactly the change that was made, and the patch applies; BenchError otherwise."""
    changed = getattr(facts, "changed", None)
    if changed is not None and sorted(changed) != repo.changed:
        extra = sorted(set(changed) - set(repo.changed))[:5]
        missing = sorted(set(repo.changed) - set(changed))[:5]
        raise BenchError(f"read_git_facts sees a different change: extra {extra}, missing {missing}")
    patch_error = getattr(facts, "patch_error", None)
    if patch_error is not None:
        raise BenchError(f"read_git_facts says the honest patch does not apply: {patch_error}")


def profile_facts(root: Path, base: str, patch: str, top: int = 25) -> str:
    """cProfile of one read_git_facts, by cumulative time, then the subprocesses it ran, each with its wall time.

    A subprocess's own work is invisible to cProfile (it shows as time in poll/wait), so subprocess.run
    is wrapped from outside for this run: judge/ is not modified, and a reader that runs none lists none.
    """
    spawned: list[tuple[float, list[str]]] = []
    original = subprocess.run

    def traced(argv: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(argv, *args, **kwargs)
        finally:
            spawned.append((time.perf_counter() - start, [str(a) for a in argv] if isinstance(argv, list) else [str(argv)]))

    profiler = cProfile.Profile()
    subprocess.run = traced  # type: ignore[assignment]
    try:
        profiler.enable()
        read_git_facts(root, base, patch)
        profiler.disable()
    finally:
        subprocess.run = original  # type: ignore[assignment]
    stream = io.StringIO()
    pstats.Stats(profiler, stream=stream).sort_stats("cumulative").print_stats(top)
    lines = stream.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
    head = next((line.strip() for line in lines if "function calls" in line), "")
    out = [head, *(line for line in lines[start:] if line.strip())]
    out.append(f"\nsubprocesses run by read_git_facts: {len(spawned)}, {sum(t for t, _ in spawned):.3f} s in all")
    for seconds, argv in spawned:
        shown = " ".join(_without_config(argv)).replace(str(root), "<repo>")
        out.append(f"  {seconds:7.3f} s  {shown[:110]}")
    return "\n".join(out)


def _without_config(argv: list[str]) -> list[str]:
    """argv less its `-c key=value` pairs and `-C dir` (the safety settings judge passes to every git)."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("-c", "-C"):
            skip = True
        else:
            out.append(arg)
    return out


# --------------------------------------------------------------------------- main


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def _git_version() -> str:
    return subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000, help="tracked files in the repository (default 10000)")
    parser.add_argument("--changed", type=int, default=20, help="files the change touches (default 20)")
    parser.add_argument("--ignored", type=int, default=IGNORED_BUILD_FILES,
                        help=f"ignored files under build/ (default {IGNORED_BUILD_FILES})")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs of each measure (default 7)")
    parser.add_argument("--seed", type=int, default=SEED, help="content seed")
    parser.add_argument("--dir", metavar="DIR", help="build the repository under DIR (default: the system temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the repository and the case files; print where")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--profile", action="store_true", help="cProfile of read_git_facts, top 25 by cumulative time")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    clean_git_environment()

    machine = {"platform": platform.platform(), "cpu_count": os.cpu_count(),
               "python": f"{platform.python_implementation()} {platform.python_version()}", "git": _git_version(),
               "judge": judge.__version__, "judge_file": judge.__file__, "loadavg_at_start": _loadavg()}
    print(f"judge {judge.__version__} workspace benchmark ({judge.__file__})")
    print(f"machine: {machine['platform']} | {machine['cpu_count']} CPUs | {machine['python']} | {machine['git']} | "
          f"load average {machine['loadavg_at_start']}")

    scratch = Path(tempfile.mkdtemp(prefix="judge-wsbench-", dir=args.dir))
    try:
        return _run(args, scratch, machine)
    finally:
        if args.keep:
            print(f"\nkept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def _run(args: argparse.Namespace, scratch: Path, machine: dict) -> int:
    started = time.perf_counter()
    repo = build_repository(scratch / "repo", args.files, args.changed, args.ignored, args.seed)
    patch = claimed_patch(repo, scratch)
    step, result = honest_case(repo, patch)
    step_path, result_path = scratch / "step.json", scratch / "result.json"
    step_path.write_text(json.dumps(step), encoding="utf-8")
    result_path.write_text(json.dumps(result), encoding="utf-8")
    if _digest(repo.root / ".git" / "index") != repo.index_digest:
        raise BenchError("building the claimed patch changed the repository's index")
    setup_seconds = time.perf_counter() - started
    print(f"repository: {repo.tracked:,} tracked files ({repo.bytes / 1024 / 1024:.1f} MiB), {repo.ignored} ignored, "
          f"base {repo.base[:12]}; built in {setup_seconds:.1f} s under {scratch}")
    print(f"change: {len(repo.edited)} edited, {len(repo.added)} new untracked, {len(repo.deleted)} deleted; "
          f"claimed patch {len(patch.encode()):,} bytes, {patch.count(chr(10)):,} lines")

    root, base = str(repo.root), repo.base
    workspace = judge.Workspace(repo=root, base=base)
    cli_env = child_environment()
    cli_argv = [*judge_command(), "validate", "--step", str(step_path), "--result", str(result_path),
                "--repo", root, "--base", base]

    # Untimed warm-up of each, which also checks what the timings rest on.
    git_status(repo.root)
    facts = read_git_facts(root, base, patch)
    check_facts(facts, repo)
    print(f"facts: {facts_summary(facts)}")
    verdict = judge.validate(step, result, workspace=workspace)
    if not verdict.valid:
        raise NotValid(f"rule {verdict.rule}: {verdict.reason}")
    run_cli(cli_argv, cli_env, scratch)

    def validate_once() -> None:
        outcome = judge.validate(step, result, workspace=workspace)
        if not outcome.valid:
            raise NotValid(f"rule {outcome.rule}: {outcome.reason}")

    repeat = args.repeat
    plan: list[tuple[str, str, Callable[[], Any]]] = [
        ("facts", "read_git_facts(root, base, patch), in-process", lambda: read_git_facts(root, base, patch)),
        ("validate", "judge.validate(..., workspace=...), in-process", validate_once),
        ("cli", "`judge validate --repo --base`, subprocess", lambda: run_cli(cli_argv, cli_env, scratch)),
        ("git_status", "`git status --porcelain=v2 --untracked-files=all`", lambda: git_status(repo.root)),
    ]
    # Interleaved (one run of each per round) so that a slow patch of the machine hits every measure alike.
    by_key: dict[str, list[float]] = {key: [] for key, _, _ in plan}
    for _ in range(repeat):
        for key, _, run in plan:
            by_key[key].extend(timed(run, 1))
    measures = [(key, name, by_key[key]) for key, name, _ in plan]
    rss = cli_maxrss(cli_argv, cli_env, scratch)
    if _digest(repo.root / ".git" / "index") != repo.index_digest:
        raise BenchError("the repository's index changed while judge and git status read it")

    yardstick = statistics.median(measures[-1][2])
    validate_median = statistics.median(measures[1][2])
    ok = validate_median <= TARGET_SECONDS
    rows = []
    for key, name, times in measures:
        median = statistics.median(times)
        ratio = "1.0x (yardstick)" if key == "git_status" else f"{median / yardstick:.1f}x"
        target = f"<= {TARGET_SECONDS:g} s  {'ok' if ok else 'MISSED'}" if key == "validate" else ""
        rows.append((name, f"{median:.3f} s", f"{max(times):.3f} s", ratio, target))
    headers = ("measure", f"median/{repeat}", "max", "vs git status", "target")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    print()
    print("  ".join(f"{h:<{w}}" for h, w in zip(headers, widths)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(f"{cell:<{w}}" for cell, w in zip(row, widths)).rstrip())
    print(f"\npeak RSS of the CLI run (largest process: judge or a git child): {rss / 1024 / 1024:.1f} MiB")
    print(f"target (issue 9): a workspace check of {repo.tracked:,} files with a {len(repo.changed)}-file change "
          f"<= {TARGET_SECONDS:g} s: judge.validate median {validate_median:.3f} s "
          f"= {validate_median / yardstick:.1f}x git status ({yardstick:.3f} s)  {'ok' if ok else 'MISSED'}")

    report: dict[str, Any] = {
        "command": " ".join(["python", "bench/bench_workspace.py", *sys.argv[1:]]),
        "machine": machine,
        "repository": {"tracked": repo.tracked, "tracked_bytes": repo.bytes, "ignored": repo.ignored,
                       "edited": len(repo.edited), "added": len(repo.added), "deleted": len(repo.deleted),
                       "patch_bytes": len(patch.encode()), "setup_seconds": round(setup_seconds, 2)},
        "facts": facts_summary(facts),
        "measures": {key: {"median_seconds": round(statistics.median(times), 4), "max_seconds": round(max(times), 4),
                           "seconds": [round(t, 4) for t in times],
                           "ratio_to_git_status": round(statistics.median(times) / yardstick, 2)}
                     for key, _, times in measures},
        "cli_maxrss_bytes": rss,
        "target": {"seconds": TARGET_SECONDS, "measure": "validate", "ok": ok},
    }
    if args.profile:
        text = profile_facts(repo.root, base, patch)
        report["profile"] = text
        print("\nprofile of read_git_facts (cProfile, top 25 by cumulative time):")
        print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"\nJSON written to {args.json}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except NotValid as exc:
        sys.stderr.write(f"bench_workspace: the honest result is not judged valid: {exc}\n")
        sys.exit(1)
    except BenchError as exc:
        sys.stderr.write(f"bench_workspace: {exc}\n")
        sys.exit(2)
