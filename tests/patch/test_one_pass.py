"""judge/patch/one_pass.py held to the full reading it stands in for (parse.py's three readings).

Every patch here is read both ways: parse_patch (the one pass first, the full reading when it declines)
and the full reading alone. Both must give equal PatchFacts, or the same MalformedPatch (message and
line). The patches: honest seeds, the seeded mutations of tests/helpers/patch_differential.py, the
real-commit diffs of tests/fixtures/diffs, unidiff's sample corpus (read in place when it is there), and
mutations aimed at what the one pass decides (counts, `\\` lines, empty and CR lines, header names).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from helpers.patch_differential import mutated_cases, seeds
from judge.errors import MalformedPatch
from judge.patch.one_pass import NO_NEWLINE, read_git_diff
from judge.patch.parse import _read_thrice, parse_patch
from judge.patch.transport import blank_email_prose, split_lines, undo_transport_crlf

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "unidiff-samples"


def _full_reading(text: str):
    undone = undo_transport_crlf(text)
    return _read_thrice(blank_email_prose(split_lines(undone)), undone.endswith("\n"))


def _outcome(read, text: str):
    try:
        return "read", read(text)
    except MalformedPatch as exc:
        return "malformed", str(exc), exc.line


def _one_pass_reads(text: str) -> bool:
    undone = undo_transport_crlf(text)
    return read_git_diff(blank_email_prose(split_lines(undone)), undone.endswith("\n")) is not None


def _assert_same(text: str) -> None:
    assert _outcome(parse_patch, text) == _outcome(_full_reading, text), text


_EDIT = ("diff --git a/src/app.py b/src/app.py\nindex 1111111..2222222 100644\n--- a/src/app.py\n+++ b/src/app.py\n"
         "@@ -1,3 +1,3 @@ def f():\n a = 1\n-b = 2\n+b = 3\n c = 4\n@@ -10,3 +10,4 @@\n x\n+y\n z\n w\n"
         "diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..3333333\n--- /dev/null\n+++ b/new.txt\n"
         "@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n"
         "diff --git a/old.py b/old.py\ndeleted file mode 100644\nindex 4444444..0000000\n--- a/old.py\n+++ /dev/null\n"
         "@@ -1 +0,0 @@\n-gone\n"
         "diff --git a/a.txt b/b.txt\nsimilarity index 80%\nrename from a.txt\nrename to b.txt\n--- a/a.txt\n"
         "+++ b/b.txt\n@@ -1,2 +1,2 @@\n-x\n\\ No newline at end of file\n+x\n y\n")


def test_one_pass_reads_plain_git_diff_output_as_the_full_reading_does():
    assert _one_pass_reads(_EDIT)
    facts = parse_patch(_EDIT)
    assert facts == _full_reading(_EDIT)
    assert [(f.old_path, f.new_path, f.added_count, f.removed_count) for f in facts.files] == [
        ("src/app.py", "src/app.py", 2, 1), (None, "new.txt", 2, 0), ("old.py", None, 0, 1), ("a.txt", "b.txt", 1, 1)]
    assert facts.files[3].hunks[0].body == ("-x", "+x", " y")  # the `\` line is on no side


@pytest.mark.parametrize("text", [
    "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",  # a plain diff
    "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n",  # no hunks
    _EDIT[:-1],  # no final line end
    _EDIT.replace("\n c = 4\n", "\n\n"),  # an empty context line
    _EDIT.replace("@@ -1,3 +1,3 @@", "@@ -1,4 +1,4 @@"),  # counts past the hunk
    _EDIT.replace("@@ -1,3 +1,3 @@", "@@ -1,2 +1,3 @@"),  # a side runs past its count
    _EDIT.replace("+++ b/src/app.py", "+++ b/src/other.py"),  # unidiff: target without source
    _EDIT + "trailing prose\n",
    _EDIT.replace(NO_NEWLINE, "\\ Kein Zeilenumbruch am Dateiende."),
])
def test_one_pass_leaves_anything_else_to_the_full_reading(text):
    assert not _one_pass_reads(text)
    _assert_same(text)


@pytest.mark.parametrize("name", sorted(seeds()))
def test_seeds_read_alike(name):
    _assert_same(seeds()[name])


def test_mutated_patches_read_alike():
    taken = 0
    for case in mutated_cases(1500, seed=23):
        _assert_same(case.text)
        taken += _one_pass_reads(case.text)
    assert taken >= 150  # the one pass itself was exercised, not only its refusals


def _aimed_mutation(rng: random.Random, text: str) -> str:
    """One change where the one pass decides: a count, a `\\` line, an empty or CR line, a header name."""
    lines = text.split("\n")
    at = rng.randrange(len(lines))
    choice = rng.randrange(9)
    if choice == 0 and lines[at].startswith("@@ -"):
        lines[at] = lines[at].replace(",", f",{rng.randrange(4)}", 1)
    elif choice == 1:
        lines.insert(at, NO_NEWLINE)
    elif choice == 2:
        lines.insert(at, rng.choice(["", "\r", " ", "+", "-", "\\", "\\ x"]))
    elif choice == 3 and lines[at][:1] in " +-":
        lines[at] = lines[at][:1] + lines[at][1:] + "\r"
    elif choice == 4 and lines[at].startswith(("+++ ", "--- ", "diff --git ")):
        lines[at] = lines[at].replace("/", "/x", 1) if rng.random() < 0.5 else lines[at] + "\t2024-01-01"
    elif choice == 5 and lines[at][:1] in " +-":
        del lines[at]
    elif choice == 6:
        lines.insert(at, rng.choice(["deleted file mode 100644", "new file mode 100755", "--- a/z", "+++ b/z",
                                     "@@ -1 +1 @@", "old mode 100644", "Binary files a/x and b/x differ"]))
    elif choice == 7 and lines[at][:1] in " +-":
        lines.insert(at, lines[at])
    else:
        lines[at] = lines[at].replace(" ", "", 1)
    return "\n".join(lines)


def test_aimed_mutations_read_alike():
    rng = random.Random(7)
    texts = [_EDIT, *seeds().values()]
    for _ in range(3000):
        text = rng.choice(texts)
        for _ in range(rng.randrange(1, 3)):
            text = _aimed_mutation(rng, text)
        _assert_same(text)


def test_real_commit_fixtures_read_alike():
    for path in sorted((Path(__file__).resolve().parents[1] / "fixtures" / "diffs").glob("*.diff")):
        _assert_same(path.read_text(encoding="utf-8"))


@pytest.mark.skipif(not CORPUS.is_dir(), reason="unidiff sample corpus not there (an outside check)")
def test_unidiff_samples_read_alike():
    for path in sorted(CORPUS.glob("*.diff")):
        with open(path, encoding="utf-8", newline="") as handle:
            _assert_same(handle.read())


def test_hunk_made_is_the_hunk_its_fields_make():
    import dataclasses
    import inspect

    from judge.patch.model import Hunk

    fields = [field.name for field in dataclasses.fields(Hunk)]
    assert list(inspect.signature(Hunk.made).parameters) == fields  # a new field must be set by made() too
    values = (4, "@@ -1 +1 @@ f", ("-a", "+b"), 1, 1, 1, 1, "f")
    made = Hunk.made(*values)
    assert made == Hunk(*values) and hash(made) == hash(Hunk(*values)) and made.added == ("b",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.line = 5
