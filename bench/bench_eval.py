"""Benchmark of `judge eval`: throughput against a loopback model, the cache, memory in the set's size.

    python bench/bench_eval.py [--quick] [--json FILE] [--profile]

A SYNTHETIC OpenAI-compatible server on 127.0.0.1 (tests/loopback.py, the tests' own) answers every
chat completion with ``{"valid": true, "reason": ...}`` after a fixed latency (200 ms). The eval
sets are generated: every case passes the deterministic rules (so each needs the
model) and has its own step description (so each has its own inputs hash).

1. Throughput: 1,000 cases, ``--concurrency 32 --no-cache``; the wall time of
   the `judge eval` process against the ideal 1000 x 0.2 s / 32 = 6.25 s, as a
   ratio (target <= 1.3x), with the parts of it: process start until the first
   request, the requests themselves (first arrival to last reply), the rest.
   The judge's own cost per case: its CPU seconds / cases.
2. Cache: the same set twice with the cache; the second run must make 0 requests.
3. Memory: peak RSS of the `judge eval` process (``os.wait4``) for 1,000 and
   4,000 cases; flat means a ratio close to 1, not 4.

``--quick``: 200 cases for throughput and cache, 200 vs 800 for memory.
``--profile``: one more throughput run under cProfile (top functions by own time).
``--split``: where the time goes, in-process: the same run with litellm.acompletion replaced by the
same 200 ms wait (judge's own cost), and litellm.acompletion's CPU per call on its own.
Targets are printed next to the figures, never asserted: the exit code is 0
unless a run fails or the cached run makes requests (then 2). Standard library, judge and
tests/loopback.py (standard library itself) only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "tests") not in sys.path:
    sys.path.append(str(ROOT / "tests"))  # the loopback model server, shared with the tests

import judge  # noqa: E402

from loopback import LoopbackServer, Reply, Request, chat  # noqa: E402

LATENCY_S = 0.2
CONCURRENCY = 32
TARGET_RATIO = 1.3

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
            step = {"id": f"step-{n}", "mode": "apply",
                    "description": f"Add input validation to parse_port() in src/app.py (bench case {n:05d})"}
            result = {"mode": "apply", "success": True, "patch": PATCH, "filesWritten": ["src/app.py"],
                      "filesTouched": ["src/app.py"], "summary": "parse_port() now rejects ports outside 1-65535"}
            case = {"id": f"valid/bench-{n:05d}", "step": step, "result": result, "expected": {"valid": True}}
            handle.write(json.dumps(case, sort_keys=True) + "\n")
    return path


def judge_eval(work: Path, cases: Path, api_base: str, name: str, *extra: str,
               profile: Path | None = None) -> list[str]:
    code = _PROFILED.format(out=str(profile)) if profile else "import sys; from judge.cli.main import main; sys.exit(main())"
    return [sys.executable, "-c", code, "eval", str(cases), "--concurrency", str(CONCURRENCY),
            "--model", "openai/bench", "--api-base", api_base, "--output-mode", "none",
            "--store", str(work / f"{name}.sqlite"), "--out", str(work / f"{name}.json"), *extra]


_PROFILED = ("import cProfile, sys; from judge.cli.main import main; p = cProfile.Profile(); p.enable(); rc = main(); "
             "p.disable(); p.dump_stats({out!r}); sys.exit(rc)")


def run_measured(argv: list[str], model: LoopbackServer) -> dict[str, Any]:
    """Run one `judge eval` process: wall time, its CPU time and peak RSS (os.wait4), the server's view."""
    model.reset()
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", PYTHONPATH=str(ROOT))
    started, server_cpu = time.monotonic(), time.process_time()  # this process only serves the model meanwhile
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    ended = time.monotonic()
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"bench: `{' '.join(argv)}` exited {proc.returncode}:\n{stderr[-2000:]}")
    return {
        "wall_s": ended - started,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "server_cpu_s": time.process_time() - server_cpu,
        "maxrss_mb": usage.ru_maxrss / 1024,  # Linux: KiB
        "requests": model.count,
        "max_in_flight": model.max_in_flight,
        "to_first_request_s": (model.first_at - started) if model.first_at else None,
        "requests_span_s": (model.last_done_at - model.first_at) if model.first_at and model.last_done_at else None,
        "after_last_reply_s": (ended - model.last_done_at) if model.last_done_at else None,
    }


