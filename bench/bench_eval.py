"""Benchmark of `judge eval`: throughput against a loopback model, connections, the cache, memory in the set's size;
and, when they are installed, the same workload through Inspect AI and promptfoo.

    python bench/bench_eval.py [--quick] [--repeat N] [--workers N] [--json FILE]
                               [--inspect PYTHON] [--promptfoo BIN] [--profile] [--split]

A SYNTHETIC OpenAI-compatible server on 127.0.0.1 (tests/helpers/loopback.py, the tests' own) answers every
chat completion with ``{"valid": true, "reason": ...}`` after a fixed latency (200 ms) and counts the
TCP connections it accepts. The eval sets are generated: every case passes the deterministic rules
(so each needs the model) and has its own step description (so each has its own inputs hash).

1. Throughput: 1,000 and 4,000 cases, ``--concurrency 32 --no-cache``, each run ``--repeat`` times (medians
   printed): the wall time of the `judge eval` process against the ideal N x 0.2 s / 32 (6.25 s, 25 s) as a
   ratio (targets: <= 1.5x for 1,000 cases, <= 1.2x for 4,000), with its parts: process start until the
   first request, the requests themselves (first arrival to last reply; its ratio to the ideal is the
   request phase's), the rest. TCP connections the server accepted per 1,000 calls (one per model slot
   when they are kept alive). CPU of the process and its workers per case.
2. Memory: the peak RSS of the whole process tree (the parent and its workers, summed, sampled every
   20 ms from /proc) for 1,000 and for 4,000 cases; flat means a ratio close to 1, not 4.
3. Cache: 1,000 cases twice with the cache; the second run must make 0 requests.
4. Comparison (only with --inspect and/or --promptfoo, or JUDGE_BENCH_INSPECT / JUDGE_BENCH_PROMPTFOO):
   the same 1,000 calls at 32 at once against the same server, one after the other in one run of this
   script, so the ratios share one machine state: judge eval; Inspect AI (``inspect eval`` of a generated
   task: generate(), includes(), --max-connections 32); promptfoo (``promptfoo eval`` of a generated config,
   --max-concurrency 32, --no-cache, with and without --no-write). Install them outside judge's venv:
       python3 -m venv /tmp/inspect && /tmp/inspect/bin/pip install inspect-ai openai
       npm install --prefix /tmp/promptfoo promptfoo
   then --inspect /tmp/inspect/bin/python --promptfoo /tmp/promptfoo/node_modules/.bin/promptfoo.

``--quick``: 200 and 800 cases, one run each. ``--workers N``: passed to judge eval (default: its own).
``--profile``: one more 1,000-case run under cProfile (the parent, or with --workers 1 the only process).
``--split``: where the time goes, in-process: the same run with litellm.acompletion replaced by the
same 200 ms wait (judge's own cost), and litellm.acompletion's CPU per call on its own.
Targets are printed next to the figures, never asserted: the exit code is 0 unless a run fails or the
cached run makes requests (then 2). Standard library, judge and tests/helpers/loopback.py only.

Floor: beside each size, the same calls through judge.llm.client alone (bench/eval_floor.py: litellm and
judge's connection pool in as many processes as judge eval starts, nothing else), measured the same way.

Measured on the 2-CPU dev machine, --repeat 3 (medians; the floor one run), load average 0.3 before and
1.4 after (issue 14; before that session's connection-pool change, one quiet run gave 3.15x and 1.43x):
                                      1,000 cases          4,000 cases
    wall time / ideal                 2.10x (1.98-2.86)    1.42x (1.42-1.44)       targets 1.5x, 1.2x: missed
    request phase / ideal             1.32x                1.24x
    process start -> first request    4.7 s                4.0 s
    floor: wall / ideal               1.99x                1.37x
    floor: request phase; first call  1.20x; 3.8 s         1.18x; 3.3 s
    TCP connections opened            32                   32
    peak RSS, process tree            476 MiB              485 MiB (1.02x)
    cache: unchanged re-run           0 requests, 2.4 s
  the same 1,000 calls, one after the other in one run: judge eval 1.99x (request phase 1.37x), Inspect AI
  5.26x (4.15x), promptfoo 2.82x (2.17x), promptfoo --no-write 2.24x (1.75x).
The floor misses the targets itself: litellm's import (with the OpenAI SDK's resources) is 2.9-3.3 s of
CPU per process before the first call, and its call path 6-8 ms of CPU per call (two processes on two
cores: about 140 calls/s at 32 in flight, where 160/s is the ideal). httpcore's pool cost a quarter of a
call's CPU at 32 connections before judge.llm.pool split it into pools of 8.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "tests") not in sys.path:
    sys.path.append(str(ROOT / "tests"))  # the loopback model server, shared with the tests

import judge  # noqa: E402

from helpers.loopback import LoopbackServer, Reply, Request, chat  # noqa: E402

LATENCY_S = 0.2
CONCURRENCY = 32
TARGETS = {1000: 1.5, 4000: 1.2}  # ratio of the wall time to the ideal, by set size

# A small real edit that passes every deterministic rule.
PATCH = (
    "diff --git a/src/app.py b/src/app.py\n"
    "index 5fc8a70..6622486 100644\n"
    "--- a/src/app.py\n"
    "+++ b/src/app.py\n"
    "@@ -4,7 +4,10 @@ import sys\n"
    " \n"
    " \n"
    " def parse_port(value):\n"
    "-    return int(value)\n"
    "+    port = int(value)\n"
    "+    if not 1 <= port <= 65535:\n"
    "+        raise ValueError(f\"port out of range: {port}\")\n"
    "+    return port\n"
    " \n"
    " \n"
    " def main(argv):\n"
)


def _answer(index: int, request: Request) -> Reply:
    """SYNTHETIC: every request is answered valid, in the model's name it asked for."""
    requested = request.body.get("model", "bench") if isinstance(request.body, dict) else "bench"
    return _completion(requested)


