"""`judge validate`: one step and one result, optionally checked against a workspace and execution evidence."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from judge.cli.gate_flags import add_gate_flags, gate_settings
from judge.cli.output import write_stdout
from judge.cli.settings import add_model_flags, plain_config_of
from judge.errors import InputError

__all__ = ["add_validate_command"]


def add_validate_command(commands: Any) -> None:
    check = commands.add_parser("validate", help="judge one executor result; prints {\"valid\", \"reason\"}")
    check.add_argument("--step", required=True, metavar="FILE", help="step spec JSON (- for stdin)")
    check.add_argument("--result", required=True, metavar="FILE", help="executor result JSON (- for stdin)")
    check.add_argument("--explain", action="store_true", help="also print stages and findings to stderr")
    check.add_argument("--markdown", action="store_true", help="with --explain: as Markdown, with the Execution "
                       "Evidence table of the attached records")
    add_model_flags(check)
    group = check.add_argument_group("workspace evidence (checked against git, never trusted from the result)")
    group.add_argument("--repo", metavar="PATH", help="the top of the git work tree the step ran in (needs --base)")
    group.add_argument("--base", metavar="SHA", help="the full 40-character id of the commit the step started from")
    group.add_argument("--ledger", metavar="FILE", help="an append-only JSONL ledger that must record the operation")
    group.add_argument("--ledger-op", dest="ledger_op", default="close", metavar="OP", help="operation kind (default: close)")
    group.add_argument("--ledger-id", dest="ledger_id", metavar="ID", help="the id it must be for (default: the step id)")
    group.add_argument("--record", "--evidence", dest="records", action="append", default=[], metavar="FILE",
                       help="an execution record (the evidence.json `judge run` writes); repeat for several")
    add_gate_flags(check)
    check.set_defaults(run=_validate)


def _validate(args: argparse.Namespace) -> int:
    import json  # here, not at the top: `judge --help` needs none of it

    if args.step == "-" and args.result == "-":
        raise InputError("--step and --result cannot both read stdin; give one of them as a file")
    if args.markdown and not args.explain:
        raise InputError("--markdown shapes what --explain prints: add --explain, or drop --markdown")
    from judge import rule_ids as ids
    from judge.contract.jsonio import read_json
    from judge.intake import take
    from judge.pipeline import decide, unverified

    config = plain_config_of(args, gate_settings(args))
    step = read_json(args.step, "--step")
    result = _with_evidence_doc(read_json(args.result, "--result"), args.evidence_doc)
    records = tuple(read_json(path, "--record") for path in args.records)
    request = take(step, result, records=records, workspace=_workspace(args), config=config)
    refusal = request.refusal()
    if refusal is not None:
        raise refusal
    judgement = decide(request, config)  # its Verdict (pydantic's models) is built only to be explained
    write_stdout(json.dumps(judgement.contract(), ensure_ascii=False) + "\n")
    for warning in (f for f in judgement.findings if f.rule == ids.POLICY_WARNING):
        sys.stderr.write(f"judge: warning: {warning.message}\n")
    if unverified(judgement, config):
        sys.stderr.write("judge: warning: step implementation not verified: no model configured; set --model or "
                         "JUDGE_MODEL (any litellm model string) to have it reviewed, or --semantic off to say you "
                         "do not want that\n")
    if args.explain:
        from judge.cli.explain import render_explanation, render_markdown

        verdict = judgement.verdict()
        sys.stderr.write((render_markdown(verdict) if args.markdown else render_explanation(verdict)) + "\n")
    if not judgement.valid:
        return 1
    # A well-formed failure report is valid as a report, but the step was not done: a shell or CI step reading
    # exit 0 would take it for done.
    return 3 if request.success is False else 0


def _with_evidence_doc(result: Any, path: str | None) -> Any:
    """The result carrying the --evidence-doc document as its `evidence`; InputError when it carries another."""
    if path is None:
        return result
    from judge.contract.jsonio import read_json

    doc = read_json(path, "--evidence-doc")
    if not isinstance(result, dict):
        return result  # the contract check words what is wrong with the result
    if result.get("evidence") not in (None, doc):
        raise InputError(f"--evidence-doc {path}: the result already carries a different `evidence` document; "
                         "give one of the two")
    return {**result, "evidence": doc}


def _workspace(args: argparse.Namespace):
    """The Workspace the flags name, or None (whether they go together is judge.intake's to say)."""
    if args.repo is None and args.ledger is None and args.base is None:
        return None
    from judge.workspace.facts import Workspace  # after the check: a run without a workspace never loads it

    return Workspace(args.repo, args.base, args.ledger, args.ledger_op, args.ledger_id)
