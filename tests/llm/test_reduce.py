"""Fitting a big patch into the prompt: every file accounted for, every marker visible, never a silent cut."""

import re
import time

import pytest

import judge
from helpers.builders import make_case
from judge.config import JudgeConfig
from judge.patch.parse import parse_patch
from judge.llm.reduce import CHARS_PER_TOKEN, reduce_patch
from helpers.loopback import content, scripted_server  # noqa: F401 - scripted_server is a fixture

SLACK = 400  # a marker line or two past the budget at most


def make_patch(files: int, hunks: int, *, context: int = 3, changed: int = 8, width: int = 70,
               prefix: str = "src/pkg") -> str:
    """A git patch of `files` Python files, each with `hunks` hunks of `changed` -/+ pairs amid `context` lines."""
    pad = "x" * max(0, width - 30)
    out = []
    for f in range(files):
        path = f"{prefix}/mod_{f:03d}.py"
        out.append(f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n")
        for h in range(hunks):
            start = 1 + h * (2 * context + changed + 10)
            size = 2 * context + changed
            out.append(f"@@ -{start},{size} +{start},{size} @@ def f{h}():\n")
            out.extend(f"     c_{f}_{h}_{i} = '{pad}'\n" for i in range(context))
            out.extend(f"-    v_{f}_{h}_{i} = {i}  # {pad}\n" for i in range(changed))
            out.extend(f"+    v_{f}_{h}_{i} = {i + 1}  # {pad}\n" for i in range(changed))
            out.extend(f"     d_{f}_{h}_{i} = '{pad}'\n" for i in range(context))
    return "".join(out)


def changed_lines(text: str) -> list[str]:
    return [line for line in text.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))]


def file_paths(facts) -> list[str]:
    return [change.path for change in facts.files]


@pytest.fixture(scope="module")
def big_patch():
    text = make_patch(files=200, hunks=10)
    return text, parse_patch(text)


def test_a_small_patch_is_returned_unchanged():
    text = make_patch(files=1, hunks=1)
    assert reduce_patch(text, parse_patch(text), max_tokens=6000) == (text, "")