def _completion(model: str) -> Reply:
    verdict = json.dumps({"valid": True, "reason": "the patch validates the port range as the step asks"})
    return chat(verdict, model=model, prompt_tokens=900, completion_tokens=20)


def write_set(path: Path, count: int) -> Path:
    """``count`` cases that pass the deterministic rules, each with its own description."""
    with path.open("w", encoding="utf-8") as handle:
        for n in range(count):
            handle.write(json.dumps(_case(n), sort_keys=True) + "\n")
    return path


def _case(n: int) -> dict:
    step = {"id": f"step-{n}", "mode": "apply",
            "description": f"Add input validation to parse_port() in src/app.py (bench case {n:05d})"}
    result = {"mode": "apply", "success": True, "patch": PATCH, "filesWritten": ["src/app.py"],
              "filesTouched": ["src/app.py"], "summary": "parse_port() now rejects ports outside 1-65535"}
    return {"id": f"valid/bench-{n:05d}", "step": step, "result": result, "expected": {"valid": True}}


# --- running a process and watching it -------------------------------------------------------------


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, ()))
    return found


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class _TreeMemory:
    """The peak of the summed RSS of a process and its descendants, sampled in a thread."""

    def __init__(self, pid: int, every: float = 0.02) -> None:
        self.pid, self.every, self.peak_kib = pid, every, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak_kib = max(self.peak_kib, sum(_rss_kib(pid) for pid in _tree(self.pid)))
            self._stop.wait(self.every)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak_kib / 1024


