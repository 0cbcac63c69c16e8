"""Seed 001's observer: the failure class of an execution record, read from its evidence, never from its `status`.

``status`` is outside ``evidenceHash``, so the class starts from the status the record's facts
mean (derived_status). The classes say who must act: the step's author (EXECUTION_FAILURE) or
whoever owns the environment (every other class: no retry of the step can fix those).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from judge.lazy_pattern import lazy_compile
from judge.runs.record import derived_status

if TYPE_CHECKING:  # records are pydantic models; a run without any never loads them
    from judge.contract.models import ExecutionEvidence

__all__ = ["AUTH_ERROR", "CLASS_MEANING", "ENVIRONMENT_CLASSES", "EXECUTION_FAILURE", "NOT_FOUND", "NO_EVIDENCE",
           "NOT_RETRYABLE_CLASSES", "output_tail",
           "TIMEOUT", "failure_class"]

NO_EVIDENCE = "NO_EVIDENCE"
NOT_FOUND = "NOT_FOUND"
TIMEOUT = "TIMEOUT"
AUTH_ERROR = "AUTH_ERROR"
EXECUTION_FAILURE = "EXECUTION_FAILURE"

CLASS_MEANING: dict[str, str] = {
    NO_EVIDENCE: "the command could not be started (permissions, working directory); fix that and run it again",
    NOT_FOUND: "the program is not installed or not on PATH; install it or correct the command",
    TIMEOUT: "the command ran past its timeout; find what hangs, or give it a longer timeout",
    AUTH_ERROR: "check the credentials the command needs; retrying the step will not help",
    EXECUTION_FAILURE: "the command ran and failed; fix what its output reports and run it again",
}

# The classes whose cause lies outside the step's work: the environment, not the step, needs fixing.
ENVIRONMENT_CLASSES = frozenset({NO_EVIDENCE, NOT_FOUND, TIMEOUT, AUTH_ERROR})
# Of those, the ones judge saw itself (the program could not start), not read from what the command printed or how
# long it ran: only these may stop the retries, since a step's code can print "authentication failed" or loop.
NOT_RETRYABLE_CLASSES = frozenset({NO_EVIDENCE, NOT_FOUND})

# execute.py words a program that does not exist as "cannot run <repr of argv[0]>: No such file or
# directory"; a missing working directory has " in <cwd>" after the program, so it stays NO_EVIDENCE.
_PROGRAM_MISSING = lazy_compile(r"""cannot run (?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"): No such file or directory""")

# A shell (`sh: 1: x: not found`, `bash: x: command not found`) or `env` (`env: 'x': No such file or
# directory`) exits 127 when it cannot find the program it was asked to run.
_AUTH_TAIL = 16 * 1024
_SHELL_NOT_FOUND = lazy_compile(r"not found|No such file or directory", re.IGNORECASE)

# Words of an authentication or authorization failure, as tools print them (git, ssh, docker, npm,
# HTTP clients, cloud CLIs). Whole words only: "author", "authored", "authority", "OAuth library" and
# a file's "Permission denied" must not match, nor a status-like number outside an HTTP context.
# The output is the command's (the agent's code, for a gate): every run of spaces is bounded, so no
# input makes the search slower than linear, and only the end of stderr, where a tool says why it stopped, is read.
_AUTH_WORDS = lazy_compile(r"""
    \b(?:
        authenticat(?:e|ion|ing)\s{1,4}(?:failed|failure|error|required|denied)
      | (?:failed|unable|could\s{1,4}not|cannot|can't)\s{1,4}(?:to\s{1,4})?authenticate
      | (?:not\s{1,4}|un)authenticated
      | un-?authori[sz]ed
      | not\s{1,4}authori[sz]ed
      | authori[sz]ation\s{1,4}(?:failed|failure|error|required|denied)
      | auth\s{1,4}(?:error|failed|failure|required)
      | permission\s{1,4}denied\s{1,4}\(publickey
      | (?:invalid|incorrect|bad|wrong|expired|revoked|missing)\s{1,4}
        (?:username\s{1,4}or\s{1,4}password|password|credentials?|api[\s_-]?keys?|(?:access|auth|authentication|bearer)\s{1,4}token)
      | invalid_api_key
      | (?:token|credentials)\s{1,4}(?:has|have|is|are)\s{1,4}expired
      | unable\s{1,4}to\s{1,4}locate\s{1,4}credentials
      | (?:not|must\s{1,4}be)\s{1,4}logged\s{1,4}in(?:to)?
      | login\s{1,4}failed
      | access\s{1,4}denied\s{1,4}for\s{1,4}user
      | 40[13]\s{0,4}:?\s{0,4}(?:unauthori[sz]ed|forbidden)
      | (?:http(?:/[0-9.]+)?|status(?:\s{1,4}code)?|response|error|code)\s{0,4}[:=]?\s{0,4}e?40[13]
    )(?![\w-])
""", re.IGNORECASE | re.VERBOSE)


def failure_class(record: ExecutionEvidence) -> str | None:
    """None when the record's facts mean success; else the class of its failure (precedence as listed in
    CLASS_MEANING: not started, then timeout, then what stderr says, then any other non-zero exit)."""
    status = derived_status(record.exit_code, record.timed_out, record.error)
    if status == "SUCCESS":
        return None
    if record.error is not None:
        return NOT_FOUND if _PROGRAM_MISSING.match(record.error) else NO_EVIDENCE
    if record.exit_code == 127 and _SHELL_NOT_FOUND.search(record.stderr):
        return NOT_FOUND
    if record.timed_out:
        return TIMEOUT
    if record.exit_code is None:  # neither started nor ended: nothing it did is on record
        return NO_EVIDENCE
    if is_auth_failure(record.stderr):
        return AUTH_ERROR
    return EXECUTION_FAILURE


def output_tail(record: ExecutionEvidence, limit: int = 300) -> str:
    """"; its output ends: '...'" — the end of stderr (else stdout), where a failing command says why; "" if silent."""
    text = (record.stderr.strip() or record.stdout.strip())[-limit:]
    return f"; its output ends: {' '.join(text.split())!r}" if text else ""


def is_auth_failure(stderr: str) -> bool:
    """Whether ``stderr`` speaks of an authentication or authorization failure."""
    return _AUTH_WORDS.search(stderr[-_AUTH_TAIL:]) is not None
