"""Seed 001's "Execution Evidence" table in Markdown: one row per record, every cell safe from what the command wrote.

A record is the executor's data: its step id, command and artifact paths may hold pipes,
backticks, newlines or HTML. A GFM table row ends at a newline and splits at every unescaped
``|`` before any inline parsing (a code span does not protect it), so every cell is one line,
its pipes escaped, and its characters shown, never interpreted. Renderers disagree on a
backslash before a pipe (cmark-gfm and markdown-it escape the pipe; micromark pairs the
backslashes first), so such backslashes are doubled: the row splits the same in all three.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Iterable
from urllib.parse import quote

from judge.contract.models import ExecutionEvidence
from judge.lazy_pattern import lazy_compile
from judge.runs.observe import failure_class
from judge.runs.record import derived_status, evidence_hash

__all__ = ["COMMAND_CHARS", "HEADER", "code_span", "markdown_text", "render_record_table", "status_text"]

HEADER = "| Step | Command | Exit Code | Status | Evidence Hash | Artifacts |"
_RULE = "|------|---------|-----------|--------|---------------|-----------|"
COMMAND_CHARS = 80
_LINKED = (("stdout", "stdout.log"), ("stderr", "stderr.log"), ("evidence", "evidence.json"))

_PUNCTUATION = lazy_compile(r"([\\`*_\[\]|~!#])")
_PIPE_AFTER_BACKSLASHES = lazy_compile(r"(\\*)\|")
_BACKTICK_RUN = lazy_compile(r"`+")


def render_record_table(records: Iterable[ExecutionEvidence], *,
                          link_base: str | os.PathLike[str] | None = None) -> str:
    """The table, in the order given; artifact links are relative to ``link_base`` when given, else as recorded."""
    return "\n".join([HEADER, _RULE, *(_row(record, link_base) for record in records)]) + "\n"


def status_text(record: ExecutionEvidence) -> str:
    """EDITED when the hash does not verify; else the status its facts mean, with the failure class when it says more."""
    if evidence_hash(record.command, record.stdout, record.stderr, record.exit_code) != record.evidence_hash:
        return "EDITED"  # what it says it did is not what was recorded: no status of it can be believed
    status = derived_status(record.exit_code, record.timed_out, record.error)
    kind = failure_class(record)
    return status if kind in (None, status) else f"{status} ({kind})"


def markdown_text(text: str) -> str:
    """``text`` as literal inline Markdown on one line: control characters shown as escapes, HTML and
    Markdown punctuation escaped."""
    text = _visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _PUNCTUATION.sub(r"\\\1", text)


def code_span(text: str) -> str:
    """``text`` as a one-line code span that a table cell can hold: a fence longer than any backtick run in it."""
    text = _PIPE_AFTER_BACKSLASHES.sub(lambda m: "\\" * (2 * len(m.group(1))) + "\\|", _visible(text))
    longest = max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)
    fence, pad = "`" * (longest + 1), " " if longest else ""  # CommonMark strips one space each side
    return f"{fence}{pad}{text}{pad}{fence}"


def _row(record: ExecutionEvidence, link_base: str | os.PathLike[str] | None) -> str:
    command = shlex.join(record.command)
    if len(command) > COMMAND_CHARS:
        command = command[:COMMAND_CHARS - 1] + "…"
    cells = (
        markdown_text(record.step_id),
        code_span(command),
        "-" if record.exit_code is None else str(record.exit_code),
        markdown_text(status_text(record)),
        code_span(record.evidence_hash[:12] + "..."),
        _links(record, link_base),
    )
    return "| " + " | ".join(cells) + " |"


def _links(record: ExecutionEvidence, link_base: str | os.PathLike[str] | None) -> str:
    links = []
    for label, name in _LINKED:
        path = next((Path(artifact) for artifact in record.artifacts if Path(artifact).name == name), None)
        if path is not None:
            target = Path(os.path.relpath(path, link_base)) if link_base is not None else path
            links.append(f"[{label}]({quote(target.as_posix(), safe='/', errors='surrogateescape')})")
    return " ".join(links) or "-"


def _visible(text: str) -> str:
    """Newlines, tabs, terminal escapes, bidi overrides and other unprintable characters as their escapes."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)