def run_measured(argv: list[str], model: LoopbackServer, *, env: dict[str, str] | None = None,
                 cwd: Path = ROOT) -> dict[str, Any]:
    """Run one process: wall time, its (and its children's) CPU time, peak tree RSS, the server's view."""
    model.reset()
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", PYTHONPATH=str(ROOT), **(env or {}))
    started, server_cpu = time.monotonic(), time.process_time()  # this process only serves the model meanwhile
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    memory = _TreeMemory(proc.pid)
    stderr = bytearray()
    reader = threading.Thread(target=lambda: stderr.extend(proc.stderr.read()), daemon=True)  # type: ignore
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    ended = time.monotonic()
    peak_mb = memory.stop()
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"bench: `{' '.join(argv)}` exited {proc.returncode}:\n"
                         f"{stderr.decode(errors='replace')[-2000:]}")
    return {
        "wall_s": ended - started,
        "cpu_s": usage.ru_utime + usage.ru_stime,  # with the children it waited for (the workers)
        "server_cpu_s": time.process_time() - server_cpu,
        "peak_tree_rss_mb": peak_mb,
        "maxrss_mb": usage.ru_maxrss / 1024,  # Linux: KiB; the largest single process
        "requests": model.count,
        "connections": model.connections,
        "max_in_flight": model.max_in_flight,
        "to_first_request_s": (model.first_at - started) if model.first_at else None,
        "requests_span_s": (model.last_done_at - model.first_at) if model.first_at and model.last_done_at else None,
        "after_last_reply_s": (ended - model.last_done_at) if model.last_done_at else None,
    }


# --- judge eval ------------------------------------------------------------------------------------------


def judge_eval(work: Path, cases: Path, api_base: str, name: str, *extra: str,
               profile: Path | None = None) -> list[str]:
    """The argv of `judge eval` as the console script runs it (judge.cli.main.entry)."""
    code = _PROFILED.format(out=str(profile)) if profile else "from judge.cli.main import entry; entry()"
    return [sys.executable, "-c", code, "eval", str(cases), "--concurrency", str(CONCURRENCY),
            "--model", "openai/bench", "--api-base", api_base, "--output-mode", "none",
            "--store", str(work / f"{name}.sqlite"), "--out", str(work / f"{name}.json"), *extra]


_PROFILED = ("import cProfile, sys; from judge.cli.main import main; p = cProfile.Profile(); p.enable(); rc = main(); "
             "p.disable(); p.dump_stats({out!r}); sys.exit(rc)")


def _report_check(path: Path) -> tuple[float, int, bool]:
    report = json.loads(path.read_text(encoding="utf-8"))
    cases = report["cases"]
    return report["seconds"], len(cases), all(c["valid"] and c["decidedBy"] == "semantic" for c in cases)


def throughput(work: Path, model: LoopbackServer, count: int, workers: list[str]) -> dict[str, Any]:
    """One `judge eval` run of ``count`` cases with the figures derived from it."""
    cases = work / f"set-{count}.jsonl"
    if not cases.exists():
        write_set(cases, count)
    figures = run_measured(judge_eval(work, cases, model.api_base, f"throughput-{count}", "--no-cache", *workers),
                           model)
    seconds, judged, all_semantic = _report_check(work / f"throughput-{count}.json")
    ideal = count * LATENCY_S / CONCURRENCY
    span = figures["requests_span_s"] or float("nan")
    figures.update(cases=judged, all_semantic_valid=all_semantic, ideal_s=ideal, run_seconds=seconds,
                   ratio=figures["wall_s"] / ideal, span_ratio=span / ideal,
                   cpu_ms_per_case=figures["cpu_s"] * 1000 / count,
                   connections_per_1000=figures["connections"] * 1000 / max(figures["requests"], 1))
    return figures


def repeated(work: Path, model: LoopbackServer, count: int, repeat: int, workers: list[str]) -> dict[str, Any]:
    """``repeat`` runs; every numeric figure as its median, with the runs' ratios kept."""
    runs = [throughput(work, model, count, workers) for _ in range(repeat)]
    median = {key: statistics.median(run[key] for run in runs) for key, value in runs[0].items()
              if isinstance(value, (int, float)) and not isinstance(value, bool)
              and all(run[key] is not None for run in runs)}
    median.update(all_semantic_valid=all(run["all_semantic_valid"] for run in runs),
                  runs=len(runs), ratios=[round(run["ratio"], 3) for run in runs],
                  span_ratios=[round(run["span_ratio"], 3) for run in runs])
    return median


def floor(model: LoopbackServer, count: int, workers: list[str]) -> dict[str, Any]:
    """The same calls through judge.llm.client alone (bench/eval_floor.py), in as many processes as
    `judge eval` starts: what litellm and the machine cost anyway."""
    from judge.config import JudgeConfig
    from judge.eval.worker_pool import default_workers

    processes = int(workers[1]) if workers else \
        default_workers(JudgeConfig(model="openai/bench"), count, CONCURRENCY)
    argv = [sys.executable, str(ROOT / "bench" / "eval_floor.py"), model.api_base, str(count), str(CONCURRENCY),
            str(processes)]
    figures = _compared(run_measured(argv, model), count)
    figures["processes"] = processes
    return figures


