"""What the work tree's .gitignore files hide: files only a .gitignore the step changed hides (they are judged like
any change: a step cannot hide its own files), and ignored files that can run — bytecode Python would load in place
of the judged source, modules in package folders, a conftest.py, nested repositories — reported, never run.

git's own ignore rules decide (in the sterile GIT_DIR, ls-files and check-ignore); base's rules are checked in a
scratch folder holding only base's .gitignore files and an empty stand-in for each path asked about.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import stat
from dataclasses import dataclass

from judge.errors import InputError
from judge.lazy_pattern import lazy_compile
from judge.workspace.objects import FileState, ObjectStore
from judge.workspace.plainfile import TooLarge, read_plain
from judge.workspace.sterile import SterileGit
from judge.workspace.worktree import WorkTree

__all__ = ["IgnoredCode", "hidden_by_the_step", "ignored_code"]

_RULES = ".gitignore"
_BYTECODE = lazy_compile(r"(?P<name>[^/.]+)\.[^/.]+(?:\.opt-(?P<opt>[12]))?\.pyc")
_BYTECODE_LIMIT = 16 * 1024 * 1024
_SHOWN = 20  # ignored runnable files reported, at most
# Compiled modules Python imports (any interpreter's tag: `util.cpython-311-x86_64-linux-gnu.so`, `util.abi3.so`)
_EXTENSIONS = (".so", ".pyd")


@dataclass(frozen=True)
class IgnoredCode:
    """An ignored file that can run: where, why it can, and whether it is proven not to be the judged code."""

    path: str
    why: str
    proven: bool = False  # bytecode Python would run in place of the judged source, not compiled from it


def hidden_by_the_step(git: SterileGit, tree: WorkTree, store: ObjectStore, base_files: dict[str, FileState],
                       seen: set[str]) -> list[str]:
    """Files (and nested repositories, as ``dir/``) git ignores only because a .gitignore differs from base's.

    ``seen``: every path tracked or listed; the .gitignore files among them and base's are compared."""
    rules = {p for p in seen | set(base_files) if _is_rules(p)}
    changed = sorted(p for p in rules if _state(tree, p) != base_files.get(p))
    if not changed:
        return []
    folders = sorted({p.rpartition("/")[0] for p in changed})
    spec = [] if "" in folders else [f"{folder}/" for folder in folders]
    entries = _ignored(git, tree.root, spec, folders=True)
    base_rules = {p: state for p, state in base_files.items() if _is_rules(p) and stat.S_ISREG(state[0])}
    verdicts = _ignored_by(git, store, base_rules, entries)
    free = [entry for entry in entries if not verdicts[entry]]
    found = [entry for entry in free if not entry.endswith("/") or os.path.lexists(_full(tree, entry, ".git"))]
    folders_to_open = [entry for entry in free if entry not in found]
    if folders_to_open:
        inner = _ignored(git, tree.root, folders_to_open, folders=False)
        verdicts = _ignored_by(git, store, base_rules, inner)
        found += [entry for entry in inner if not verdicts[entry]]
    return found


def ignored_code(git: SterileGit, tree: WorkTree, judged: set[str]) -> tuple[IgnoredCode, ...]:
    """The ignored files that can run beside the judged tree ``judged`` (its file paths), at most _SHOWN."""
    found: list[IgnoredCode] = []
    for entry in _ignored(git, tree.root, [], folders=True):
        found.extend(_runnable(tree, entry, judged))
        if len(found) >= _SHOWN:
            break
    return tuple(found[:_SHOWN])


def _runnable(tree: WorkTree, entry: str, judged: set[str]) -> list[IgnoredCode]:
    path = entry.rstrip("/")
    folder, _, name = path.rpartition("/")
    if entry.endswith("/"):
        if os.path.lexists(_full(tree, path, ".git")):
            return [IgnoredCode(path, "a nested repository judge does not read")]
        if name == "__pycache__":
            return [found for child in _names(tree, path) if (found := _bytecode(tree, f"{path}/{child}", judged))]
        if f"{path}.py" in judged:  # a package folder wins over the module of its name
            return [IgnoredCode(path, f"a package folder Python imports in place of {path}.py")]
        return []
    if folder.rpartition("/")[2] == "__pycache__":
        return [found] if (found := _bytecode(tree, path, judged)) else []
    if name == "conftest.py":
        return [IgnoredCode(path, "a conftest.py, which pytest loads")]
    shadowed = f"{folder}/{name.split('.', 1)[0]}.py" if folder else f"{name.split('.', 1)[0]}.py"
    if name.endswith(_EXTENSIONS) and shadowed in judged:  # Python tries extension modules before the source
        return [IgnoredCode(path, f"an extension module Python imports in place of {shadowed}")]
    package = f"{folder}/__init__.py" if folder else "__init__.py"
    # bytecode beside its judged source (not in __pycache__) is never loaded by Python 3: the source wins
    beside_source = name.endswith(".pyc") and path[:-1] in judged
    if name.endswith((".py", ".pyc", *_EXTENSIONS)) and package in judged and not beside_source:
        return [IgnoredCode(path, f"a module of the package {folder or '.'}")]
    return []


