"""`judge mcp`: serve judge to MCP hosts over stdio — the tools validate_step, explain_rules and
instructions_for_step, and the resource judge://instructions. Nothing but protocol goes to stdout."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from judge.cli.gate_flags import add_gate_flags, gate_settings
from judge.cli.settings import add_model_flags, config_of

__all__ = ["add_mcp_command"]


def add_mcp_command(commands: Any) -> None:
    mcp = commands.add_parser("mcp", help="serve validate_step and the executor's instructions to MCP hosts (stdio)")
    mcp.add_argument("--workspace-root", dest="workspace_roots", action="append", default=[], metavar="DIR",
                     help="a directory the repositories and ledgers of validate_step calls may lie in; repeat for "
                          "several; none: patches only")
    add_model_flags(mcp)
    add_gate_flags(mcp, evidence_doc=False)  # a client sends the evidence document as the result's `evidence`
    mcp.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    """Serve until the client closes stdin: exit 0; 2 when a flag, judge.toml or the evidence key is unusable."""
    from judge.cli.extras import require_extra

    require_extra("mcp", "mcp", ("mcp",))
    import anyio

    from judge.gates.policies import pinned_for_clients
    from judge.mcp.server import serve_stdio
    from judge.mcp.tools import Settings
    from judge.runs.keys import configured_key
    from judge.workspace.roots import WorkspaceRoots

    config = pinned_for_clients(config_of(args, gate_settings(args)))
    configured_key(config.evidence_key, config.artifacts_root)  # a bad key file is exit 2 now, not every call's error
    roots = WorkspaceRoots.of(args.workspace_roots)
    where = ", ".join(roots.roots) if roots.roots else "none: patches only"
    sys.stderr.write(f"judge mcp: serving on stdio; workspace roots: {where}; model: {config.model or 'none'}\n")
    anyio.run(serve_stdio, Settings(config, roots))
    return 0