def cache_runs(work: Path, model: LoopbackServer, count: int, workers: list[str]) -> dict[str, Any]:
    cases = work / f"set-{count}.jsonl"
    cache = ["--cache", str(work / "cache.sqlite"), *workers]
    fill = run_measured(judge_eval(work, cases, model.api_base, "cache-fill", *cache), model)
    again = run_measured(judge_eval(work, cases, model.api_base, "cache-hit", *cache), model)
    report = json.loads((work / "cache-hit.json").read_text(encoding="utf-8"))
    return {"fill_requests": fill["requests"], "fill_wall_s": fill["wall_s"], "hit_requests": again["requests"],
            "hit_wall_s": again["wall_s"], "hit_all_cached": all(c["cached"] for c in report["cases"])}


def profile(work: Path, model: LoopbackServer, count: int, workers: list[str], top: int = 25) -> str:
    cases = work / f"set-{count}.jsonl"
    out = work / "eval.prof"
    run_measured(judge_eval(work, cases, model.api_base, "profile", "--no-cache", *workers, profile=out), model)
    stream = __import__("io").StringIO()
    stats = pstats.Stats(str(out), stream=stream)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return stream.getvalue()


def split(work: Path, model: LoopbackServer, count: int) -> dict[str, Any]:
    """Where a case's time goes, in this process: judge with litellm's call replaced by the same 200 ms
    wait (everything else real: rules in the thread pool, prompt, retries, parsing, SQLite), then
    litellm.acompletion alone, one call at a time, against the loopback server with no latency."""
    import asyncio

    import judge.llm.client as client
    from judge.config import JudgeConfig
    from judge.eval.cases import EvalSet
    from judge.eval.runner import run_eval
    from judge.eval.store import RunStore

    litellm = client.import_litellm()
    real = litellm.acompletion
    reply = _completion("bench").body

    async def waits(**request: Any) -> Any:
        await asyncio.sleep(LATENCY_S)
        return litellm.ModelResponse(**{k: reply[k] for k in ("id", "model", "choices", "usage")})

    config = JudgeConfig(model="openai/bench", api_base=model.api_base, output_mode="none")
    store = RunStore(work / "split.sqlite")
    litellm.acompletion = waits
    try:
        cpu, started = time.process_time(), time.monotonic()
        asyncio.run(run_eval(EvalSet(str(work / f"set-{count}.jsonl")), config, store=store,
                             run_id=store.new_run("split", {}), concurrency=CONCURRENCY))
        judge_wall, judge_cpu = time.monotonic() - started, time.process_time() - cpu
    finally:
        litellm.acompletion = real
        store.close()
    model.latency, calls = 0.0, 200
    request = client._request(litellm, config, [{"role": "user", "content": "x" * 3000}], 60)

    async def sequential() -> None:
        for _ in range(calls):
            await litellm.acompletion(**request)

    asyncio.run(sequential())  # warm: client built, lazy imports done
    cpu = time.process_time()
    asyncio.run(sequential())
    call_cpu = time.process_time() - cpu  # includes the server threads' share, which is small
    model.latency = LATENCY_S
    return {"judge_only_wall_s": judge_wall, "judge_only_ratio": judge_wall / (count * LATENCY_S / CONCURRENCY),
            "judge_only_cpu_ms_per_case": judge_cpu * 1000 / count, "litellm_call_cpu_ms": call_cpu * 1000 / calls}


# --- the same workload through Inspect AI and promptfoo ------------------------------------------------------


def _prompt(n: int) -> str:
    """About the size of judge's prompt for a bench case (its rendered messages are ~3,600 characters)."""
    case = _case(n)
    return ("You review whether a coding agent did the plan step it was asked to do. Answer with JSON "
            '{"valid": true|false, "reason": "..."}.\n\n'
            f"Step: {json.dumps(case['step'])}\n\nResult: {json.dumps(case['result'])}\n\n" + "Context. " * 250)


