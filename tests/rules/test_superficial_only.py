"""Rules 7 and 8 (deterministic part): a patch that changes nothing is malformed; superficial_only."""

import pytest

import judge
from helpers.builders import diff, make_case

CONTEXT_ONLY = """diff --git a/src/app.py b/src/app.py
index 1111111..2222222 100644
--- a/src/app.py
+++ b/src/app.py
@@ -5,3 +5,3 @@ import sys
 
 def parse_port(value):
     return int(value)
"""

EMPTY_HUNK = "--- a/src/app.py\n+++ b/src/app.py\n@@ -0,0 +0,0 @@\n"


@pytest.mark.parametrize("patch", [CONTEXT_ONLY, EMPTY_HUNK])
def test_patch_without_added_or_removed_lines_is_malformed_as_git_apply_says(patch):
    # Issue 11: git apply calls a hunk without + or - lines a corrupt patch; the retired zero_impact rule used to catch these.
    verdict = judge.validate(*make_case(patch))
    assert verdict.rule == "malformed_patch"
    assert "changes nothing" in verdict.reason


@pytest.mark.parametrize(
    "fixture, files",
    [
        ("rename_only.diff", ["src/helpers.py", "src/utils.py"]),
        ("mode_only.diff", ["scripts/run.sh"]),
        ("new_empty_file.diff", ["src/__init__.py"]),
        ("binary_added_git_binary.diff", ["assets/logo.png"]),
    ],
)
def test_changes_without_lines_have_impact(fixture, files):
    verdict = judge.validate(*make_case(diff(fixture), filesWritten=files, filesTouched=files))
    assert verdict.valid, verdict.reason


def test_binary_file_without_its_content_is_malformed():
    files = ["assets/logo.png"]
    verdict = judge.validate(*make_case(diff("binary_added.diff"), filesWritten=files, filesTouched=files))
    assert (verdict.valid, verdict.rule) == (False, "malformed_patch")
    assert "assets/logo.png" in verdict.reason and "git diff --binary" in verdict.reason


@pytest.mark.parametrize(
    "fixture, path",
    [
        ("python_comment_only.diff", "src/app.py"),
        ("python_whitespace_only.diff", "src/app.py"),
        ("ts_comment_only.diff", "src/service.ts"),
        ("ts_reformat.diff", "src/service.ts"),
    ],
)
def test_whitespace_or_comment_only_apply_is_superficial(fixture, path):
    verdict = judge.validate(*make_case(diff(fixture), filesWritten=[path], filesTouched=[path]))
    assert verdict.rule == "superficial_only"
    assert path in verdict.reason


def test_python_reindent_is_a_real_change():
    assert judge.validate(*make_case(diff("python_reindent.diff"))).valid


def test_tool_directive_comment_is_a_real_change():
    files = ["src/service.ts"]
    assert judge.validate(*make_case(diff("ts_eslint_directive.diff"), filesWritten=files, filesTouched=files)).valid


def test_superficial_edit_the_step_asks_for_is_only_a_signal():
    step, result = make_case(diff("python_comment_only.diff"), step={"description": "Add a comment explaining parse_port()"})
    verdict = judge.validate(step, result)
    assert verdict.valid
    assert [s.rule for s in verdict.signals] == ["superficial_only"]


def test_superficial_rule_is_for_apply_mode_only():
    step, result = make_case(diff("python_comment_only.diff"), mode="fix_regression",
                             step={"mode": "fix_regression", "applyFiles": ["src/app.py"]})
    assert judge.validate(step, result).valid


def test_one_real_change_among_cosmetic_ones_is_not_superficial():
    patch = diff("python_comment_only.diff") + diff("multi_file.diff").split("diff --git a/src/service.ts")[0].split("diff --git a/src/app.py")[0]
    files = ["src/app.py", "README.md"]
    assert judge.validate(*make_case(patch, filesWritten=files, filesTouched=files)).valid


def test_c_continuation_line_starting_with_a_star_is_code():
    # Review finding: `* factor` continues an expression; it is not inside a block comment.
    patch = ("--- a/src/calc.c\n+++ b/src/calc.c\n@@ -1,3 +1,3 @@\n int scale(int x, int factor) {\n"
             "     return x\n-        * factor;\n+        * (factor + 1);\n")
    files = ["src/calc.c"]
    assert judge.validate(*make_case(patch, filesWritten=files, filesTouched=files)).valid


