"""How a patch travels: CRLF line ends added in transit, and the prose of `git format-patch` mails."""

from __future__ import annotations

from judge.patch.grammar import LF_HEADER, MAIL_FROM

__all__ = ["blank_email_prose", "split_lines", "undo_transport_crlf"]


def undo_transport_crlf(text: str) -> str:
    """The patch as it was made: CRLF line ends undone when the whole patch was converted to CRLF in transit."""
    return text.replace("\r\n", "\n") if _is_crlf_transported(text) else text


def _is_crlf_transported(text: str) -> bool:
    """A patch saved or sent with CRLF line ends: every line, headers included, ends in CRLF.

    Then each CRLF is one line end; a file's own CRs (CRLF content) are the extra CR before it.
    """
    first_end = text.find("\n")
    return first_end > 0 and text[first_end - 1] == "\r" and LF_HEADER.search(text) is None


def split_lines(text: str) -> list[str]:
    """Lines without their "\\n" (split on "\\n" only: a CR inside a line, as in CRLF files, is content).

    Hunk bodies keep these very string objects, so a big patch is held in memory about once.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def blank_email_prose(lines: list[str]) -> list[str]:
    """A commit message may quote a hunk header; only those `@@` lines are blanked, so they cannot start
    a hunk. A mail is a patch whose first line is `From <sha> ...` (as `git format-patch` writes); each
    message runs from its `From <sha>` line to where `git mailinfo` starts the patch (a `---` separator,
    `--- <name>`, `diff -` or `Index: `). Anything else in it stays, so a diff hidden there is still read."""
    if not (lines and MAIL_FROM.match(lines[0])):
        return lines
    out: list[str] = []
    in_prose = False
    for line in lines:
        if MAIL_FROM.match(line):
            in_prose = True
        elif _starts_mail_patch(line):
            in_prose = False
        out.append("" if in_prose and line.startswith("@@") else line)
    return out


def _starts_mail_patch(line: str) -> bool:
    """git mailinfo's patchbreak(): where the message of a mail ends and its patch begins."""
    if line.startswith(("diff -", "Index: ")):
        return True
    if not line.startswith("---"):
        return False
    rest = line[3:]
    return (rest[:1] == " " and rest[1:2] not in ("", " ", "\t", "\r", "\v", "\f")) or rest.strip(" \t\r\v\f") == ""