_INSPECT_TASK = '''
import json
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes
from inspect_ai.solver import generate


@task
def bench():
    with open({prompts!r}, encoding="utf-8") as handle:
        prompts = json.load(handle)
    return Task(dataset=[Sample(input=p, target="valid") for p in prompts], solver=generate(), scorer=includes())
'''


def inspect_run(work: Path, model: LoopbackServer, count: int, python: str) -> dict[str, Any]:
    folder = work / "inspect"
    folder.mkdir(exist_ok=True)
    prompts = folder / "prompts.json"
    prompts.write_text(json.dumps([_prompt(n) for n in range(count)]), encoding="utf-8")
    (folder / "bench_task.py").write_text(_INSPECT_TASK.format(prompts=str(prompts)), encoding="utf-8")
    inspect = str(Path(python).parent / "inspect")
    argv = [inspect, "eval", "bench_task.py", "--model", "openai/bench",
            "--model-base-url", model.api_base, "--max-connections", str(CONCURRENCY), "--log-dir",
            str(folder / "logs"), "--display", "none", "--no-fail-on-error"]
    return _compared(run_measured(argv, model, env={"OPENAI_API_KEY": "synthetic", "INSPECT_LOG_LEVEL": "warning"},
                                  cwd=folder), count)


def promptfoo_run(work: Path, model: LoopbackServer, count: int, binary: str, *extra: str) -> dict[str, Any]:
    folder = work / "promptfoo"
    folder.mkdir(exist_ok=True)
    config = {"description": "judge bench", "prompts": ["{{text}}"],
              "providers": [{"id": "openai:chat:bench", "config": {"apiBaseUrl": model.api_base,
                                                                   "apiKey": "synthetic"}}],
              "tests": [{"vars": {"text": _prompt(n)}, "assert": [{"type": "icontains", "value": "valid"}]}
                        for n in range(count)]}
    (folder / "promptfooconfig.json").write_text(json.dumps(config), encoding="utf-8")
    argv = [binary, "eval", "-c", str(folder / "promptfooconfig.json"), "--max-concurrency", str(CONCURRENCY),
            "--no-cache", "--no-progress-bar", "--no-table", *extra]
    env = {"PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1",
           "PROMPTFOO_CONFIG_DIR": str(folder / "home"), "OPENAI_API_KEY": "synthetic"}
    figures = run_measured(argv, model, env=env, cwd=folder)
    return _compared(figures, count)


def _compared(figures: dict[str, Any], count: int) -> dict[str, Any]:
    ideal = count * LATENCY_S / CONCURRENCY
    span = figures["requests_span_s"] or float("nan")
    figures.update(ideal_s=ideal, ratio=figures["wall_s"] / ideal, span_ratio=span / ideal,
                   connections_per_1000=figures["connections"] * 1000 / max(figures["requests"], 1))
    return figures


def comparison(work: Path, model: LoopbackServer, count: int, workers: list[str], inspect: str | None,
               promptfoo: str | None) -> dict[str, dict[str, Any]]:
    """The tools one after the other on the same server: one machine state for all the ratios."""
    results = {"judge eval": throughput(work, model, count, workers)}
    if inspect:
        results["Inspect AI"] = inspect_run(work, model, count, inspect)
    if promptfoo:
        results["promptfoo"] = promptfoo_run(work, model, count, promptfoo)
        results["promptfoo --no-write"] = promptfoo_run(work, model, count, promptfoo, "--no-write")
    return results


# --- report ----------------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    try:
        load = list(os.getloadavg())
    except OSError:
        load = None
    return {"platform": platform.platform(), "python": platform.python_version(), "cpu_count": os.cpu_count(),
            "loadavg": load}


_SPIN = "import time; t = time.process_time(); sum(range(30_000_000)); print(time.process_time() - t)"


