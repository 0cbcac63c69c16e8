"""Fuzz target "paths": normalize_path, unquote_git_path, unsafe_reason, segment checks and glob matching.

The regression corpus, tests/fixtures/fuzz/paths/, is one JSON-lines file per family, one input a line
(a family of a hundred names reads better as one file than as a hundred; a line says why it is there):

- long-paths.jsonl: paths that made pathspec backtrack for minutes, with the globs and the answer, and
  the length and segment bounds of unsafe_path;
- globs.jsonl: globs a step must not be read with (``problem``: words of the reason), and globs that
  must match in one pass (``path``, ``matches``);
- platform-names.jsonl: every name some platform reads as another (``unsafe``: words of the reason);
- honest-names.jsonl: names near those that stay safe.

A path or glob of megabytes is stored as a recipe, ``{"repeat": s, "times": n, "then": t, "before": b}``
(b + s*n + t), not as a multi-megabyte file. Every line is replayed on every run; hypothesis then
explores (tests/helpers/fuzzing.py bounds it), and matches_any is held to pathspec, the reference it replaced.
"""

from __future__ import annotations

import json
from typing import Any

import pathspec
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from helpers.fuzzing import FUZZ, corpus_files
from judge.errors import InputError
from judge.patch.globs import glob_problem, matches_any
from judge.patch.paths import MAX_PATH_BYTES, MAX_PATH_SEGMENTS, normalize_path, segment_reason, unquote_git_path, unsafe_reason
from judge.workspace.confine import check_segment, segment_problem

CORPUS = corpus_files("paths")
FAMILIES = {path.stem: path for path in CORPUS}


def _build(value: Any) -> str:
    if isinstance(value, str):
        return value
    return value.get("before", "") + value["repeat"] * value["times"] + value["then"]


def _lines(family: str) -> list[dict]:
    text = FAMILIES[family].read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _ids(family: str) -> list[str]:
    return [f"{family}:{k + 1}" for k in range(len(_lines(family)))]


def test_the_corpus_has_every_family():
    assert set(FAMILIES) == {"long-paths", "globs", "platform-names", "honest-names"}


# --- replay of the corpus ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", _lines("long-paths"), ids=_ids("long-paths"))
def test_corpus_long_path(case):
    path = _build(case["path"])
    reason = unsafe_reason(path)
    if case["unsafe"] is None:
        assert reason is None
    else:
        assert reason is not None and case["unsafe"] in reason and len(reason) < 300
    assert matches_any(path, case["globs"]) is case["matches"]


@pytest.mark.parametrize("case", _lines("globs"), ids=_ids("globs"))
def test_corpus_glob(case):
    glob = _build(case["glob"])
    problem = glob_problem(glob)
    if "problem" in case:
        assert problem is not None and case["problem"] in problem
        return
    assert problem is None
    assert matches_any(_build(case["path"]), [glob]) is case["matches"]


@pytest.mark.parametrize("case", _lines("platform-names") + _lines("honest-names"),
                         ids=_ids("platform-names") + _ids("honest-names"))
def test_corpus_name(case):
    reason = unsafe_reason(case["path"])
    if case["unsafe"] is None:
        assert reason is None
        return
    assert reason is not None and case["unsafe"] in reason
    if "/" not in case["path"] and "\\" not in case["path"]:
        assert segment_problem(case["path"]) is not None  # refused as a `judge run` id too
        with pytest.raises(InputError):
            check_segment(case["path"], "step_id")


# --- properties --------------------------------------------------------------------------------------

# Characters that make trouble: separators, dots, quotes, escapes, controls, bidi and ignorable marks,
# a colon, astral and surrogate code points.
_TRICKY = st.sampled_from(list("/\\.~: \"'\t\n\x00\x7f\x85") + ["\u200c", "\u202e", "\u206f", "\ufeff", "\u00ad",
                                                                  "\U000e0001", "\ud800", "\U0001f642", "\u00e9"])
_TEXT = st.text(st.one_of(st.characters(), _TRICKY), max_size=60)


@FUZZ
@given(_TEXT)
def test_unsafe_reason_is_total_and_agrees_with_its_own_bounds(path):
    reason = unsafe_reason(path)
    assert reason is None or (isinstance(reason, str) and reason)
    if reason is None:
        assert 0 < len(path.encode("utf-8", "surrogatepass")) <= MAX_PATH_BYTES
        segments = path.split("/")
        assert len(segments) <= MAX_PATH_SEGMENTS and ".." not in segments and "\\" not in path
        assert not path.startswith(("/", "~")) and ":" not in path
        assert all(segment_reason(segment) is None for segment in segments)


@FUZZ
@given(_TEXT)
def test_normalize_path_never_raises_and_is_idempotent(raw):
    once = normalize_path(raw)
    # Applying it again unquotes again when the first pass left a quoted-looking name (`"\"x\""` -> `"x"`),
    # or strips again what unquoting exposed: those names are read once, by design.
    assume(not (once.startswith('"') and once.endswith('"')) and once == once.strip())
    assert normalize_path(once) == once
    assert "//" not in once and not once.startswith("./") and "/./" not in once


def _git_quote(name: str) -> str:
    """``name`` quoted the way git quotes a path with special characters (core.quotePath)."""
    simple = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 34: '"', 92: "\\"}
    out = []
    for byte in name.encode("utf-8"):
        if byte in simple:
            out.append("\\" + simple[byte])
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'


