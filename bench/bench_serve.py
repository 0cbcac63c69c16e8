"""Load benchmark of `judge serve`: requests/s, latency, errors and the server's memory under deterministic load.

    python bench/bench_serve.py [--requests N] [--soak N] [--levels 1,8,64] [--big K] [--client raw|httpx]
                                [-- SERVE FLAGS...]

Starts `judge serve --port 0` (real uvicorn; SERVE FLAGS such as --workers 2 or --max-concurrency 64 are passed
on) in a subprocess on 127.0.0.1, then drives it from this process with a bounded asyncio client at each
concurrency level: N requests (--requests, default 5,000) alternating the deterministic validations of
examples/step.json with examples/result-valid.json (valid) and result-undeclared.json (invalid), each client on
its own keep-alive connection. Then a soak run (--soak, default 100,000 requests, at the last level) samples the
server's RSS (/proc; with --workers, summed over its processes) every 1,000 requests. Last (--big K, default 8,
0: none), a request near the default 8 MiB body limit (a 7.5 MiB patch of 150,000 added lines), alone and K at
once: the server's peak RSS (VmHWM) after each.

Per level: requests/s, p50/p99 latency, errors, 503s, and the CPU seconds of the server and of this client per
1,000 requests (who is the bottleneck). An error is anything but a 200 whose verdict is the expected one, or a
503: the server had every slot taken and said so at once (counted apart; the client does not retry).

--client raw (default): HTTP/1.1 written and read on asyncio streams, one request at a time per connection;
--client httpx: httpx.AsyncClient with one keep-alive connection per concurrent client (its own CPU per request
is ~6x raw's, so at 64 clients it, not the server, sets the pace: hence raw).
Figures are printed, never asserted; the exit code is 0 unless a run had errors (then 1).
Linux (reads /proc), standard library + judge (+ httpx for --client httpx).

Measured on the 2-core dev machine while other sessions ran their suites (load average 2 to 10: throughput is
noisy, CPU per request less so), `python bench/bench_serve.py` (32 slots):
     1 client    451 req/s   p50  1.9 ms  p99   6.1 ms   0 errors      0 503s   server 1.9 ms CPU per request
     8 clients   494 req/s   p50 15.0 ms  p99  36.4 ms   0 errors      0 503s
    64 clients  1137 req/s   p50 37.5 ms  p99 164   ms   0 errors   3572 503s of 5,000 (32 clients over the slots,
                                                                    refused at once and asking again at once)
    100,000 at 64 clients: 1125 req/s, 0 errors, 71,324 503s; server RSS first 48.7, last 51.3, max 51.3 MiB
    7 MiB body: alone 2.9 s, server peak 162 MiB; 8 at once 27 s, peak 828 MiB
`-- --max-concurrency 64` (no 503s): 64 clients 477 req/s, p50 126 ms, p99 305 ms; RSS 49.4 -> 62.2 MiB over
100,000 in ~1 MiB steps that slow down: glibc's per-thread arenas (Python's own blocks and gc objects stay flat
over 50,000 in-process validations; with MALLOC_ARENA_MAX=2 the run ends at 55.5 MiB, max 59.1).
`-- --workers 2 --max-concurrency 64` against 1 worker, alternated twice (load average ~9.5): 8 clients
525/546 vs 434/433 req/s, 64 clients 557/638 vs 473/595 req/s: 1.1x to 1.3x, for 140 MiB at start instead of
43. --client httpx costs ~1 ms of client CPU per request (raw: ~0.15 ms): at 64 clients it, not the server,
sets the pace (118 req/s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
_JUDGE = "import sys; from judge.cli.main import main; sys.exit(main())"


def bodies() -> list[tuple[bytes, bool]]:
    """The request bodies, each with the verdict it must get."""
    step = json.loads((EXAMPLES / "step.json").read_text(encoding="utf-8"))
    cases = []
    for name, valid in (("result-valid.json", True), ("result-undeclared.json", False)):
        result = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
        cases.append((json.dumps({"step": step, "result": result}).encode(), valid))
    return cases


@dataclass
class Server:
    """The `judge serve` process and, with --workers, its worker processes: RSS and CPU are summed over them."""

    process: subprocess.Popen
    host: str
    port: int

    def pids(self) -> list[int]:
        parents = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                parents[int(stat.parent.name)] = int(stat.read_text().rpartition(")")[2].split()[1])
            except (OSError, ValueError):
                continue  # the process ended while it was read
        tree = [self.process.pid]
        for pid in tree:
            tree += [child for child, parent in parents.items() if parent == pid]
        return tree

    def rss_mib(self) -> float:
        return sum(_status(pid, "VmRSS:") for pid in self.pids()) / 1024

    def peak_rss_mib(self) -> float:
        return sum(_status(pid, "VmHWM:") for pid in self.pids()) / 1024

    def cpu_seconds(self) -> float:
        total = 0
        for pid in self.pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])  # utime + stime
        return total / os.sysconf("SC_CLK_TCK")


def _status(pid: int, key: str) -> int:
    """A /proc/PID/status figure in KiB (0 once the process is gone)."""
    try:
        line = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith(key))
    except (OSError, StopIteration):
        return 0
    return int(line.split()[1])


def start_server(serve_flags: list[str]) -> Server:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update(PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
    process = subprocess.Popen([sys.executable, "-c", _JUDGE, "serve", "--port", "0", *serve_flags], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr], daemon=True).start()
    first = lines.get(timeout=60)
    if "serving on http://" not in first:
        process.kill()
        raise SystemExit(f"judge serve did not start: {first.strip()}")
    host, port = first.split("serving on http://")[1].split(" ")[0].rsplit(":", 1)
    return Server(process, host, int(port))


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    overloaded: int = 0
    errors: int = 0
    first_error: str = ""

    def error(self, what: str) -> None:
        self.errors += 1
        self.first_error = self.first_error or what


class RawConnection:
    """One keep-alive HTTP/1.1 connection on asyncio streams: the answers judge serve gives have a Content-Length."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.head = (f"POST /v1/validate HTTP/1.1\r\nHost: {server.host}:{server.port}\r\n"
                     "Content-Type: application/json\r\nContent-Length: ").encode()
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, body: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.server.host, self.server.port)
        try:
            self.writer.write(self.head + str(len(body)).encode() + b"\r\n\r\n" + body)
            head = await self.reader.readuntil(b"\r\n\r\n")  # type: ignore[union-attr]
            status = int(head.split(b" ", 2)[1])
            length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            return status, await self.reader.readexactly(length)  # type: ignore[union-attr]
        except Exception:
            await self.close()  # the next request opens a new connection
            raise

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