def effective_cores() -> float:
    """How many cores the machine gives at the moment: a CPU-bound loop alone, then one per CPU at once;
    the cores are the loops' count times the ratio of their speeds (a shared host gives fewer than it shows)."""
    count = os.cpu_count() or 1

    def run(copies: int) -> float:
        started = time.monotonic()
        procs = [subprocess.Popen([sys.executable, "-c", _SPIN], stdout=subprocess.DEVNULL) for _ in range(copies)]
        for proc in procs:
            proc.wait()
        return time.monotonic() - started

    alone = run(1)
    return count * alone / run(count)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 and 800 cases, one run each")
    parser.add_argument("--repeat", type=int, metavar="N", help="runs per set size, medians printed (default 3; "
                                                                 "--quick 1)")
    parser.add_argument("--workers", metavar="N", help="judge eval --workers N (default: judge's own choice)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--inspect", metavar="PYTHON", default=os.environ.get("JUDGE_BENCH_INSPECT"),
                        help="a Python with inspect-ai installed: compare (env JUDGE_BENCH_INSPECT)")
    parser.add_argument("--promptfoo", metavar="BIN", default=os.environ.get("JUDGE_BENCH_PROMPTFOO"),
                        help="the promptfoo command: compare (env JUDGE_BENCH_PROMPTFOO)")
    parser.add_argument("--profile", action="store_true", help="one more 1,000-case run under cProfile")
    parser.add_argument("--split", action="store_true",
                        help="also: judge with litellm's call stubbed by the same wait; litellm's CPU per call")
    args = parser.parse_args(argv)
    small, large = (200, 800) if args.quick else (1000, 4000)
    repeat = args.repeat or (1 if args.quick else 3)
    workers = ["--workers", args.workers] if args.workers else []
    for name, path in (("--inspect", args.inspect), ("--promptfoo", args.promptfoo)):
        if path and not shutil.which(path):
            parser.error(f"{name} {path}: not found")

    info = machine()
    info["effective_cores"] = effective_cores()
    print(f"judge {judge.__version__} eval benchmark ({'quick' if args.quick else 'full'}, {repeat} run(s) per size)")
    print(f"machine: {info['platform']} | {info['cpu_count']} CPUs, {info['effective_cores']:.1f} effective "
          f"(one CPU-bound loop per CPU at once vs one alone) | Python {info['python']} | "
          f"load average before {info['loadavg']}")
    print(f"loopback model: {LATENCY_S * 1000:.0f} ms per call; --concurrency {CONCURRENCY}"
          f"{' ' + ' '.join(workers) if workers else ''}\n")
    model = LoopbackServer(_answer, latency=LATENCY_S)
    try:
        with tempfile.TemporaryDirectory(prefix="judge-bench-eval-") as tmp:
            work = Path(tmp)
            sizes = {count: repeated(work, model, count, repeat, workers) for count in (small, large)}
            for count, speed in sizes.items():
                speed["floor"] = floor(model, count, workers)
            cached = cache_runs(work, model, small, workers)
            compared = comparison(work, model, small, workers, args.inspect, args.promptfoo) \
                if args.inspect or args.promptfoo else None
            profiled = profile(work, model, small, workers) if args.profile else None
            parts = split(work, model, small) if args.split else None
    finally:
        model.close()
    info["loadavg_after"] = machine()["loadavg"]
    info["effective_cores_after"] = effective_cores()
    _print(sizes, cached, info)
    if compared:
        _print_comparison(compared, small)
    if parts:
        print(f"\nsplit: judge with litellm.acompletion replaced by a {LATENCY_S * 1000:.0f} ms wait: "
              f"{parts['judge_only_wall_s']:.2f} s ({parts['judge_only_ratio']:.2f}x ideal), "
              f"{parts['judge_only_cpu_ms_per_case']:.2f} ms CPU per case")
        print(f"split: litellm.acompletion alone, one call at a time, no latency: "
              f"{parts['litellm_call_cpu_ms']:.2f} ms CPU per call")
    if profiled:
        print("\ncProfile of one throughput run (the eval process):\n" + profiled)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": info, "sizes": sizes, "cache": cached,
                                               "comparison": compared, "split": parts}, indent=2) + "\n",
                                   encoding="utf-8")
    ok = cached["hit_requests"] == 0 and all(s["all_semantic_valid"] and s["cases"] == n for n, s in sizes.items())
    return 0 if ok else 2


