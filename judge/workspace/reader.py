"""Reads one workspace: base and HEAD from the object store, every candidate path from the work tree, the diff between them, the reported patch checked against it."""

from __future__ import annotations

import pygit2
from pygit2.enums import DiffOption

from judge.code.collection import is_collection_config
from judge.errors import InputError, MalformedPatch
from judge.patch.model import PatchFacts
from judge.patch.parse import parse_patch
from judge.patch.lexer import syntax_for
from judge.workspace.reported_patch import check_reported_patch
from judge.workspace.evidence_file import EVIDENCE_DIR
from judge.workspace.git import TEXT_LIMIT, GitFacts
from judge.workspace.ignored import hidden_by_the_step, ignored_code
from judge.workspace.objects import FileState, ObjectStore, git_dir, read_head, read_index
from judge.workspace.sterile import SterileGit
from judge.workspace.worktree import GITLINK, WorkFile, WorkTree, is_binary

__all__ = ["read_workspace", "refuse_outside_paths"]


def read_workspace(root: str, base: str, patch: str | None) -> GitFacts:
    """Every git fact for the work tree ``root`` against ``base``; InputError when any of it cannot be read."""
    try:
        return _read(root, base, patch)
    except RecursionError:
        raise InputError(f"{root}: the repository nests too deep to read", field="repo") from None
    except pygit2.GitError as exc:  # a missing or unreadable object anywhere on the way
        raise InputError(f"{root}: the repository cannot be read ({exc}); it is corrupt or was tampered with",
                         field="repo") from None


def _read(root: str, base: str, patch: str | None) -> GitFacts:
    gitdir = git_dir(root)
    with SterileGit(outside=root) as git:
        store = ObjectStore(gitdir, git.objects)
        head = read_head(gitdir)
        base_id, base_tree = store.resolve_base(base, unborn=head is None)
        head_tree = store.commit_tree(head)
        base_files = store.files(base_tree)
        head_files = base_files if head_tree is not None and head_tree.id == base_tree.id else store.files(head_tree)
        index_files = read_index(gitdir)
        tree = WorkTree(root)
        known = (base_files, head_files, index_files)
        tracked = set().union(*known)
        listed = tree.listed(git, tracked)
        listed += hidden_by_the_step(git, tree, store, base_files, tracked | set(listed))
        nested = {path.rstrip("/") for path in listed if path.endswith("/")}
        candidates = tracked | nested
        candidates.update(path for path in listed if not path.endswith("/"))
        for path in sorted(nested):
            if tree.read(path, _gitlink(path, known)) is None:
                # A nested repository with no commit is no submodule: its files are plain new files.
                candidates.discard(path)
                candidates.update(tree.files_under(path))
        refuse_outside_paths(candidates)

        work: dict[str, WorkFile | None] = {}
        changed: list[str] = []
        uncommitted: list[str] = []
        for path in sorted(candidates):
            found = tree.read(path, _gitlink(path, known))
            state = found.state if found else None
            if state != base_files.get(path):
                work[path] = found
                changed.append(path)
            if state != head_files.get(path) or index_files.get(path) != head_files.get(path):
                uncommitted.append(path)
        unjudged_head = _unjudged_head(head, head_files, base_files, work, candidates)
        judged = {p for p in base_files if p not in work} | {p for p, found in work.items() if found is not None}
        ignored = ignored_code(git, tree, judged)
        file_diffs = _diffs(store, base_tree, work)
        texts = _texts(store, base_files, work)
        reported = check_reported_patch(git, store, base_tree, base_files, work, tree, patch) \
            if patch and patch.strip() else None
    return GitFacts(
        root=root,
        base=base_id,
        head=head,
        changed=tuple(changed),
        committed=_differ(changed, base_files, head_files),
        staged=_differ(changed, head_files, index_files),
        unstaged=tuple(p for p in changed if p in index_files and index_files[p] != _state(work[p])),
        untracked=tuple(p for p in changed if p not in index_files),
        file_diffs=file_diffs,
        work=_parsed("".join(text for _, text in file_diffs)),
        patch_error=reported.patch_error if reported else None,
        mismatches=reported.mismatches if reported else (),
        base_paths=frozenset(base_files),
        uncommitted=tuple(uncommitted),
        work_states=tuple((path, *(_state(work[path]) or (0, ""))) for path in changed),
        texts=texts,
        ignored_code=ignored,
        unjudged_head=unjudged_head,
    )


