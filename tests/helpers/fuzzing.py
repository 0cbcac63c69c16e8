"""Shared settings for the fuzz targets (tests/fuzz/) and their regression corpus.

Every input that ever broke judge is kept as a file under ``tests/fixtures/fuzz/<target>/`` and
replayed by its target on every run; hypothesis then explores for a bounded number of examples.
CI is deterministic (``derandomize``) so a run never fails by luck; set ``JUDGE_FUZZ_RANDOM=1``
and raise ``JUDGE_FUZZ_EXAMPLES`` to explore for longer, and add what breaks to the corpus.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

__all__ = ["CORPUS", "FUZZ", "corpus_files"]

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "fuzz"

FUZZ = settings(
    max_examples=int(os.environ.get("JUDGE_FUZZ_EXAMPLES", "200")),
    derandomize=os.environ.get("JUDGE_FUZZ_RANDOM", "") != "1",
    deadline=None,  # time limits belong in bench/, never in tests
    database=None,  # the corpus, not a hidden local database, keeps what broke judge
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def corpus_files(target: str) -> list[Path]:
    """The regression inputs kept for ``target`` (e.g. "patch", "paths", "contract"), sorted by name."""
    folder = CORPUS / target
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")) if folder.is_dir() else []
