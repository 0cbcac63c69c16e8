"""The workspaces a remote client may name (`judge serve`, `judge mcp`): only repositories and ledgers inside the
roots the server was started with, so no request can make judge read an arbitrary directory."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from judge.errors import InputError
from judge.workspace.confine import is_inside
from judge.workspace.facts import Workspace

__all__ = ["REQUEST_FIELD_NAMES", "WorkspaceRoots"]

_KEYS = ("repo", "base", "ledger", "ledger_op", "ledger_id")
# The workspace's fields as a request (HTTP body, MCP tool arguments) names them, for InputError.render:
# judge.Workspace's errors name its own arguments.
REQUEST_FIELD_NAMES = {key: f"workspace.{key}" for key in _KEYS}


@dataclass(frozen=True)
class WorkspaceRoots:
    """Directories a requested workspace must lie in (links resolved); none: every workspace is refused."""

    roots: tuple[str, ...] = ()

    @classmethod
    def of(cls, roots: Any) -> "WorkspaceRoots":
        """The roots, each an existing directory; InputError naming the first that is not."""
        real = []
        for root in roots:
            if not os.path.isdir(root):
                raise InputError(f"{root} is not a directory; give an existing directory", field="workspace_root")
            real.append(os.path.realpath(root))
        return cls(tuple(real))

    def workspace(self, requested: Any, field: str = "workspace") -> Workspace:
        """The Workspace a request names (``{repo, base, ledger?, ledger_op?, ledger_id?}``, shaped like
        judge.Workspace); InputError (with ``field``) when it has other keys or names a path outside every root."""
        if not isinstance(requested, dict):
            raise InputError("must be an object such as {\"repo\": \"/srv/work/app\", \"base\": \"<40-hex commit>\"}",
                             field=field)
        unknown = sorted(set(requested) - set(_KEYS))
        if unknown:
            raise InputError(f"has unknown key(s) {', '.join(map(repr, unknown))}; the keys are {', '.join(_KEYS)}",
                             field=field)
        for key in _KEYS:
            if requested.get(key) is not None and not isinstance(requested[key], str):
                raise InputError(f"{key} must be a string", field=field)
        for key in ("repo", "ledger"):
            path = requested.get(key)
            if path is not None:
                self._check_inside(path, f"{field}.{key}")
        workspace = Workspace(requested.get("repo"), requested.get("base"), requested.get("ledger"),
                              requested.get("ledger_op") or "close", requested.get("ledger_id"))
        workspace.check_arguments()
        return workspace

    def _check_inside(self, path: str, field: str) -> None:
        if not self.roots:
            raise InputError("names a path, but this server was started without a workspace root, so it judges "
                             "patches only; restart it with --workspace-root DIR", field=field)
        if not os.path.isabs(path) or not any(is_inside(path, root) for root in self.roots):
            raise InputError(f"{path!r} is not inside a workspace root of this server ({', '.join(self.roots)}); "
                             "give an absolute path below one of them", field=field)
