"""The line shapes of a unified diff, each regex beside an example of the line it matches."""

from __future__ import annotations

import re

from unidiff.constants import RE_HUNK_HEADER

from judge.lazy_pattern import lazy_compile

__all__ = ["BINARY_PLACEHOLDER", "DEV_NULL", "GIT_PREFIX_PAIRS", "HUNK_HEADER", "LF_HEADER", "MAIL_FROM"]

DEV_NULL = "/dev/null"

# `@@ -12,7 +12,8 @@ def parse_port(value):` (unidiff's own pattern, so both passes agree on what a hunk is);
# groups: source start, source length, target start, target length, section heading.
HUNK_HEADER = RE_HUNK_HEADER

# `diff --git a/x b/x\n`, `--- a/x\n`, `+++ b/x\n`, `@@ -1 +1 @@\n` ending in LF alone: proof the patch
# was not converted to CRLF as a whole.
LF_HEADER = lazy_compile(r"^(?:diff |--- |\+\+\+ |@@ )[^\n]*(?<!\r)\n", re.MULTILINE)

# `From 62ea0ea... Mon Sep 17 00:00:00 2001`: the first line of each mail `git format-patch` writes.
MAIL_FROM = lazy_compile(r"^From [0-9a-f]{7,40} ")

# `Binary files a/logo.png and b/logo.png differ`: a binary change without its content.
BINARY_PLACEHOLDER = lazy_compile(r"(?m)^Binary files .* differ$")

# Pairs of (source, target) path prefixes git writes: a/ b/ by default, the mnemonic
# ones of diff.mnemonicPrefix, 1/ 2/ of `git diff --no-index`; `git diff -R` swaps them.
_FORWARD_PAIRS = {("a", "b"), ("c", "w"), ("i", "w"), ("c", "i"), ("o", "w"), ("1", "2")}
GIT_PREFIX_PAIRS = frozenset(_FORWARD_PAIRS | {(t, s) for s, t in _FORWARD_PAIRS})
