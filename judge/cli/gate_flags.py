"""The gates' flags of `judge validate` (seed 004): the agent's evidence document, policies over every step's own,
where templates, approvals and command-gate records are, and the evidence key records are signed with; each setting
also comes from judge.toml."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_gate_flags", "gate_settings"]


def add_gate_flags(parser: argparse.ArgumentParser, evidence_doc: bool = True) -> None:
    """The flags; ``evidence_doc`` False leaves out --evidence-doc (for commands whose results come from elsewhere)."""
    group = parser.add_argument_group("gates, evidence and policies")
    if evidence_doc:
        group.add_argument("--evidence-doc", dest="evidence_doc", metavar="FILE",
                           help="the agent's EvidenceSchema document, when the result does not carry it as `evidence`")
    group.add_argument("--approvals", metavar="FILE", help="the append-only approvals file `judge approve` writes "
                       "(default: approvals.jsonl in judge's state directory)")
    group.add_argument("--templates", dest="templates_dir", metavar="DIR",
                       help="where step templates are (NAME.json/.yaml/.yml; default: templates in judge's state "
                            "directory)")
    group.add_argument("--artifacts", dest="artifacts_root", metavar="DIR",
                       help="where command gates record their runs (default: judge's state directory, "
                            "$XDG_STATE_HOME/judge or ~/.local/state/judge)")
    group.add_argument("--evidence-key", dest="evidence_key", metavar="FILE",
                       help="execution records and approvals must carry this key's MAC (default ARTIFACTS/evidence.key "
                            "when it exists; without a key no record backs a claim and no approval counts)")
    group.add_argument("--gate-timeout", dest="gate_timeout", type=float, metavar="S",
                       help="seconds a command gate's command may run (default 600)")
    group.add_argument("--policy-preset", dest="preset", choices=("permissive", "strict", "audit"),
                       help="a named combination of policies; the flags below override it")
    group.add_argument("--enable-shell-gates", dest="enable_shell_gates", action=argparse.BooleanOptionalAction,
                       default=None, help="let command gates run their (allowlisted) command; default off")
    group.add_argument("--shell-gate-allow", dest="shell_gate_allowlist", action="append", metavar="PATTERN",
                       help="a glob a command gate's command must match (e.g. '*pytest*'); repeat for several")
    group.add_argument("--require-tests-evidence", dest="require_tests_evidence",
                       action=argparse.BooleanOptionalAction, default=None,
                       help="every step must prove its tests passed with a verified execution record")
    group.add_argument("--require-diff-summary", dest="require_diff_summary", action=argparse.BooleanOptionalAction,
                       default=None, help="every step's evidence must hold a diff_summary")
    group.add_argument("--evidence-schema-mode", dest="evidence_schema_mode", choices=("lenient", "strict"),
                       help="strict: evidence needs changed_files, diff_summary, commands_run and every criterion true")


_POLICY_FLAGS = ("preset", "enable_shell_gates", "shell_gate_allowlist", "require_tests_evidence",
                 "require_diff_summary", "evidence_schema_mode")
_SETTINGS = ("approvals", "templates_dir", "artifacts_root", "evidence_key", "gate_timeout")


def gate_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The config keys these flags set (None: not given, the layers below decide)."""
    overrides = {name: getattr(args, name) for name in _POLICY_FLAGS if getattr(args, name) is not None}
    settings: dict[str, Any] = {name: getattr(args, name) for name in _SETTINGS}
    settings["policy_overrides"] = overrides or None
    return settings
