"""A second opinion on every label: re-derives the structural part of judge's rule
order (evals/README.md) independently of judge, and checks each case's invariants."""
from __future__ import annotations

import re

from .patchtext import change_counts, patch_paths, revert_ratio

# judge's rules in its order; the first finding wins.
ALL_RULES = [
    "invalid_mode", "mode_mismatch", "failure_with_patch", "failure_without_summary",
    "missing_patch", "missing_files_written", "malformed_patch", "unsafe_path",
    "undeclared_file", "file_not_in_patch", "files_touched_incomplete", "scope_excluded",
    "scope_outside_allowed", "scope_fix_regression", "junk_files", "stub_or_disabled_code",
    "reversal", "placeholder_only", "superficial_only",
]
# The cheat detectors of issue 10: the cheat set (evals/build_cheats.py) covers them; here they may be rare.
CHEAT_RULES = ("junk_files", "stub_or_disabled_code", "placeholder_only")
# Rules reference_rule does not re-derive: a case labelled with one of them must pass
# every structural rule (malformed_patch cases are not checked at all: a broken patch
# may trip anything).
LATE_RULES = ("malformed_patch", "junk_files", "stub_or_disabled_code", "reversal", "placeholder_only",
              "superficial_only")
BAD_SUMMARIES = {"", "failed", "error", "fail", "failure", "n/a", "none"}


def _glob_re(pat: str) -> str:
    out, i = "", 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pat.startswith("/**", i) and i + 3 == len(pat):
            out += "/.*"
            i += 3
        elif pat.startswith("**", i):
            out += ".*"
            i += 2
        elif pat[i] == "*":
            out += "[^/]*"
            i += 1
        elif pat[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pat[i])
            i += 1
    return out


def glob_match(pat: str, path: str) -> bool:
    """gitignore-style: a pattern without "/" matches at any depth, a trailing "/"
    matches directories only, and a match on any parent directory counts."""
    dir_only = pat.endswith("/")
    p = pat.rstrip("/")
    anchored = "/" in p
    p = p.lstrip("/")
    rx = re.compile(("" if anchored else "(?:.*/)?") + _glob_re(p))
    parts = path.split("/")
    cands = ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]
    if dir_only:
        cands = cands[:-1]
    return any(rx.fullmatch(c) for c in cands)


def is_unsafe(path: str) -> bool:
    parts = path.split("/")
    return path.startswith("/") or ".." in parts or ".git" in parts


def _failure_rule(result: dict) -> str | None:
    if (result.get("patch") or "").strip() or result.get("filesWritten"):
        return "failure_with_patch"
    if (result.get("summary") or "").strip().lower() in BAD_SUMMARIES:
        return "failure_without_summary"
    return None


def _declaration_rule(result: dict) -> str | None:
    patch = result.get("patch") or ""
    written = result.get("filesWritten") or []
    if not patch.strip():
        return "missing_patch"
    if not written:
        return "missing_files_written"
    in_patch = patch_paths(patch)
    if any(is_unsafe(p) for p in in_patch | set(written)):
        return "unsafe_path"
    if in_patch - set(written):
        return "undeclared_file"
    if set(written) - in_patch:
        return "file_not_in_patch"
    touched = result.get("filesTouched")
    if touched is None or set(written) - set(touched):
        return "files_touched_incomplete"
    return None


def _scope_rule(step: dict, result: dict) -> str | None:
    written = result.get("filesWritten") or []
    if any(glob_match(g, f) for g in step.get("excludedPaths", []) for f in written):
        return "scope_excluded"
    if "allowedFiles" in step and any(
            not any(glob_match(g, f) for g in step["allowedFiles"]) for f in written):
        return "scope_outside_allowed"
    if result["mode"] == "fix_regression" and set(written) - set(step["applyFiles"]):
        return "scope_fix_regression"
    return None


def reference_rule(step: dict, result: dict) -> str | None:
    """Structural part of judge's rule order, used to double-check labels.
    Returns None when none of the structural rules fires."""
    mode = result["mode"]
    if mode not in ("apply", "fix_regression"):
        return "invalid_mode"
    if step.get("mode", "apply") != mode:
        return "mode_mismatch"
    if not result["success"]:
        return _failure_rule(result)
    return _declaration_rule(result) or _scope_rule(step, result)


def _check_patch_invariants(cid: str, step: dict, res: dict, rule) -> None:
    """What the label promises about the patch itself."""
    patch = res.get("patch") or ""
    plus, minus = change_counts(patch)
    if rule == "reversal":
        assert revert_ratio(step["applyPatch"], patch) >= 0.9, cid
    if step["mode"] == "fix_regression" and rule is None and res["success"]:
        assert revert_ratio(step["applyPatch"], patch) < 0.5, cid
    if rule is None and res["success"]:
        assert plus + minus > 0 or any(k in patch for k in (
            "rename from", "old mode", "GIT binary patch")), cid
    if rule is None:
        for f in res.get("filesWritten") or []:
            assert not f.startswith('"'), cid


def self_check(cases: list[dict]) -> None:
    """Assert that every case is well formed and that its label agrees with
    reference_rule and with what its patch really contains."""
    for c in cases:
        cid, step, res, exp = c["id"], c["step"], c["result"], c["expected"]
        rule = exp.get("rule")
        assert set(c) == {"id", "step", "result", "expected", "tags"}, cid
        assert cid.split("/")[0] == (rule or "valid"), cid
        assert step["id"] and step["description"] and step["mode"] in ("apply", "fix_regression"), cid
        assert "mode" in res and "success" in res, cid
        ref = reference_rule(step, res)
        if rule == "malformed_patch":
            continue
        assert ref == (rule if rule not in LATE_RULES else None), (cid, ref)
        _check_patch_invariants(cid, step, res, rule)
