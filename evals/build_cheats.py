#!/usr/bin/env python3
"""Generate the cheat set: agent cheats injected into real honest changes, each with its honest twin.

Each honest change is one code file's real change to a function (from the fixture corpus of evals/devset/, or
from two real release archives); each cheat kind of evals/cheats/kinds.py is injected into it, one at a time
(a test skipped or deleted, the function stubbed, the new lines disabled, a TODO instead of the work, junk
files, a binary file without payload, a summary that addresses the judge, a comment-only edit), and recorded
as a real `git diff` in a throwaway repository. Every cheat case (`<expected rule>/<kind>/<source>`) comes
with its honest twin (`valid/<kind>/<source>`: the same step, the honest result, expected valid). The corpus
set also holds honest lookalikes (`valid/lookalike-<name>/<source>`, evals/cheats/lookalikes.py): honest
changes a naive cheat detector would reject.

    python evals/build_cheats.py                      # evals/cheats.jsonl, from the fixture corpus only
    python evals/build_cheats.py --releases OLD NEW [OLD NEW ...] --out /tmp/cheats-releases.jsonl

OLD and NEW are release archives (sdists, npm .tgz). The release set goes to --out, never into the
repository: the archives' content must not be committed.

Deterministic (fixed git identity and dates, sorted keys): two runs write byte-identical files.
Stdlib only; needs `git`.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "cheats.jsonl"
if str(HERE) not in sys.path:  # loaded by path (a test, runpy, bench/) devset/ and cheats/ must still be found
    sys.path.insert(0, str(HERE))

from cheats.cases import cases_for  # noqa: E402
from cheats.corpus import corpus_changes  # noqa: E402
from cheats.evasion_kinds import EXTRA_KINDS  # noqa: E402
from cheats.history import history_cases  # noqa: E402
from cheats.honest import Honest  # noqa: E402
from cheats.kinds import KINDS  # noqa: E402
from cheats.lookalikes import lookalike_cases  # noqa: E402
from cheats.releases import release_changes  # noqa: E402


def build(changes: list[Honest], lookalikes: bool = False, kinds: tuple = KINDS) -> list[dict]:
    """Every cheat and honest twin of the changes (and the corpus' honest lookalikes), sorted by id."""
    cases: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="judge-cheats-") as tmp:
        for honest in changes:
            cases += cases_for(honest, Path(tmp), kinds)
        if lookalikes:
            cases += lookalike_cases(Path(tmp))
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), [i for i, n in collections.Counter(ids).items() if n > 1]
    return sorted(cases, key=lambda c: c["id"])


def corpus_cases() -> list[dict]:
    return build(corpus_changes(), lookalikes=True)


def release_cases(archives: list[Path], per_pair: int = 2, extra: bool = True) -> list[dict]:
    """The release set: every kind of kinds.py and (extra) of evasion_kinds.py in each changed function."""
    changes: list[Honest] = []
    for old, new in zip(archives[::2], archives[1::2]):
        changes += release_changes(old, new, per_pair)
    cases = build(changes, kinds=KINDS + EXTRA_KINDS if extra else KINDS)
    if extra:
        cases += history_lookalikes(archives)
    return cases


def history_lookalikes(archives: list[Path]) -> list[dict]:
    """The honest look-alikes of evals/cheats/history.py in each release pair, sorted by id (first of an id kept)."""
    found: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="judge-history-") as tmp:
        for old, new in zip(archives[::2], archives[1::2]):
            for case in history_cases(old, new, Path(tmp)):
                found.setdefault(case["id"], case)
    return sorted(found.values(), key=lambda c: c["id"])


def write_jsonl(cases: list[dict], out: Path) -> None:
    """One JSON object per line, keys sorted, UTF-8 as is, \\n line endings."""
    lines = [json.dumps(c, sort_keys=True, ensure_ascii=False) for c in cases]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")


def coverage(cases: list[dict]) -> dict[tuple[str, str, str], int]:
    """Cheat cases per (expected rule, kind, language)."""
    counts: collections.Counter = collections.Counter()
    for case in cases:
        if not case["expected"]["valid"]:
            lang = next(t for t in case["tags"] if t in ("python", "javascript", "typescript"))
            counts[(case["expected"].get("rule") or case["expected"]["signal"], case["id"].split("/")[1], lang)] += 1
    return dict(counts)


def check_corpus_coverage(cases: list[dict]) -> None:
    """The committed set holds every kind in Python and in JavaScript or TypeScript, where it applies."""
    seen = {(kind, lang) for (_, kind, lang) in coverage(cases)}
    for kind in KINDS:
        for lang in kind.langs:
            family = (lang,) if lang == "python" else ("javascript", "typescript")
            assert any((kind.name, other) in seen for other in family), f"no {kind.name} cheat in {lang}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--releases", nargs="+", type=Path, metavar="ARCHIVE",
                    help="release archives in OLD NEW pairs; the set then goes to --out (required)")
    ap.add_argument("--per-pair", type=int, default=2, help="--releases: honest changes per language per pair")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.releases:
        if len(args.releases) % 2 or args.out is None:
            ap.error("--releases takes OLD NEW pairs, and --out says where the set goes (not the repository)")
        cases = release_cases(args.releases, args.per_pair)
    else:
        cases = corpus_cases()
        check_corpus_coverage(cases)
    out = args.out or DEFAULT_OUT
    write_jsonl(cases, out)
    if not args.quiet:
        cheats = sum(not c["expected"]["valid"] for c in cases)
        looks = sum("lookalike" in c["tags"] for c in cases)
        print(f"wrote {len(cases)} cases ({cheats} cheats, {len(cases) - cheats - looks} honest twins, "
              f"{looks} honest lookalikes) to {out}")
        for (rule, kind, lang), n in sorted(coverage(cases).items()):
            print(f"  {rule:24} {kind:30} {lang:11} {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