class HttpxConnection:
    def __init__(self, server: Server, client) -> None:
        self.url = f"http://{server.host}:{server.port}/v1/validate"
        self.client = client

    async def post(self, body: bytes) -> tuple[int, bytes]:
        response = await self.client.post(self.url, content=body, headers={"Content-Type": "application/json"})
        return response.status_code, response.content

    async def close(self) -> None:
        pass


async def drive(server: Server, concurrency: int, total: int, kind: str, cases: list[tuple[bytes, bool]],
                sample: Callable[[], None] | None = None) -> tuple[Tally, float]:
    """``total`` requests from ``concurrency`` clients (each its own connection); (tally, wall seconds).
    ``sample`` is called every 1,000 requests."""
    tally = Tally()
    issued = 0
    if kind == "httpx":
        import httpx

        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        pool = httpx.AsyncClient(limits=limits, timeout=300)
        connections: list[Any] = [HttpxConnection(server, pool) for _ in range(concurrency)]
    else:
        connections = [RawConnection(server) for _ in range(concurrency)]

    async def client(connection: Any) -> None:
        nonlocal issued
        while issued < total:
            body, valid = cases[issued % len(cases)]
            issued += 1
            if sample is not None and issued % 1000 == 0:
                sample()
            started = time.perf_counter()
            try:
                status, answer = await connection.post(body)
            except Exception as exc:  # noqa: BLE001 — a bench counts every failure
                tally.error(f"{type(exc).__name__}: {exc}")
                continue
            tally.latencies.append(time.perf_counter() - started)
            if status == 503:
                tally.overloaded += 1
            elif status != 200 or json.loads(answer).get("valid") is not valid:
                tally.error(f"{status}: {answer[:200]!r}")

    started = time.perf_counter()
    await asyncio.gather(*(client(connection) for connection in connections))
    wall = time.perf_counter() - started
    for connection in connections:
        await connection.close()
    if kind == "httpx":
        await pool.aclose()
    return tally, wall


def percentile(values: list[float], fraction: float) -> float:
    return statistics.quantiles(values, n=1000)[int(fraction * 1000) - 1] if len(values) > 1 else float("nan")


