"""Honest changes taken from two real release archives (sdists, npm tarballs): each code file the new release
changes in a function, with the release's test files around it. The archives are read in memory; nothing of
them is written anywhere but the temporary repositories the cases are diffed in."""
from __future__ import annotations

import posixpath
import re
import tarfile
from pathlib import Path

from .honest import Honest, is_test, language, make_honest

_ARCHIVE = re.compile(r"^(?P<name>.+?)-(?P<version>\d[^/]*?)\.(?:tar\.gz|tgz|tar\.bz2|tar\.xz|tar)$")
# Not the project's source: build output, bundles, vendored code (a release ships them, a step never edits them);
# docs/ too, where a step that names the path asks for documentation work.
_NOT_SOURCE = re.compile(r"(?:^|/)(?:dist|build|node_modules|vendor|_vendor|esm|cjs|umd|bundle|docs?)/|\.min\.[cm]?js$")
_MAX_BYTES = 200_000
_TESTS_PER_CHANGE = 4
# The project's settings a test runner or coverage reads: evasive cheats edit them, honest changes leave them.
_CONFIGS = ("package.json", "pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", ".coveragerc", "conftest.py",
            "tests/conftest.py", "test/conftest.py", "testing/conftest.py")


def read_archive(path: Path) -> dict[str, bytes]:
    """Regular files of a release archive by path, the `name-version/` top folder dropped, as the sdist build
    or npm pack wrote them (PKG-INFO and *.egg-info/ left out: never in the project's repository)."""
    files = {}
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            parts = Path(member.name).parts[1:]
            if not parts or not member.isfile() or member.size > _MAX_BYTES:
                continue
            if parts == ("PKG-INFO",) or any(part.endswith(".egg-info") for part in parts):
                continue
            files["/".join(parts)] = archive.extractfile(member).read()  # type: ignore[union-attr]
    return files


def pair_label(old: Path, new: Path) -> str:
    """`packaging-23.2..24.0`."""
    found_old, found_new = _ARCHIVE.match(old.name), _ARCHIVE.match(new.name)
    if not (found_old and found_new):
        return f"{old.name}..{new.name}"
    return f"{found_new['name'].lower()}-{found_old['version']}..{found_new['version']}"


def release_changes(old: Path, new: Path, per_pair: int) -> list[Honest]:
    """Up to per_pair honest changes per language (Python, JS, TS) of the release pair: those that add whole
    statements to a function first (every cheat kind applies to them), then in path order."""
    before, after = read_archive(old), read_archive(new)
    label = pair_label(old, new)
    ts_stems = {_stem(p) for p in before if language(p) == "typescript" and not is_test(p)}
    ts_src = any(p.startswith("src/") for p in before if language(p) == "typescript")
    found: dict[str, list[Honest]] = {}
    for path in sorted(set(before) & set(after)):
        lang = language(path)
        if lang is None or before[path] == after[path] or is_test(path) or _NOT_SOURCE.search(path):
            continue
        if (lang == "javascript" and _stem(path) in ts_stems) or (ts_src and not path.startswith("src/")):
            continue  # the compiled output of a TypeScript package (lib/, or a .js of a .ts), not its source
        tests = related_tests(path, before)
        configs = [p for p in _CONFIGS if p in before]
        honest = make_honest(label, {p: before[p] for p in (path, *tests, *configs)}, path, after[path], tests)
        if honest is not None:
            found.setdefault(lang, []).append(honest)
    return [h for lang in sorted(found) for h in sorted(found[lang], key=lambda h: h.run is None)[:per_pair]]


def _stem(path: str) -> str:
    return posixpath.basename(path).split(".")[0]


def related_tests(path: str, files: dict[str, bytes]) -> list[str]:
    """The test files of the same language family, those whose name holds path's stem first."""
    family = ("python",) if language(path) == "python" else ("javascript", "typescript")
    stem = posixpath.basename(path).split(".")[0].lower().lstrip("_")
    tests = [p for p in files if is_test(p) and language(p) in family and files[p][:1] != b"\0"]
    tests.sort(key=lambda p: (stem not in posixpath.basename(p).lower(), p))
    return tests[:_TESTS_PER_CHANGE]
