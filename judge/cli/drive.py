"""`judge drive`: run an executor command on one step until judge accepts its result, feeding each rejection's
reason back as a fix_regression (judge.driver)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from judge.cli.gate_flags import add_gate_flags, gate_settings
from judge.cli.output import write_stdout
from judge.cli.settings import add_model_flags, config_of

__all__ = ["add_drive_command"]

_EPILOG = """\
The executor reads one request on stdin, {"step", "mode": "apply" | "fix_regression", "attempt", "feedback",
"applyFiles", "applyPatch"} (schemas/drive-request.schema.json), and writes its result JSON on stdout
(schemas/execute-step.schema.json), reporting the step's whole change since it began.

example:
  judge drive --step step.json --repo . --base "$(git rev-parse HEAD)" --max-attempts 3 \\
      --transcript drive.jsonl -- python my_agent.py

containment: the executor gets an allowlisted environment (PATH, HOME, locale, terminal; --pass-env NAME adds
one; judge's JUDGE_* settings never), every process it starts ends when its attempt ends, and judge's state
(transcript, evidence key, approvals) must be outside its workspace and working directory. --sandbox runs it
under bubblewrap: the workspace its only writable path, no network unless --sandbox-network, no judge state.
--resume judges the work again before it accepts: a transcript is a record, never proof.

exit: 0 the step was accepted; 1 it was not (attempts or budget ran out, or a rejection a retry cannot fix);
      2 bad input (one line on stderr)."""


def add_drive_command(commands: Any) -> None:
    drive = commands.add_parser("drive", help="run an executor until its result is valid, retrying with feedback",
                                epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    drive.add_argument("--step", required=True, metavar="FILE", help="step spec JSON (- for stdin)")
    drive.add_argument("--max-attempts", dest="max_attempts", type=int, default=3, metavar="N",
                       help="attempts before giving up (default 3)")
    drive.add_argument("--timeout", dest="executor_timeout", type=float, default=1800.0, metavar="S",
                       help="seconds per executor attempt; then it is killed, with every process it started "
                            "(default 1800)")
    drive.add_argument("--max-output", dest="max_output", type=int, metavar="BYTES",
                       help="bytes of stdout an executor may write (default 80 MiB)")
    drive.add_argument("--time-budget", dest="time_budget", type=float, metavar="S",
                       help="stop after the attempt that passes S seconds in all")
    drive.add_argument("--token-budget", dest="drive_token_budget", type=int, metavar="N",
                       help="stop after the attempt that passes N tokens: judge's own plus the executor's "
                            "usage.totalTokens")
    drive.add_argument("--transcript", metavar="FILE", help="append one JSON line per attempt (request, result, "
                       "verdict, timings) to FILE as the drive goes")
    drive.add_argument("--resume", action="store_true", help="continue the drive --transcript FILE holds")
    drive.add_argument("--pass-env", dest="pass_env", action="append", default=[], metavar="NAME",
                       help="give the executor this variable of judge's environment too (e.g. its own API key); "
                            "repeat for several. JUDGE_* are refused")
    drive.add_argument("--sandbox", action="store_true", help="run the executor under bubblewrap (bwrap): the "
                       "workspace (--repo, else the current directory) its only writable path, the system read-only, "
                       "no home, no network, its own PID namespace")
    drive.add_argument("--sandbox-read", dest="sandbox_read", action="append", default=[], metavar="PATH",
                       help="also show the sandboxed executor PATH, read-only (e.g. its program's directory)")
    drive.add_argument("--sandbox-network", dest="sandbox_network", action="store_true",
                       help="let the sandboxed executor use the network")
    drive.add_argument("command", nargs=argparse.REMAINDER, metavar="-- EXECUTOR ...",
                       help="the executor command and its arguments (no shell)")
    group = drive.add_argument_group("workspace evidence (checked against git, never trusted from the result)")
    group.add_argument("--repo", metavar="PATH", help="the work tree the executor changes (also its working "
                       "directory); needs --base")
    group.add_argument("--base", metavar="SHA", help="the full 40-character id of the commit the step starts from")
    group.add_argument("--record", "--evidence", dest="records", action="append", default=[], metavar="FILE",
                       help="an execution record (the evidence.json `judge run` writes); repeat for several")
    add_model_flags(drive, renamed={"timeout": "--llm-timeout", "token_budget": "--verdict-token-budget"})
    add_gate_flags(drive, evidence_doc=False)
    drive.set_defaults(run=_drive)


def _drive(args: argparse.Namespace) -> int:
    import json  # here, not at the top: `judge --help` needs none of it

    from judge.cli.record_file import read_record
    from judge.contract.jsonio import read_json
    from judge.driver.environment import executor_environment
    from judge.driver.executor import DEFAULT_MAX_OUTPUT, command_executor
    from judge.driver.sandbox import Sandbox
    from judge.driver.loop import drive
    from judge.errors import InputError
    from judge.runs.keys import configured_key
    from judge.workspace.facts import Workspace

    argv = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.resume and not args.transcript:
        raise InputError("--resume continues the drive a transcript holds: give --transcript FILE")
    if (args.sandbox_read or args.sandbox_network) and not args.sandbox:
        raise InputError("--sandbox-read and --sandbox-network shape the sandbox: add --sandbox")
    # with no --repo the executor runs in (and writes) the working directory: no settings are read from it
    config = config_of(args, gate_settings(args), workspace="." if args.repo is None else None)
    configured_key(config.evidence_key, config.artifacts_root)
    step = read_json(args.step, "--step")
    workspace = Workspace(args.repo, args.base) if args.repo is not None or args.base is not None else None
    evidence = tuple(read_record(path, "--record") for path in args.records)
    max_output = DEFAULT_MAX_OUTPUT if args.max_output is None else args.max_output  # 0 is refused, not the default
    env = executor_environment(passed=args.pass_env)
    sandbox = Sandbox(args.repo if args.repo is not None else ".", tuple(args.sandbox_read),
                      args.sandbox_network) if args.sandbox else None
    executor = command_executor(argv, timeout=args.executor_timeout, max_output=max_output, cwd=args.repo, env=env,
                                sandbox=sandbox)
    outcome = drive(step, executor, max_attempts=args.max_attempts, config=config, workspace=workspace,
                    evidence=evidence, time_budget=args.time_budget, token_budget=args.drive_token_budget,
                    transcript=args.transcript, resume=args.resume, on_attempt=_progress)
    write_stdout(json.dumps(outcome.verdict.contract(), ensure_ascii=False) + "\n")
    sys.stderr.write(f"judge drive: {_ending(outcome)}\n")
    return 0 if outcome.accepted else 1


def _progress(attempt: Any) -> None:
    verdict = attempt.verdict
    said = "" if verdict.valid else "rejected: "  # a valid reason starts with "valid:"
    sys.stderr.write(f"judge drive: attempt {attempt.number} ({attempt.request['mode']}, executor "
                     f"{attempt.executor_seconds:.1f} s, judge {attempt.judge_seconds:.1f} s): {said}"
                     f"{verdict.reason[:300]}\n")


def _ending(outcome: Any) -> str:
    count = len(outcome.attempts)
    attempts = f"{count} attempt{'s' if count != 1 else ''}"
    return {
        "accepted": f"accepted after {attempts}" + (", its work judged again" if outcome.rejudged else ""),
        "not_confirmed": f"not accepted: the transcript says the drive was accepted after {attempts}, but its work "
                         f"judged again is not: {outcome.verdict.reason[:300]}",
        "not_retryable": f"stopped after {attempts}: the last verdict's next action is "
                         f"{outcome.verdict.outcome.next_action if outcome.verdict.outcome else 'diagnose'}, "
                         "which another attempt cannot change",
        "max_attempts": f"not accepted after {attempts} (--max-attempts)",
        "time_budget": f"not accepted: the time budget ran out after {attempts}",
        "token_budget": f"not accepted: the token budget ran out after {attempts}",
    }[outcome.stopped]