@FUZZ
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=40), _TEXT)
def test_unquote_git_path_inverts_git_quoting_and_leaves_plain_names(name, anything):
    assert unquote_git_path(_git_quote(name)) == name
    assert isinstance(unquote_git_path(anything), str)
    if not (anything.startswith('"') and anything.endswith('"') and len(anything) >= 2):
        assert unquote_git_path(anything) == anything


@FUZZ
@given(_TEXT)
def test_segment_checks_refuse_with_input_error_only(value):
    problem = segment_problem(value)
    if problem is None:
        assert check_segment(value, "run_id") == value
        assert "/" not in value and "\\" not in value and unsafe_reason(value) in (None, "the path starts with ~ (a home directory)")
    else:
        with pytest.raises(InputError):
            check_segment(value, "run_id")


# Globs against pathspec. Negated classes and ranges are left out: a class never matches `/` here, and
# pathspec's can (a deliberate difference, tests/patch/test_paths.py pins it); so is `dir/*` covering what lies
# below, which the oracle gives by asking pathspec about every parent directory too (git's rule); and so is
# `/` alone, which names nothing for git (pathspec: everything), so the oracle skips it as git does.
_ATOMS = ["a", "b", ".", "ab", "*", "**", "?", "/", "[ab]", "[a.]", "[]a]", "\\*", "\\a", "#", " "]
_SEGMENT_CHARS = "ab.*?[]# "
_PATHS = st.lists(st.text(st.sampled_from(_SEGMENT_CHARS), min_size=1, max_size=4), min_size=1, max_size=5).map("/".join)
# What each atom may stand for in a path built to (nearly) match the pattern: wildcards get text with and
# without `/`, so a matcher that lets `*`, `?` or a class cross a segment is caught.
_STANDS_FOR = {
    "*": st.text(st.sampled_from("ab./"), max_size=3), "**": st.text(st.sampled_from("ab/"), max_size=5),
    "?": st.sampled_from("ab./"), "[ab]": st.sampled_from("ab/"), "[a.]": st.sampled_from("a./"),
    "[]a]": st.sampled_from("]a/"), "\\*": st.just("*"), "\\a": st.just("a"), "/": st.sampled_from(["/", "", "a/"]),
}


@st.composite
def _globs_and_path(draw, most: int):
    atom_lists = draw(st.lists(st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=6), min_size=1, max_size=most))
    leads = draw(st.lists(st.sampled_from(["", "/", "**/"]), min_size=len(atom_lists), max_size=len(atom_lists)))
    negations = draw(st.lists(st.booleans(), min_size=len(atom_lists), max_size=len(atom_lists)))
    patterns = [("!" if neg else "") + lead + "".join(atoms) for neg, lead, atoms in zip(negations, leads, atom_lists)]
    if draw(st.integers(0, 3)) == 0:
        path = draw(_PATHS)
    else:  # a path built from one of the patterns, then a little noise
        atoms = draw(st.sampled_from(atom_lists))
        path = "".join(draw(_STANDS_FOR[atom]) if atom in _STANDS_FOR else atom for atom in atoms)
        path += draw(st.sampled_from(["", "", "/x", "x", "/a/b"]))
    path = "/".join(segment for segment in path.split("/") if segment)  # judge's paths have no empty segment
    assume(path)
    return patterns, path


def _oracle(path: str, patterns: list[str]) -> bool:
    """pathspec's answer, with a pattern also matching what lies below a directory it matches."""
    path = pathspec.util.normalize_file(path)
    prefixes = [path] + [path[: k + 1] for k, char in enumerate(path) if char == "/"]
    verdict = False
    for pattern in patterns:
        if pattern.rstrip(" ") in ("/", "!/"):
            continue
        compiled = pathspec.PathSpec.from_lines("gitignore", [pattern]).patterns[0]
        if compiled.include is not None and any(compiled.regex.search(prefix) for prefix in prefixes):
            verdict = compiled.include
    return verdict


@FUZZ
@given(_globs_and_path(most=1))
def test_one_glob_matches_as_pathspec_says(globs_and_path):
    _agrees_with_pathspec(*globs_and_path)


@FUZZ
@given(_globs_and_path(most=4))
def test_last_match_of_several_globs_wins_as_pathspec_says(globs_and_path):
    _agrees_with_pathspec(*globs_and_path)


def _agrees_with_pathspec(patterns: list[str], path: str) -> None:
    try:
        expected = _oracle(path, patterns)
    except Exception:  # pathspec cannot compile one: neither can we
        assert any(glob_problem(pattern) for pattern in patterns)
        return
    assert all(glob_problem(pattern) is None for pattern in patterns)
    assert matches_any(path, patterns) is expected, (patterns, path)


@FUZZ
@given(st.text(max_size=30), st.text(max_size=40))
def test_matches_any_on_any_text_answers_or_refuses_the_glob(pattern, path):
    if glob_problem(pattern) is not None:
        return
    assert matches_any(path, [pattern]) in (True, False)
    if not pattern.startswith("!") and glob_problem("!" + pattern) is None:
        assert matches_any(path, [pattern, "!" + pattern]) is False  # the last match wins
        assert matches_any(path, ["!" + pattern, pattern]) is matches_any(path, [pattern])