def _report_seconds(path: Path) -> tuple[float, int, bool]:
    report = json.loads(path.read_text(encoding="utf-8"))
    cases = report["cases"]
    return report["seconds"], len(cases), all(c["valid"] and c["decidedBy"] == "semantic" for c in cases)


def throughput(work: Path, model: LoopbackServer, count: int) -> dict[str, Any]:
    cases = write_set(work / f"set-{count}.jsonl", count)
    figures = run_measured(judge_eval(work, cases, model.api_base, "throughput", "--no-cache"), model)
    seconds, judged, all_semantic = _report_seconds(work / "throughput.json")
    ideal = count * LATENCY_S / CONCURRENCY
    figures.update(cases=judged, all_semantic_valid=all_semantic, ideal_s=ideal, run_seconds=seconds,
                   ratio=figures["wall_s"] / ideal, run_ratio=seconds / ideal,
                   span_ratio=(figures["requests_span_s"] or 0) / ideal,
                   overhead_ms_per_case=(figures["wall_s"] - ideal) * 1000 / count,
                   cpu_ms_per_case=figures["cpu_s"] * 1000 / count,
                   needed_per_s=CONCURRENCY / LATENCY_S)
    span = figures["requests_span_s"] or float("nan")
    figures.update(phase_per_s=count / span, phase_overhead_ms_per_case=(span - ideal) * 1000 / count)
    return figures


def cache_runs(work: Path, model: LoopbackServer, count: int) -> dict[str, Any]:
    cases = work / f"set-{count}.jsonl"
    cache = ["--cache", str(work / "cache.sqlite")]
    fill = run_measured(judge_eval(work, cases, model.api_base, "cache-fill", *cache), model)
    again = run_measured(judge_eval(work, cases, model.api_base, "cache-hit", *cache), model)
    report = json.loads((work / "cache-hit.json").read_text(encoding="utf-8"))
    return {"fill_requests": fill["requests"], "fill_wall_s": fill["wall_s"], "hit_requests": again["requests"],
            "hit_wall_s": again["wall_s"], "hit_all_cached": all(c["cached"] for c in report["cases"])}


def memory(work: Path, model: LoopbackServer, small: int, large: int,
           small_run: dict[str, Any] | None) -> dict[str, Any]:
    figures = {}
    for count in (small, large):
        if count == small and small_run is not None:
            figures[count] = small_run["maxrss_mb"]
            continue
        cases = write_set(work / f"set-{count}.jsonl", count)
        figures[count] = run_measured(judge_eval(work, cases, model.api_base, f"memory-{count}", "--no-cache"),
                                      model)["maxrss_mb"]
    return {"small": small, "large": large, "small_mb": figures[small], "large_mb": figures[large],
            "ratio": figures[large] / figures[small]}


def profile(work: Path, model: LoopbackServer, count: int, top: int = 25) -> str:
    cases = work / f"set-{count}.jsonl"
    out = work / "eval.prof"
    run_measured(judge_eval(work, cases, model.api_base, "profile", "--no-cache", profile=out), model)
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

    litellm = client._litellm()
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


