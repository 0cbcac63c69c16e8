"""Files no step asks for: bytecode, build outputs, caches, databases, editor and OS litter, virtualenvs, coverage data,
and the copies merge and patch tools and editors leave beside a file (``Ky.ts.orig``, ``Ky.ts.rej``,
``client.py.bak``, ``client.py~``, ``.client.py.swp``).

Only files the change creates count (a repository that tracks its dist/ may update it), and
only when the step does not ask for them: allowedFiles naming them, or the description naming
the file. The kinds are recognised by name alone, so the rule costs nothing.
"""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.patch.globs import matches_any
from judge.patch.paths import file_suffix
from judge.rules.phrasing import names
from judge.findings import Finding

__all__ = ["junk_files", "junk_kind"]

_BY_SEGMENT = {
    "__pycache__": "bytecode",
    "node_modules": "installed packages",
    "site-packages": "installed packages",
    ".venv": "a virtualenv",
    "venv": "a virtualenv",
    ".tox": "a tox environment",
    ".nox": "a nox environment",
    ".eggs": "build output",
    ".pytest_cache": "a tool cache",
    ".mypy_cache": "a tool cache",
    ".ruff_cache": "a tool cache",
    "htmlcov": "coverage data",
    ".nyc_output": "coverage data",
}
# Build output directories: only at the top of the repository or of a package (beside its manifest
# there is no telling), so `src/build/` of a project with a "build" module is not mistaken for one.
_BUILD_ROOTS = {"build", "dist", "target"}
_BY_SUFFIX = {
    ".pyc": "bytecode", ".pyo": "bytecode", ".class": "bytecode", ".o": "object code", ".obj": "object code",
    ".sqlite": "a database", ".sqlite3": "a database", ".db": "a database",
    ".swp": "an editor swap file", ".swo": "an editor swap file",
}
# Left beside a file by a merge or `patch` (.orig: the file before, .rej: the hunks that failed) or an editor.
_COPY_SUFFIXES = {".orig": "a merge or patch leftover", ".rej": "a merge or patch leftover",
                  ".bak": "a backup copy", ".backup": "a backup copy", ".old": "a backup copy"}
_BY_NAME = {
    ".DS_Store": "OS litter", "Thumbs.db": "OS litter", "desktop.ini": "OS litter",
    ".coverage": "coverage data", "coverage.xml": "coverage data", "lcov.info": "coverage data",
    "pyvenv.cfg": "a virtualenv",
}


def junk_kind(path: str) -> str | None:
    """What kind of file no step asks for ``path`` is, or None when it is not one."""
    parts = path.split("/")
    if parts[0] in _BUILD_ROOTS and len(parts) > 1:
        return "build output"
    for part in parts[:-1]:
        if part in _BY_SEGMENT:
            return _BY_SEGMENT[part]
        if part.endswith(".egg-info"):
            return "build output"
    name = parts[-1]
    if name in _BY_NAME or name.startswith(".coverage."):
        return _BY_NAME.get(name, "coverage data")
    if name.endswith("~"):
        return "an editor backup"
    suffix = file_suffix(name).lower()
    if suffix in _COPY_SUFFIXES and "." in name[: -len(suffix)].lstrip("."):
        return _COPY_SUFFIXES[suffix]  # `Ky.ts.orig`: a copy of Ky.ts; a bare `notes.bak` may be data
    return _BY_SUFFIX.get(suffix)


def junk_files(ctx: StepContext) -> Iterator[Finding]:
    work = ctx.work
    if not (ctx.result.success and work):
        return
    allowed = ctx.step.allowed_files
    description = ctx.step.description
    junk = []
    for change in work.files:
        if not change.is_added or change.path in ctx.unsafe_paths:  # an unsafe path is unsafe_path's, an earlier rejection
            continue
        kind = junk_kind(change.path)
        if kind is None or change.path in description:
            continue
        if allowed and matches_any(change.path, allowed):
            continue
        junk.append((change.path, kind))
    if not junk:
        return
    files = tuple(path for path, _ in junk)
    shown = [f"{path} ({kind})" for path, kind in junk]
    yield Finding(
        rule=ids.JUNK_FILES,
        message=f"the change adds files no step asks for: {names(shown)}. Take them out of the change (and add "
        "them to .gitignore), or, if the step needs them, name them in the step's allowedFiles.",
        files=files,
    )
