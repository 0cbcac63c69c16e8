"""Case records: step and result dicts in the eval-case format, the one-defect copies of
them, their tags, and the ordered set every builder adds its cases to."""
from __future__ import annotations

import copy
import os

from .changes import Change
from .corpus import PROJECT_LANG
from .patchtext import change_counts, patch_paths, rewrite_paths

EXT_LANG = {
    ".py": "python", ".ts": "typescript", ".tsx": "typescript", ".js": "javascript",
    ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c",
    ".sh": "shell", ".yml": "yaml", ".yaml": "yaml", ".json": "json",
    ".md": "markdown", ".toml": "toml", ".sql": "sql", ".csv": "csv",
    ".properties": "properties", ".xml": "xml", ".lock": "toml",
}
NAME_LANG = {"Makefile": "make", "pre-commit": "shell"}

# with_(obj, key=DROP) removes key: a case whose defect is a missing field.
DROP = object()

# Feature tag -> the texts that mark it in a patch (any one of them is enough).
PATCH_FEATURES = {
    "rename": ("\nrename from ",),
    "binary": ("GIT binary patch", "\nBinary files "),
    "crlf": ("\r\n",),
    "no-newline": ("\\ No newline at end of file",),
    "quoted-path": ('"a/', '"b/'),
    "new-file": ("\nnew file mode ",),
    "deleted-file": ("\ndeleted file mode ",),
    "mode-change": ("\nold mode ",),
}


def languages(paths) -> set[str]:
    langs = set()
    for p in paths:
        name = p.rsplit("/", 1)[-1]
        if name in NAME_LANG:
            langs.add(NAME_LANG[name])
        ext = os.path.splitext(name)[1]
        if ext in EXT_LANG:
            langs.add(EXT_LANG[ext])
    return langs


def feature_tags(patch: str) -> set[str]:
    """The feature tags (evals/README.md) that can be read off the patch text."""
    tags = {tag for tag, marks in PATCH_FEATURES.items() if any(m in patch for m in marks)}
    plus, minus = change_counts(patch)
    if plus + minus > 2000:
        tags.add("large")
    if patch.startswith("--- ") or (patch.startswith("diff -") and not patch.startswith("diff --git")):
        tags.add("plain-diff")
    return tags


def mk_step(desc, mode="apply", allowed=None, excluded=None, apply: Change | None = None):
    s = {"description": desc, "mode": mode}
    if allowed is not None:
        s["allowedFiles"] = list(allowed)
    if excluded is not None:
        s["excludedPaths"] = list(excluded)
    if apply is not None:
        s["applyFiles"] = list(apply.files)
        s["applyPatch"] = apply.patch
    return s


def mk_result(ch: Change | None, summary, mode="apply", written=None, touched=None):
    """A successful result that declares exactly the files of ch unless told otherwise."""
    files = list(ch.files) if written is None else list(written)
    return {
        "mode": mode,
        "success": True,
        "patch": ch.patch if ch is not None else "",
        "filesWritten": files,
        "filesTouched": list(files) if touched is None else list(touched),
        "summary": summary,
    }


def patch_result(patch: str, files: list[str], summary: str) -> dict:
    """A successful apply result for a patch no Change made (a labelled diff that
    reaches outside any repository)."""
    return {"mode": "apply", "success": True, "patch": patch, "filesWritten": files,
            "filesTouched": files, "summary": summary}


def relocated_result(ch: Change, summary, old: str, new: str) -> dict:
    """The result of ch with the prefix old of its paths turned into new, in the patch
    headers and in the declared files. How a change to where git cannot make one (.git/,
    outside the repository) is made: for real under old (dotgit/, escape/), then moved."""
    files = [new + f[len(old):] if f.startswith(old) else f for f in ch.files]
    return with_(mk_result(ch, summary), patch=rewrite_paths(ch.patch, old, new),
                 filesWritten=files, filesTouched=files)


def with_extra_file(result: dict, path: str) -> dict:
    """result also declaring path (written and touched), which its patch does not touch."""
    return with_(result, filesWritten=result["filesWritten"] + [path],
                 filesTouched=result["filesTouched"] + [path])


def mk_failure(summary, mode="apply", touched=(), omit=False, **extra):
    """A failure report; omit leaves out patch and filesWritten, summary None leaves out
    the summary, extra keys are added as they are (a failure that still wrote files)."""
    r = {"mode": mode, "success": False, "summary": summary}
    if not omit:
        r["patch"] = ""
        r["filesWritten"] = []
    r["filesTouched"] = list(touched)
    r.update(extra)
    if summary is None:
        del r["summary"]
    return r


def with_(obj: dict, **changes) -> dict:
    """Deep copy of obj with keys replaced; a value of DROP removes the key."""
    out = copy.deepcopy(obj)
    for k, v in changes.items():
        if v is DROP:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def _tags(step: dict, result: dict, rule, tags, project, files) -> list[str]:
    """The given tags plus languages (from every path involved, else the project's)
    and the features of the patch and the step."""
    patch = result.get("patch") or ""
    paths = (set(files) | set(result.get("filesWritten") or [])
             | set(step.get("applyFiles", [])) | patch_paths(patch))
    langs = languages(paths)
    if not langs and project:
        langs = {PROJECT_LANG[project]}
    t = set(tags) | langs | feature_tags(patch)
    if any(" " in p or not p.isascii() for p in paths):
        t.add("quoted-path")
    if step["mode"] == "fix_regression":
        t.add("fix_regression")
    if result.get("success") is False and rule is None:
        t.add("failure-report")
    return sorted(t)


class CaseSet:
    """The cases in the order they were added. That order matters beyond the output
    order (cases are written sorted by id): a step without an id is numbered from the
    count of cases before it, so the builders must always add in the same order."""

    def __init__(self) -> None:
        self.cases: list[dict] = []
        self.ids: set[str] = set()

    def add(self, cid, step, result, rule=None, tags=(), project=None, files=()):
        """Record one case (rule None: valid); returns its step and result, so the
        one-defect variants of a valid case can be made from them."""
        assert cid not in self.ids, f"duplicate id {cid}"
        self.ids.add(cid)
        step = dict(step)
        step.setdefault("id", f"step-{len(self.cases) % 7 + 1}")
        if step["mode"] == "fix_regression":
            assert step.get("applyFiles"), cid
        expected = {"valid": True} if rule is None else {"valid": False, "rule": rule}
        self.cases.append({"id": cid, "step": step, "result": result, "expected": expected,
                           "tags": _tags(step, result, rule, tags, project, files)})
        return step, result

    def by_id(self) -> list[dict]:
        return sorted(self.cases, key=lambda c: c["id"])
