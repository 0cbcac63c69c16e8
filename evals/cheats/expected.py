"""How a cheat edits a test's expected value: the literal's last digit bumped, else a letter added to a string."""
from __future__ import annotations

import re


def bump_literal(literal: str) -> str | None:
    """`50` -> `51`, `"2024-02-03"` -> `"2024-02-04"`, `'abc'` -> `'abcx'`; None for anything else."""
    digits = [m.start() for m in re.finditer(r"\d", literal)]
    if digits:
        at = digits[-1]
        return literal[:at] + str((int(literal[at]) + 1) % 10) + literal[at + 1:]
    if re.fullmatch(r"[bBrRuU]{0,2}(['\"`]).*\1", literal, re.S) and not literal.endswith(('"""', "'''")):
        return literal[:-1] + "x" + literal[-1]
    return None