def _unjudged_head(head: str | None, head_files: dict[str, FileState], base_files: dict[str, FileState],
                   work: dict[str, WorkFile | None], candidates: set[str]) -> tuple[str, ...]:
    """Files HEAD's commit holds as neither base nor the work tree does, HEAD having moved from base: the commit
    would carry what judge never judged (its real content, whatever a replace ref shows git)."""
    if head is None or head_files is base_files:
        return ()
    masked = []
    for path in sorted(candidates):
        now = _state(work[path]) if path in work else base_files.get(path)
        if head_files.get(path) not in (now, base_files.get(path)) and not path.startswith(EVIDENCE_DIR + "/"):
            masked.append(path)
    return tuple(masked)


def _texts(store: ObjectStore, base_files: dict[str, FileState], work: dict[str, WorkFile | None]
           ) -> tuple[tuple[str, str | None, str | None], ...]:
    """Each changed test-collection setting file's whole text at base and in the work tree (None: no file on that
    side), for the readers that need a section out of the hunks' view. A file one side of which cannot be read as
    text (binary, too large, a link, a submodule) is left out whole. Code files are read by their hunks."""
    found = []
    for path, now in work.items():
        if not is_collection_config(path):
            continue
        before = base_files.get(path)
        if before is not None and not _regular(before[0]) or now is not None and not _regular(now.mode):
            continue
        old = _text(store.blob(before[1])) if before is not None else None
        new = _text(now.data) if now is not None and now.data is not None else None
        if (old is None) != (before is None) or (new is None) != (now is None):
            continue
        found.append((path, old, new))
    return tuple(found)


def _regular(mode: int) -> bool:
    """A file's mode: not a link, a submodule or a directory."""
    return mode & 0o170000 == 0o100000


def _text(data: bytes) -> str | None:
    if len(data) > TEXT_LIMIT or is_binary(data):
        return None
    return data.decode("utf-8", "surrogateescape")


def _diffs(store: ObjectStore, base_tree: pygit2.Tree, work: dict[str, WorkFile | None]) -> tuple[tuple[str, str], ...]:
    """Each changed file's diff from base, as git would print it (libgit2's diff, on a tree of the work)."""
    if not work:
        return ()
    index = pygit2.Index()
    index.read_tree(base_tree)
    # Removals first: where a file became a directory (or the reverse) the old path reads as gone, so
    # once removals are done no new path collides with an old one.
    for path, found in work.items():
        if found is None and path in index:
            index.remove(path)
    for path, found in work.items():
        if found is not None:
            if found.data is not None:
                store.write_blob(found.data)
            index.add(pygit2.IndexEntry(path, pygit2.Oid(hex=found.object_id), found.mode))
    texts = {_path_of(patch): patch for patch in base_tree.diff_to_index(index)}
    # A NUL byte makes git call a file binary and show no line of it; in a file of a known programming
    # language that hides a change from every reader, so such files are shown as text.
    code = [path for path, patch in texts.items() if patch.delta.is_binary and syntax_for(path).knows_tokens
            and syntax_for(path).name != "JSON"]
    if code:
        forced = {_path_of(patch): patch for patch in base_tree.diff_to_index(index, DiffOption.FORCE_TEXT)}
        texts.update((path, forced[path]) for path in code if path in forced)
    return tuple((path, patch.data.decode("utf-8", "surrogateescape")) for path, patch in sorted(texts.items()))


def _gitlink(path: str, known: tuple[dict[str, FileState], ...]) -> FileState | None:
    """The submodule entry at ``path`` in the first of base, HEAD and the index that has the path, if any."""
    tracked = next((files[path] for files in known if path in files), None)
    return tracked if tracked and tracked[0] == GITLINK else None


def _path_of(patch: pygit2.Patch) -> str:
    return patch.delta.old_file.path if patch.delta.status_char() == "D" else patch.delta.new_file.path


def refuse_outside_paths(paths: set[str]) -> None:
    """The index, HEAD and base name files; one that is not inside the work tree is refused, never opened."""
    for path in paths:
        parts = path.split("/")
        if path.startswith("/") or "\0" in path or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
            raise InputError(f"the repository names a file {path[:200]!r}, which is not inside the work tree; "
                             "judge does not read it", field="repo")


def _parsed(diff: str) -> PatchFacts:
    try:
        return parse_patch(diff) if diff else PatchFacts(())
    except MalformedPatch as exc:  # git's own diff: a failure here is judge's to fix, and never a pass
        raise InputError(f"judge could not read the diff of the work tree it computed ({exc})", field="repo") from None


def _state(found: WorkFile | None) -> FileState | None:
    return found.state if found else None


def _differ(paths: list[str], one: dict[str, FileState], other: dict[str, FileState]) -> tuple[str, ...]:
    return tuple(p for p in paths if one.get(p) != other.get(p))