def test_hunk_that_starts_inside_a_doc_comment_is_still_read_as_comment():
    patch = ("--- a/src/calc.c\n+++ b/src/calc.c\n@@ -4,3 +4,3 @@\n  * Scale x.\n"
             "- * Returns the product.\n+ * Returns x times factor.\n  */\n")
    files = ["src/calc.c"]
    assert judge.validate(*make_case(patch, filesWritten=files, filesTouched=files)).rule == "superficial_only"


@pytest.mark.parametrize("description", ["Fix the typo in the comment of parse_port()", "nit: tidy the header",
                                         "Explain why parse_port() clamps", "Document parse_port()"])
def test_steps_that_ask_for_words_not_code_only_signal(description):
    step, result = make_case(diff("python_comment_only.diff"), step={"description": description})
    assert judge.validate(step, result).valid


@pytest.mark.parametrize("description", ["Add an X-Request-Id header to every response", "Format dates as ISO 8601",
                                         "Add a note field to the User model", "Strip the trailing slash from URLs"])
def test_behaviour_steps_that_share_a_cosmetic_word_still_reject_cosmetic_patches(description):
    step, result = make_case(diff("python_comment_only.diff"), step={"description": description})
    assert judge.validate(step, result).rule == "superficial_only"


def _case(path: str, body: str, description: str = "Make parse_port() reject out-of-range ports") -> tuple[dict, dict]:
    patch = f"--- a/{path}\n+++ b/{path}\n{body}"
    return make_case(patch, filesWritten=[path], filesTouched=[path], step={"description": description})


MOVED_STATEMENT = ("@@ -1,5 +1,5 @@\n def parse_port(value):\n+    log(value)\n     port = int(value)\n"
                   "     check(port)\n-    log(value)\n     return port\n")
SWAPPED_BLOCKS = ("@@ -1,4 +1,4 @@\n-init();\n-load();\n+load();\n+init();\n run();\n end();\n")


@pytest.mark.parametrize("path, body", [("src/app.py", MOVED_STATEMENT), ("src/app.js", SWAPPED_BLOCKS)],
                         ids=["python-statement-moved-across-unchanged-lines", "js-blocks-swapped"])
def test_moved_code_is_a_behaviour_change(path, body):
    verdict = judge.validate(*_case(path, body))
    assert verdict.valid, verdict.reason


CONTINUATION_REINDENT = ("@@ -1,3 +1,3 @@\n def parse_port(value):\n     return clamp(int(value),\n"
                         "-                 1, 65535)\n+                  1, 65535)\n")
BACKSLASH_REINDENT = ("@@ -1,3 +1,3 @@\n def total(a, b):\n     return a + \\\n-        b\n+            b\n")
REWRAPPED_CALL = ("@@ -1,2 +1,3 @@\n def parse_port(value):\n-    return clamp(int(value), 1, 65535)\n"
                  "+    return clamp(int(value),\n+                 1, 65535)\n")


@pytest.mark.parametrize("body", [CONTINUATION_REINDENT, BACKSLASH_REINDENT, REWRAPPED_CALL],
                         ids=["inside-brackets", "after-backslash", "call-rewrapped"])
def test_python_continuation_lines_carry_no_significant_indentation(body):
    assert judge.validate(*_case("src/app.py", body)).rule == "superficial_only"
    step, result = _case("src/app.py", body, description="Reformat src/app.py with black")
    verdict = judge.validate(step, result)
    assert verdict.valid and [s.rule for s in verdict.signals] == ["superficial_only"]


def test_reindenting_a_python_block_is_still_code():
    body = "@@ -1,3 +1,3 @@\n if ready:\n     start()\n-stop()\n+    stop()\n"
    assert judge.validate(*_case("src/app.py", body)).valid


@pytest.mark.parametrize("description", ["Annotate parse_port() with type hints", "Uncomment the retry in parse_port()",
                                         "Fix the pylint warnings in src/app.py", "Configure autodoc for the API",
                                         "Parse the XML document header"])
def test_cosmetic_words_count_only_as_whole_words(description):
    step, result = make_case(diff("python_comment_only.diff"), step={"description": description})
    assert judge.validate(step, result).rule == "superficial_only"


WHITESPACE_ONLY = "@@ -1,2 +1,3 @@\n def parse_port(value):\n+\n     return int(value)\n"