def _bytecode(tree: WorkTree, path: str, judged: set[str]) -> IgnoredCode | None:
    """Bytecode in __pycache__ that Python would load in place of its judged source, unless compiled from it."""
    cache, _, name = path.rpartition("/")
    match = _BYTECODE.fullmatch(name)
    folder = cache.rpartition("/")[0]
    source = f"{folder}/{match['name']}.py" if match and folder else (f"{match['name']}.py" if match else "")
    if not match or source not in judged:
        return None
    data, code = _read(tree, path), _read(tree, source)
    if data is None or code is None or len(data) < 16 or not _loaded(tree, source, data, code):
        return None
    if data[:4] != importlib.util.MAGIC_NUMBER:
        return IgnoredCode(path, f"bytecode for another Python that would run in place of {source}")
    try:
        same = marshal.loads(data[16:]) == compile(code, source, "exec", dont_inherit=True,
                                                   optimize=int(match["opt"] or 0))
    except (ValueError, EOFError, TypeError, SyntaxError):
        same = False
    return None if same else IgnoredCode(path, f"bytecode Python runs in place of {source}, not compiled from it",
                                         proven=True)


def _loaded(tree: WorkTree, source: str, data: bytes, code: bytes) -> bool:
    """Whether Python would use this bytecode for ``source`` rather than compile the source (importlib's checks)."""
    flags = int.from_bytes(data[4:8], "little")
    if flags & 0b1:  # hash-based: unchecked ones are always used
        if not flags & 0b10:
            return True
        return data[:4] == importlib.util.MAGIC_NUMBER and importlib.util.source_hash(code) == data[8:16]
    info = os.lstat(_full(tree, source))
    return (int(info.st_mtime) & 0xFFFFFFFF, info.st_size & 0xFFFFFFFF) == \
        (int.from_bytes(data[8:12], "little"), int.from_bytes(data[12:16], "little"))


def _ignored(git: SterileGit, root: str, spec: list[str], *, folders: bool) -> list[str]:
    """Ignored paths under ``root`` within the folders ``spec`` (none: all), by git's rules; nested repositories
    and, with ``folders``, wholly ignored folders as ``dir/``."""
    whole = ["--directory"] if folders else []
    proc = git.run("ls-files", "-z", "--others", "--ignored", f"--exclude-per-directory={_RULES}",
                   f"--exclude=!{_RULES}", *whole, "--", *spec, work_tree=root, index=str(git.path / "empty-index"))
    if proc.returncode != 0:
        raise InputError(f"{root}: the ignored files cannot be listed "
                         f"({proc.stderr.decode('utf-8', 'replace').strip()[:200]})", field="repo")
    return [p.decode("utf-8", "surrogateescape") for p in proc.stdout.split(b"\0") if p]


def _ignored_by(git: SterileGit, store: ObjectStore, base_rules: dict[str, FileState],
                entries: list[str]) -> dict[str, bool]:
    """Whether base's .gitignore files ignore each entry (a file, or a folder as ``dir/``)."""
    scratch = git.path / f"rules-{len(list(git.path.glob('rules-*')))}"
    try:
        _stand_ins(scratch, store, base_rules, entries)
    except OSError as exc:  # base names a path both as a file and as a folder: it cannot be checked, so refused
        raise InputError(f"base's ignore rules cannot be checked ({exc.strerror}: {exc.filename})",
                         field="repo") from None
    # check-ignore reads its paths as pathspecs and refuses literal ones: "./" keeps a leading ":" from being magic
    asked = "".join(f"./{entry.rstrip('/')}\0" for entry in entries).encode("utf-8", "surrogateescape")
    proc = git.run("check-ignore", "--no-index", "-v", "-n", "-z", "--stdin", data=asked, work_tree=str(scratch),
                   literal=False)
    if proc.returncode not in (0, 1):
        raise InputError(f"base's ignore rules cannot be checked ({proc.stderr.decode('utf-8', 'replace')[:200]})",
                         field="repo")
    fields = proc.stdout.split(b"\0")
    patterns = [fields[i + 2] for i in range(0, len(fields) - 3, 4)]
    if len(patterns) != len(entries):
        raise InputError("base's ignore rules cannot be checked (git answered for "
                         f"{len(patterns)} of {len(entries)} paths)", field="repo")
    # -n: one answer per path, in order; a pattern starting with ! re-includes the path
    return {entry: bool(pattern) and not pattern.startswith(b"!") for entry, pattern in zip(entries, patterns)}


def _stand_ins(scratch, store: ObjectStore, base_rules: dict[str, FileState], entries: list[str]) -> None:
    """``scratch``: base's .gitignore files, and an empty file or folder for each entry."""
    for path, (_, object_id) in base_rules.items():
        target = scratch.joinpath(*path.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(store.blob(object_id))
    for entry in entries:
        target = scratch.joinpath(*entry.rstrip("/").split("/"))
        if entry.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
        elif not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
    scratch.mkdir(exist_ok=True)


def _is_rules(path: str) -> bool:
    return path.rpartition("/")[2] == _RULES


def _state(tree: WorkTree, path: str) -> FileState | None:
    found = tree.read(path)
    return found.state if found else None


def _names(tree: WorkTree, folder: str) -> list[str]:
    try:
        with os.scandir(_full(tree, folder)) as entries:
            return sorted(e.name for e in entries if e.is_file(follow_symlinks=False))
    except OSError:
        return []


def _read(tree: WorkTree, path: str) -> bytes | None:
    try:
        return read_plain(_full(tree, path), _BYTECODE_LIMIT)
    except (OSError, TooLarge):
        return None


def _full(tree: WorkTree, path: str, *more: str) -> str:
    return os.path.join(tree.root, *path.split("/"), *more)