def machine() -> dict[str, Any]:
    try:
        load = list(os.getloadavg())
    except OSError:
        load = None
    return {"platform": platform.platform(), "python": platform.python_version(), "cpu_count": os.cpu_count(),
            "loadavg": load}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 cases; memory 200 vs 800")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--profile", action="store_true", help="one more throughput run under cProfile")
    parser.add_argument("--split", action="store_true",
                        help="also: judge with litellm's call stubbed by the same wait; litellm's CPU per call")
    args = parser.parse_args(argv)
    count, small, large = (200, 200, 800) if args.quick else (1000, 1000, 4000)

    info = machine()
    print(f"judge {judge.__version__} eval benchmark ({'quick' if args.quick else 'full'})")
    print(f"machine: {info['platform']} | {info['cpu_count']} CPUs | Python {info['python']} | "
          f"load average before {info['loadavg']}")
    print(f"loopback model: {LATENCY_S * 1000:.0f} ms per call; --concurrency {CONCURRENCY}\n")
    model = LoopbackServer(_answer, latency=LATENCY_S)
    try:
        with tempfile.TemporaryDirectory(prefix="judge-bench-eval-") as tmp:
            work = Path(tmp)
            speed = throughput(work, model, count)
            cached = cache_runs(work, model, count)
            mem = memory(work, model, small, large, speed)
            profiled = profile(work, model, count) if args.profile else None
            parts = split(work, model, count) if args.split else None
    finally:
        model.close()
    info["loadavg_after"] = machine()["loadavg"]
    _print(speed, cached, mem, info)
    if parts:
        print(f"\nsplit: judge with litellm.acompletion replaced by a {LATENCY_S * 1000:.0f} ms wait: "
              f"{parts['judge_only_wall_s']:.2f} s ({parts['judge_only_ratio']:.2f}x ideal), "
              f"{parts['judge_only_cpu_ms_per_case']:.2f} ms CPU per case")
        print(f"split: litellm.acompletion alone, one call at a time, no latency: "
              f"{parts['litellm_call_cpu_ms']:.2f} ms CPU per call")
    if profiled:
        print("\ncProfile of one throughput run (the eval process):\n" + profiled)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": info, "throughput": speed, "cache": cached,
                                               "memory": mem, "split": parts}, indent=2) + "\n", encoding="utf-8")
    ok = cached["hit_requests"] == 0 and speed["all_semantic_valid"] and speed["cases"] == count
    return 0 if ok else 2


def _print(speed: dict[str, Any], cached: dict[str, Any], mem: dict[str, Any], info: dict[str, Any]) -> None:
    n = speed["cases"]
    rows = [
        (f"{n} cases, wall time of `judge eval`", f"{speed['wall_s']:.2f} s (ideal {speed['ideal_s']:.2f} s)", ""),
        ("  ratio to ideal", f"{speed['ratio']:.2f}x", f"<= {TARGET_RATIO}x {_ok(speed['ratio'] <= TARGET_RATIO)}"),
        ("  process start -> first request", f"{speed['to_first_request_s']:.2f} s", "fixed (imports litellm)"),
        ("  first request -> last reply", f"{speed['requests_span_s']:.2f} s ({speed['span_ratio']:.2f}x ideal)",
         f"{speed['phase_per_s']:.0f} cases/s (ideal {speed['needed_per_s']:.0f}/s)"),
        ("  last reply -> exit (reports)", f"{speed['after_last_reply_s']:.2f} s", "fixed"),
        ("  run's own `seconds` (report)", f"{speed['run_seconds']:.2f} s ({speed['run_ratio']:.2f}x ideal)", ""),
        ("  requests / max in flight", f"{speed['requests']} / {speed['max_in_flight']}", f"{n} / {CONCURRENCY}"),
        ("  judge overhead per case", f"{speed['overhead_ms_per_case']:.2f} ms wall "
                                      f"({speed['phase_overhead_ms_per_case']:.2f} ms in the request phase)", ""),
        ("  judge CPU per case (all in)", f"{speed['cpu_ms_per_case']:.2f} ms",
         f"<= {1000 / speed['needed_per_s']:.2f} ms to keep up on one core"),
        ("  loopback server's CPU", f"{speed['server_cpu_s']:.2f} s", ""),
        ("cache: first run (fills it)", f"{cached['fill_requests']} requests, {cached['fill_wall_s']:.2f} s", ""),
        ("cache: unchanged re-run", f"{cached['hit_requests']} requests, {cached['hit_wall_s']:.2f} s, "
                                    f"all cached: {cached['hit_all_cached']}", f"0 {_ok(cached['hit_requests'] == 0)}"),
        (f"peak RSS, {mem['small']} cases", f"{mem['small_mb']:.1f} MiB", ""),
        (f"peak RSS, {mem['large']} cases", f"{mem['large_mb']:.1f} MiB", ""),
        ("  ratio", f"{mem['ratio']:.2f}", f"close to 1 (not {mem['large'] / mem['small']:.0f})"),
    ]
    width = max(len(r[0]) for r in rows)
    fig = max(len(r[1]) for r in rows)
    for name, figure, target in rows:
        print(f"{name:<{width}}  {figure:<{fig}}  {target}".rstrip())
    print(f"\nload average after: {info['loadavg_after']}")


def _ok(ok: bool) -> str:
    return "ok" if ok else "MISSED"


if __name__ == "__main__":
    sys.exit(main())
