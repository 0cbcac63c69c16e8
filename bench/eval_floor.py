"""The floor under `judge eval`'s speed: the same model calls with nothing of judge around them.

    python bench/eval_floor.py API_BASE CALLS CONCURRENCY PROCESSES

PROCESSES fresh interpreters (as `judge eval --workers` starts them) each import litellm, then make their
share of CALLS through judge.llm.client.complete (litellm, judge's kept-alive pool, the retry policy) with
their share of CONCURRENCY in flight, and end: no set read, no rules, no store, no parent handing out cases.
bench/bench_eval.py runs it against its loopback model and measures it as it measures `judge eval`, so the
two ratios to the ideal show what judge's own work costs and what litellm and the machine cost anyway.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MESSAGES = [{"role": "system", "content": "You judge whether a coding step was done. " * 60},
            {"role": "user", "content": "Step: add input validation to parse_port(). Patch: ... " * 60}]


def calls(api_base: str, count: int, concurrency: int) -> None:
    from judge.config import JudgeConfig
    from judge.llm import client, pool

    config = JudgeConfig(model="openai/bench", api_base=api_base, output_mode="none")

    async def run() -> None:
        slots = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with slots:
                await client.complete(config, MESSAGES)

        async with pool.connection_pool(concurrency):
            await asyncio.gather(*(one() for _ in range(count)))

    asyncio.run(run())


def main(argv: list[str]) -> int:
    api_base, count, concurrency, processes = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    context = multiprocessing.get_context("spawn")
    shares = [(count // processes + (1 if i < count % processes else 0),
               concurrency // processes + (1 if i < concurrency % processes else 0)) for i in range(processes)]
    workers = [context.Process(target=calls, args=(api_base, n, c)) for n, c in shares]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return max(worker.exitcode or 0 for worker in workers)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