def _print(sizes: dict[int, dict[str, Any]], cached: dict[str, Any], info: dict[str, Any]) -> None:
    rows: list[tuple[str, str, str]] = []
    for count, speed in sizes.items():
        target = TARGETS.get(count)
        rows += [
            (f"{count} cases, wall time of `judge eval`", f"{speed['wall_s']:.2f} s (ideal {speed['ideal_s']:.2f} s)",
             f"median of {speed['runs']}"),
            ("  ratio to ideal", f"{speed['ratio']:.2f}x  (runs: {', '.join(f'{r:.2f}' for r in speed['ratios'])})",
             f"<= {target}x {_ok(speed['ratio'] <= target)}" if target else ""),
            ("  process start -> first request", f"{speed['to_first_request_s']:.2f} s", ""),
            ("  first request -> last reply", f"{speed['requests_span_s']:.2f} s ({speed['span_ratio']:.2f}x ideal)",
             f"{count / speed['requests_span_s']:.0f} calls/s (ideal {CONCURRENCY / LATENCY_S:.0f}/s)"),
            ("  last reply -> exit (reports)", f"{speed['after_last_reply_s']:.2f} s", ""),
            ("  floor: the calls alone", f"{speed['floor']['ratio']:.2f}x ideal (request phase "
                                         f"{speed['floor']['span_ratio']:.2f}x, first request at "
                                         f"{speed['floor']['to_first_request_s']:.2f} s)",
             f"litellm via judge.llm.client in {speed['floor']['processes']} process(es), nothing else"),
            ("  requests / max in flight", f"{speed['requests']:.0f} / {speed['max_in_flight']:.0f}",
             f"{count} / {CONCURRENCY}"),
            ("  TCP connections opened", f"{speed['connections']:.0f} ({speed['connections_per_1000']:.0f} per "
                                         "1,000 calls)", f"~{CONCURRENCY} in all when kept alive"),
            ("  CPU per case (parent + workers)", f"{speed['cpu_ms_per_case']:.2f} ms", ""),
            ("  peak RSS, process tree", f"{speed['peak_tree_rss_mb']:.1f} MiB",
             f"largest process {speed['maxrss_mb']:.1f} MiB"),
        ]
    (small, first), (large, second) = sizes.items()
    rows += [
        (f"memory: {large} vs {small} cases", f"{second['peak_tree_rss_mb'] / first['peak_tree_rss_mb']:.2f}",
         f"close to 1 (not {large / small:.0f})"),
        ("cache: first run (fills it)", f"{cached['fill_requests']} requests, {cached['fill_wall_s']:.2f} s", ""),
        ("cache: unchanged re-run", f"{cached['hit_requests']} requests, {cached['hit_wall_s']:.2f} s, "
                                    f"all cached: {cached['hit_all_cached']}", f"0 {_ok(cached['hit_requests'] == 0)}"),
    ]
    _table(rows)
    print(f"\nload average after: {info['loadavg_after']}; effective cores after: {info['effective_cores_after']:.1f}")


def _print_comparison(compared: dict[str, dict[str, Any]], count: int) -> None:
    print(f"\nthe same {count} calls at {CONCURRENCY} at once, one after the other in this run:")
    rows = [(name, f"{r['wall_s']:.2f} s  {r['ratio']:.2f}x ideal",
             f"request phase {r['span_ratio']:.2f}x, first request at {r['to_first_request_s']:.2f} s, "
             f"{r['connections']} connections, peak RSS {r['peak_tree_rss_mb']:.0f} MiB")
            for name, r in compared.items()]
    _table(rows)


def _table(rows: list[tuple[str, str, str]]) -> None:
    width = max(len(r[0]) for r in rows)
    fig = max(len(r[1]) for r in rows)
    for name, figure, target in rows:
        print(f"{name:<{width}}  {figure:<{fig}}  {target}".rstrip())


def _ok(ok: bool) -> str:
    return "ok" if ok else "MISSED"


if __name__ == "__main__":
    sys.exit(main())