def test_a_patch_exactly_at_the_budget_is_unchanged():
    text = make_patch(files=2, hunks=2)
    tokens = -(-len(text) // CHARS_PER_TOKEN)
    assert reduce_patch(text, parse_patch(text), max_tokens=tokens) == (text, "")


def test_the_big_patch_is_multi_megabyte(big_patch):
    text, facts = big_patch
    assert len(text) > 2_500_000 and len(facts.files) == 200


def test_a_multi_megabyte_patch_fits_the_budget(big_patch):
    text, facts = big_patch
    started = time.perf_counter()
    reduced, note = reduce_patch(text, facts, max_tokens=6000)
    assert time.perf_counter() - started < 5
    assert len(reduced) <= 6000 * CHARS_PER_TOKEN + SLACK, len(reduced)


def test_thousands_of_files_still_fit_the_budget():
    text = make_patch(files=5000, hunks=1, context=1, changed=1)
    reduced, note = reduce_patch(text, parse_patch(text), max_tokens=6000)
    assert "[judge:" in reduced and note
    assert len(reduced) <= 6000 * CHARS_PER_TOKEN + SLACK, f"{len(reduced)} chars for a budget of {6000 * CHARS_PER_TOKEN}"


def test_every_file_of_a_multi_megabyte_patch_is_accounted_for(big_patch):
    text, facts = big_patch
    reduced, _ = reduce_patch(text, facts, max_tokens=6000)
    for path in file_paths(facts):
        shown = f"+++ b/{path}\n" in reduced
        summarised = re.search(rf"^\[judge: [^\n]*{re.escape(path)}[^\n]*not shown", reduced, flags=re.M)
        assert shown or summarised, path


def test_the_note_says_what_was_reduced(big_patch):
    text, facts = big_patch
    reduced, note = reduce_patch(text, facts, max_tokens=6000)
    assert note.startswith("reduced")
    assert "context" in note and "summarised" in note
    shown = sum(f"+++ b/{p}\n" in reduced for p in file_paths(facts))
    assert f"{200 - shown} of 200 files" in note


def test_summary_lines_count_the_changes(big_patch):
    text, facts = big_patch
    reduced, _ = reduce_patch(text, facts, max_tokens=6000)
    last = facts.files[-1]
    assert f"[judge: {last.path} not shown (+80 -80 lines)]" in reduced


def test_every_marker_starts_with_judge(big_patch):
    text, facts = big_patch
    reduced, _ = reduce_patch(text, facts, max_tokens=6000)
    markers = [line for line in reduced.splitlines() if "not shown" in line]
    assert markers
    assert all(line.startswith("[judge: ") and line.endswith("]") for line in markers)


def test_shown_files_keep_every_changed_line(big_patch):
    text, facts = big_patch
    reduced, _ = reduce_patch(text, facts, max_tokens=6000)
    for change in facts.files:
        if f"+++ b/{change.path}\n" in reduced:
            for hunk in change.hunks:
                for line in hunk.body:
                    if line[0] in "+-":
                        assert f"\n{line}\n" in reduced, line


def test_context_trimming_alone_keeps_every_changed_line_in_order():
    text = make_patch(files=10, hunks=1, context=20, changed=1, width=40)
    facts = parse_patch(text)
    reduced, note = reduce_patch(text, facts, max_tokens=2000)
    assert len(text) > 2000 * CHARS_PER_TOKEN >= len(reduced)
    assert note == "reduced: context lines trimmed, every changed line kept"
    assert changed_lines(reduced) == changed_lines(text)
    assert not any(line.startswith(" ") for line in reduced.splitlines())  # context is gone
    assert reduced.count("[judge: 40 context lines of this hunk not shown]") == 10
    assert all(f"+++ b/{p}\n" in reduced for p in file_paths(facts))
    assert "not shown (+" not in reduced  # no file summarised


def test_context_trimming_keeps_hunk_headers():
    text = make_patch(files=3, hunks=4, context=30, changed=1, width=40)
    facts = parse_patch(text)
    reduced, _ = reduce_patch(text, facts, max_tokens=1500)
    headers = [line for line in text.splitlines() if line.startswith("@@")]
    assert [line for line in reduced.splitlines() if line.startswith("@@")] == headers


def test_a_single_oversized_file_shows_its_first_hunks_and_a_marker():
    text = make_patch(files=1, hunks=300)
    facts = parse_patch(text)
    reduced, note = reduce_patch(text, facts, max_tokens=1000)
    path = facts.files[0].path
    assert reduced.startswith(f"--- a/{path}\n+++ b/{path}\n")
    assert len(reduced) <= 1000 * CHARS_PER_TOKEN + SLACK
    first = facts.files[0].hunks[0]
    assert first.header in reduced and all(f"\n{line}\n" in reduced for line in first.body if line[0] in "+-")
    marker = re.search(rf"^\[judge: (\d+) more hunks of {re.escape(path)} not shown \(\+(\d+) -(\d+) lines\)\]$",
                       reduced, flags=re.M)
    assert marker, reduced[-300:]
    hidden = int(marker.group(1))
    shown = reduced.count("\n@@ ") + reduced.startswith("@@ ")
    assert hidden + shown == 300
    assert int(marker.group(2)) == int(marker.group(3)) == 8 * hidden
    assert note


def test_the_oversized_first_file_does_not_hide_the_others():
    text = make_patch(files=1, hunks=300, prefix="big") + make_patch(files=3, hunks=1, prefix="small")
    facts = parse_patch(text)
    reduced, _ = reduce_patch(text, facts, max_tokens=1000)
    for path in file_paths(facts)[1:]:
        assert path in reduced


def test_a_new_file_keeps_its_flag():
    body = "".join(f"+line {i} {'y' * 60}\n" for i in range(300))
    text = f"diff --git a/src/new.py b/src/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/src/new.py\n@@ -0,0 +1,300 @@\n{body}"
    text += make_patch(files=5, hunks=20)
    facts = parse_patch(text)
    reduced, _ = reduce_patch(text, facts, max_tokens=500)
    assert reduced.startswith("--- /dev/null\n+++ b/src/new.py\n# new file\n")


@pytest.mark.loopback
def test_a_multi_megabyte_case_sends_a_small_request(scripted_server):
    patch = make_patch(files=200, hunks=10)
    assert len(patch) > 2_500_000
    files = [f"src/pkg/mod_{f:03d}.py" for f in range(200)]
    step, result = make_case(patch, filesWritten=files, filesTouched=files,
                             step={"description": "Bump every v_* constant in src/pkg by one"})
    server = scripted_server([content(True, "bumps every constant")])
    config = JudgeConfig(model="openai/judge-test", api_base=server.api_base, retries=0, timeout=5, deadline=10,
                         output_mode="none")
    verdict = judge.validate(step, result, config=config)
    assert server.count == 1, verdict.reason
    request = server.requests[0]
    assert request.size < 100_000
    user = request.body["messages"][1]["content"]
    assert "[judge:" in user
    assert "reduced" in user  # the patch note tells the model it is not seeing everything
    assert verdict.semantic_review is not None and verdict.semantic_review.patch_reduction.startswith("reduced")