def level(server: Server, concurrency: int, total: int, kind: str, cases: list[tuple[bytes, bool]],
          sample: Callable[[], None] | None = None) -> Tally:
    server_before, own_before = server.cpu_seconds(), sum(os.times()[:2])
    tally, wall = asyncio.run(drive(server, concurrency, total, kind, cases, sample))
    server_cpu, own_cpu = server.cpu_seconds() - server_before, sum(os.times()[:2]) - own_before
    ms = sorted(1000 * latency for latency in tally.latencies)
    print(f"{concurrency:>4} clients  {total:>7} requests  {total / wall:8.1f} req/s  "
          f"p50 {percentile(ms, 0.5):7.2f} ms  p99 {percentile(ms, 0.99):7.2f} ms  errors {tally.errors}  "
          f"503s {tally.overloaded}  CPU per 1000: server {1000 * server_cpu / total:.2f} s, "
          f"client {1000 * own_cpu / total:.2f} s", flush=True)
    if tally.errors:
        print(f"      first error: {tally.first_error}")
    return tally


def big_body(index: int) -> tuple[bytes, bool]:
    """A valid request just under the default 8 MiB limit: one new file of 150,000 lines, its own per ``index``."""
    lines = "".join(f"+line {i} of big generated file {index:03} with text\n" for i in range(150_000))
    patch = ("diff --git a/src/big.py b/src/big.py\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
             f"+++ b/src/big.py\n@@ -0,0 +1,150000 @@\n{lines}")
    step = {"id": "big", "description": "Add the generated module src/big.py", "allowedFiles": ["src/**"]}
    result = {"mode": "apply", "success": True, "patch": patch, "filesWritten": ["src/big.py"],
              "filesTouched": ["src/big.py"], "summary": "adds src/big.py"}
    return json.dumps({"step": step, "result": result}).encode(), True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5000, metavar="N", help="requests per level (default 5000)")
    parser.add_argument("--soak", type=int, default=100_000, metavar="N", help="requests of the RSS run (0: none)")
    parser.add_argument("--levels", default="1,8,64", help="concurrent clients per level (default 1,8,64)")
    parser.add_argument("--big", type=int, default=8, metavar="K", help="large requests at once (0: none)")
    parser.add_argument("--client", choices=("raw", "httpx"), default="raw")
    parser.add_argument("serve_flags", nargs=argparse.REMAINDER, help="after --: flags for judge serve")
    args = parser.parse_args()
    flags = args.serve_flags[1:] if args.serve_flags[:1] == ["--"] else args.serve_flags
    levels = [int(n) for n in args.levels.split(",")]
    cases = bodies()
    server = start_server(flags)
    failed = False
    try:
        print(f"judge serve {' '.join(flags) or '(defaults)'} on {os.cpu_count()} cores, load average "
              f"{os.getloadavg()[0]:.2f}, client {args.client}; server RSS at start {server.rss_mib():.1f} MiB",
              flush=True)
        for concurrency in levels:
            failed |= level(server, concurrency, args.requests, args.client, cases).errors > 0
        if args.soak:
            samples = [server.rss_mib()]
            failed |= level(server, levels[-1], args.soak, args.client, cases,
                            lambda: samples.append(server.rss_mib())).errors > 0
            samples.append(server.rss_mib())
            print(f"RSS over the {args.soak} requests ({len(samples)} samples): first {samples[0]:.1f} MiB, "
                  f"last {samples[-1]:.1f} MiB, max {max(samples):.1f} MiB; every 10,000: "
                  f"{' '.join(f'{rss:.1f}' for rss in samples[::10])}", flush=True)
        if args.big:
            big = [big_body(index) for index in range(args.big)]
            for clients in (1, args.big):
                cpu_before = server.cpu_seconds()
                tally, wall = asyncio.run(drive(server, clients, clients, args.client, big))
                failed |= tally.errors > 0
                print(f"{len(big[0][0]) / 2**20:.1f} MiB body x{clients} at once: {wall:.1f} s wall, server CPU "
                      f"{server.cpu_seconds() - cpu_before:.1f} s, errors {tally.errors}, 503s {tally.overloaded}, "
                      f"server peak RSS so far {server.peak_rss_mib():.1f} MiB", flush=True)
    finally:
        server.process.send_signal(signal.SIGINT)
        server.process.wait(60)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