def test_the_exemption_matches_the_kind_of_edit():
    # A documentation step exempts comment edits, not whitespace; a formatting step the reverse.
    assert judge.validate(*_case("src/app.py", WHITESPACE_ONLY, "Document parse_port()")).rule == "superficial_only"
    assert judge.validate(*_case("src/app.py", WHITESPACE_ONLY, "Remove blank lines and fix spacing")).valid
    step, result = make_case(diff("python_comment_only.diff"), step={"description": "Remove trailing whitespace"})
    assert judge.validate(step, result).rule == "superficial_only"


def test_adding_trailing_whitespace_is_never_cosmetic_work():
    adds = "@@ -1,2 +1,2 @@\n-def parse_port(value):\n+def parse_port(value):  \n     return int(value)\n"
    removes = "@@ -1,2 +1,2 @@\n-def parse_port(value):  \n+def parse_port(value):\n     return int(value)\n"
    assert judge.validate(*_case("src/app.py", adds, "Remove trailing whitespace")).rule == "superficial_only"
    assert judge.validate(*_case("src/app.py", removes, "Remove trailing whitespace")).valid


def test_hunk_that_starts_inside_a_docstring_is_read_from_inside_it():
    # urllib3 2.2.1: the hunk's context holds only the closing quotes of a docstring opened above it, so
    # read from a neutral start the whole side ends inside a string; read from inside, it is code again.
    patch = ('--- a/src/url.py\n+++ b/src/url.py\n@@ -10,5 +10,6 @@ def parse(url):\n'
             '     Returns the parts.\n     """\n     parsed_url = parse_url(url)\n+\n     return parsed_url\n \n')
    verdict = judge.validate(*make_case(patch, filesWritten=["src/url.py"], filesTouched=["src/url.py"]))
    assert verdict.rule == "superficial_only", verdict.reason


def test_a_change_inside_a_docstring_cut_by_the_hunk_is_not_called_superficial_when_it_is_code():
    # The one `"""` in view opens a docstring that goes on below: the added line is text, not code, and the
    # starts disagree (one side neutral, the other not), so nothing is called superficial on a guess.
    patch = ('--- a/src/url.py\n+++ b/src/url.py\n@@ -10,4 +10,4 @@\n def parse(url):\n     """\n'
             '-    Returns the parts.\n+    Returns the parts, or raises.\n')
    verdict = judge.validate(*make_case(patch, filesWritten=["src/url.py"], filesTouched=["src/url.py"]))
    assert verdict.rule != "superficial_only", verdict.reason


TOP = ' # SPDX-License-Identifier: MIT\n # under the terms of the licence.\n import os\n """\n Read the settings.\n'


@pytest.mark.parametrize("old, new, superficial", [
    (" # under the terms of the licence.\n", "-# under the terms of the licence.\n+# under the terms (see LICENSE).\n", True),
    (" Read the settings.\n", "-Read the settings.\n+Read the settings, or fail.\n", False),  # the docstring's text
    (" import os\n", "-import os\n+import os.path\n", False),
])
def test_a_hunk_at_the_top_of_a_file_that_ends_inside_its_docstring_is_read_from_the_top(old, new, superficial):
    # structlog's licence header above its module docstring: nothing above line 1 can open a string, and the one the
    # hunk leaves open runs on through lines both sides share
    patch = "--- a/src/settings.py\n+++ b/src/settings.py\n@@ -1,5 +1,5 @@\n" + TOP.replace(old, new)
    verdict = judge.validate(*make_case(patch, filesWritten=["src/settings.py"], filesTouched=["src/settings.py"]))
    assert (verdict.rule == "superficial_only") is superficial, verdict.reason


@pytest.mark.parametrize("path, old, new, superficial", [
    # the words of a directive across two changed lines (inside a block comment) steer no tool
    ("m.js", " * a type:", "ignore b", True),
    ("m.py", "x = 1  # pylint", "x = 1  # pylint: disable=foo", False),  # a directive on one changed line is code
    ("m.py", "#!not a shebang", "# not a shebang", True),  # `#!` counts at a file's start, not in a hunk
])
def test_directives_are_read_one_changed_line_at_a_time(path, old, new, superficial):
    from judge.patch.lexer import is_superficial_hunk, syntax_for
    from judge.patch.parse import parse_patch

    text = f"--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n /*\n-{old}\n+{new}\n */\n"
    if path.endswith(".py"):
        text = f"--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n-{old}\n+{new}\n y = 2\n"
    hunk = parse_patch(text).files[0].hunks[0]
    assert is_superficial_hunk(hunk, syntax_for(path)) is superficial
