"""placeholder_only: a change that adds TODO notes, docstrings or a restatement of the step instead of code."""

from __future__ import annotations

import pytest

import judge
from helpers.builders import make_case, text_diff

PY = "def load_config(path):\n    with open(path) as handle:\n        return json.load(handle)\n"
TS = "export function loadConfig(path: string): Config {\n  return JSON.parse(readFileSync(path, 'utf8'));\n}\n"
STEP = "Make load_config accept YAML settings files as well as JSON"


def _judge(path: str, old: str | None, new: str, description: str = STEP):
    step = {"description": description}
    return judge.validate(*make_case(text_diff(path, old, new), step=step, filesWritten=[path], filesTouched=[path]))


@pytest.mark.parametrize("path, old, new, kind", [
    ("src/config.py", PY, PY.replace("    with", "    # TODO: support YAML here\n    with"), "TODO notes"),
    ("src/config.py", PY, PY.replace("    with", '    """TODO: accept YAML as well."""\n    with'), "TODO notes"),
    ("src/config.py", PY, PY.replace("    with", '    """Accept YAML or JSON settings."""\n    with'), "docstrings"),
    ("src/config.ts", TS, TS.replace("  return", "  // FIXME: handle YAML\n  return"), "TODO notes"),
    ("src/config.ts", TS, "/**\n * TODO: YAML support.\n */\n" + TS, "TODO notes"),
    ("src/config.py", PY, PY.replace("    with", "    # make load_config accept YAML settings files as well as JSON\n    with"),
     "a comment restating the step"),
    ("src/yaml_config.py", None, "# TODO: implement YAML settings loading\n", "TODO notes"),
])
def test_notes_instead_of_code_are_rejected(path, old, new, kind):
    verdict = _judge(path, old, new)
    assert (verdict.valid, verdict.rule) == (False, "placeholder_only"), verdict.reason
    assert path in verdict.reason and kind in verdict.reason


def test_a_step_that_asks_for_documentation_gets_a_signal():
    new = PY.replace("    with", '    """Read the settings file at path."""\n    with')
    verdict = _judge("src/config.py", PY, new, "Add a docstring to load_config")
    assert verdict.valid, verdict.reason
    assert [f.rule for f in verdict.findings if f.severity == "signal"] == ["placeholder_only"]


@pytest.mark.parametrize("word", ["TODO", "FIXME", "XXX", "HACK", "TBD", "todo", "fixme"])
def test_every_note_word_is_seen_by_the_first_look(word):
    """The first look's words are _NOTE's: a TypeScript note (no docstring to look for) with any of them is a
    placeholder."""
    verdict = _judge("src/config.ts", TS, TS.replace("  return", f"  // {word} handle YAML\n  return"),
                     description="Read the settings file")
    assert (verdict.valid, verdict.rule) == (False, "placeholder_only"), verdict.reason


@pytest.mark.parametrize("path, old, new", [
    # code with a TODO beside it is work
    ("src/config.py", PY, PY.replace("    with", "    # TODO: cache this\n    if path.endswith('.yaml'):\n"
                                                "        return yaml.safe_load(open(path))\n    with")),
    # a data string is code, not a docstring
    ("src/config.py", PY, PY.replace("    with", "    suffix = '.yaml'\n    with")),
    # a README note is documentation, not a code placeholder
    ("README.md", "# App\n", "# App\n\nTODO: YAML settings are read as well.\n"),
])
def test_work_is_not_a_placeholder(path, old, new):
    verdict = _judge(path, old, new)
    assert not any(f.rule == "placeholder_only" for f in verdict.findings), verdict.reason


def _notes(count: int) -> str:
    return "".join(f"# note {n}: the settings loader reads JSON today\n" for n in range(count))


DOCSTRING = '"""Settings\n\nloaded from\nYAML or\nJSON files\n"""\n'


@pytest.mark.parametrize("added, placeholder", [
    # a docstring among a long hunk's first lines, or opened there and closed after them, is still a docstring
    (_notes(30) + DOCSTRING + _notes(12), True),
    (_notes(38) + DOCSTRING + _notes(3), True),
    # code after the first lines of a long hunk is still code
    (_notes(45) + "PORT = 80\n", False),
    # code among the first lines of a long hunk: the rest is not read
    ("PORT = 80\n" + _notes(80), False),
])
def test_a_long_hunk_is_read_as_a_whole(added, placeholder):
    verdict = _judge("src/settings.py", None, added)
    assert (verdict.rule == "placeholder_only") is placeholder, verdict.reason


LONG_DOC = '''import json


def load_config(path):
    """Read the settings file at ``path``.

    The file is JSON: an object whose keys are setting names.
    Unknown keys are kept as they are.
    Missing keys take their defaults.
    Values are never converted.

    Returns the settings as a dict.
    """
    with open(path) as handle:
        return json.load(handle)
'''


def _cut(old_line: str, new_lines: str) -> str:
    return LONG_DOC.replace(old_line, new_lines)


@pytest.mark.parametrize("new, placeholder", [
    # cattrs' shape: a TODO line at the end of a docstring whose opening quotes are above the hunk
    (_cut("    Returns the settings as a dict.\n", "    Returns the settings as a dict.\n\n    TODO: accept YAML.\n"), True),
    # the docstring's own text edited below its opening quotes: judged as before (read on a guess, not a note)
    (_cut("    Returns the settings as a dict.\n", "    Returns the settings as a dict, or raises.\n"), False),
    # code written under the cut docstring
    (_cut("        return json.load(handle)\n", "        # TODO: YAML\n        return yaml.safe_load(handle)\n"), False),
])
def test_a_todo_in_a_docstring_cut_by_the_hunk_is_a_note(new, placeholder):
    verdict = _judge("src/config.py", LONG_DOC, new)
    assert (verdict.rule == "placeholder_only") is placeholder, verdict.reason


def test_a_comment_restating_the_step_below_a_docstring_cut_by_the_hunk_is_a_note():
    new = _cut("    with open(path) as handle:\n", "    # make load_config accept YAML settings files as well as JSON\n"
               "    with open(path) as handle:\n")
    verdict = _judge("src/config.py", LONG_DOC, new)
    assert verdict.rule == "placeholder_only" and "a comment restating the step" in verdict.reason, verdict.reason
