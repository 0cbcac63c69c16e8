"""One executor attempt: the request in, the result JSON out, or why there is none (a crash, a hang, garbage).

A command executor runs without a shell, in its own session, with a timeout and bounded output
(judge.runs.execute.run_process), in an environment scrubbed to an allowlist (judge.driver.environment),
optionally in a bubblewrap sandbox (judge.driver.sandbox); every process it leaves ends with its attempt
(judge.runs.reaper). A callable executor is called as it is. Either way an attempt that gives no usable
result becomes a rejection finding, never an exception.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from judge import rule_ids as ids
from judge.driver.environment import executor_environment
from judge.runs.reaper import contained
from judge.driver.sandbox import Sandbox
from judge.errors import InputError
from judge.runs.execute import run_process
from judge.verdict import Finding

__all__ = ["CommandExecutor", "DEFAULT_EXECUTOR_TIMEOUT_S", "DEFAULT_MAX_OUTPUT", "Reply", "command_executor",
           "reply_of_call"]

DEFAULT_EXECUTOR_TIMEOUT_S = 1800.0
DEFAULT_MAX_OUTPUT = 80 * 1024 * 1024  # a result may carry a 64 MiB patch (schemas/execute-step.schema.json)
_STDERR_LIMIT = 64 * 1024
_SHOWN = 300


@dataclass(frozen=True)
class Reply:
    """What one attempt gave: the result (any JSON object, judged by the pipeline), or the finding saying why not."""

    result: dict | None
    failure: Finding | None = None
    exit_code: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    stdout_bytes: int = 0
    stderr_tail: str = ""


@dataclass(frozen=True)
class CommandExecutor:
    """An executor command (an argv): reads the request JSON on stdin, writes its result JSON on stdout.

    ``env``: its whole environment (None: judge's, scrubbed to judge.driver.environment's allowlist).
    ``sandbox``: run it in that bubblewrap sandbox (its workspace is then its working directory)."""

    argv: tuple[str, ...]
    timeout: float = DEFAULT_EXECUTOR_TIMEOUT_S
    max_output: int = DEFAULT_MAX_OUTPUT
    cwd: str | None = None
    env: Mapping[str, str] | None = None
    sandbox: Sandbox | None = None

    def check(self) -> None:
        """InputError when the command cannot be run at all (bad input, not a rejected attempt)."""
        if not self.argv:
            raise InputError("no executor command given: put it after --, e.g. judge drive --step step.json -- "
                             "python my_agent.py")
        if not self.timeout > 0:
            raise InputError(f"{self.timeout} is not above 0 seconds", field="timeout")
        if self.max_output < 2:
            raise InputError(f"{self.max_output} is below 2 bytes", field="max_output")
        self._program()

    def _program(self) -> str:
        """The program's absolute path, as found now."""
        program = self.argv[0]
        found = shutil.which(program, path=self.environment().get("PATH")) if os.sep not in program \
            else (program if os.access(program, os.X_OK) and os.path.isfile(program) else None)
        if found is None:
            raise InputError(f"executor {program!r} is not an executable file or a command on PATH; "
                             "give its path or install it")
        return os.path.abspath(found)

    def environment(self) -> dict[str, str]:
        """The environment the command gets."""
        return dict(self.env) if self.env is not None else executor_environment()

    def checked(self) -> "CommandExecutor":
        """This executor once check() passes, its program made absolute when given by a relative path: it was
        checked from here, and must not be looked up again in ``cwd`` (the work tree, where it could be another
        file). A sandbox is checked too (bubblewrap works here, the program is inside it)."""
        self.check()
        checked = self
        if os.sep in self.argv[0]:
            checked = replace(self, argv=(os.path.abspath(self.argv[0]), *self.argv[1:]))
        if self.sandbox is not None:
            checked = replace(checked, sandbox=self.sandbox.checked(self._program()))
        return checked

    def __call__(self, request: dict, cancel: threading.Event | None = None) -> Reply:
        """Run the command once for ``request``; setting ``cancel`` kills it (the drive was cancelled). Children
        it leaves are killed when it is done, in its process group or not: they must not change the work tree
        later."""
        data = (json.dumps(request, ensure_ascii=False) + "\n").encode("utf-8")
        env = self.environment()
        argv, cwd = (self.sandbox.argv(self.argv), None) if self.sandbox is not None else (self.argv, self.cwd)
        with contained():
            run = run_process(argv, timeout=self.timeout, limit=self.max_output, input=data, cwd=cwd, env=env,
                              cancel=cancel, kill_leftovers=True)
        stderr = run.stderr.text()[-_STDERR_LIMIT:]
        facts = dict(exit_code=run.exit_code, timed_out=run.timed_out, seconds=run.seconds,
                     stdout_bytes=run.stdout.total, stderr_tail=stderr)
        if run.error is not None:
            return Reply(None, _failed(f"{run.error}. Check the executor command."), **facts)
        if run.timed_out:
            return Reply(None, _failed(f"the executor was still running after {self.timeout:g} s and was killed "
                                       f"(with every process it started){_stderr_end(stderr)}. Finish within the "
                                       "time limit, or report success: false with a summary of what is left."),
                         **facts)
        if run.stdout.total > self.max_output:
            return Reply(None, _invalid(f"the executor wrote {run.stdout.total} bytes on stdout, over the limit of "
                                        f"{self.max_output}. Write only the result JSON on stdout."), **facts)
        result, problem = _one_object(run.stdout.text())
        # a non-zero exit with a failure report is an honest "could not do it"; with a success claim, a contradiction
        if result is not None and (run.exit_code == 0 or result.get("success") is False):
            return Reply(result, None, **facts)
        if run.exit_code != 0:
            return Reply(None, _failed(f"the executor {_exit_words(run.exit_code)}{_stderr_end(stderr)}. "
                                       "Exit 0 with the result JSON on stdout, or report success: false."), **facts)
        return Reply(None, _invalid(f"{problem}. Write exactly one JSON object, the result "
                                    "(schemas/execute-step.schema.json), on stdout; logs go to stderr."), **facts)


def reply_of_call(value: Any = None, error: BaseException | None = None, seconds: float = 0.0) -> Reply:
    """The Reply for a callable executor that returned ``value`` or raised ``error``."""
    if error is not None:
        return Reply(None, _failed(f"the executor raised {type(error).__name__}: {str(error)[:_SHOWN]}. "
                                   "Return the result as a dict, or report success: false."), seconds=seconds)
    if hasattr(value, "model_dump"):  # an ExecuteStepResult model
        value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if not isinstance(value, dict):
        return Reply(None, _invalid(f"the executor returned {type(value).__name__}, not a dict. Return the result "
                                    "(schemas/execute-step.schema.json) as a dict."), seconds=seconds)
    try:  # what a command executor could give: JSON, a copy the executor can no longer change
        value = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        return Reply(None, _invalid(f"the executor returned a dict that is not JSON ({str(exc)[:_SHOWN]}). Return "
                                    "the result with JSON values only: str, number, bool, None, list, dict."),
                     seconds=seconds)
    return Reply(value, None, seconds=seconds)


def _one_object(text: str) -> tuple[dict | None, str]:
    """The stdout's one JSON object, or None and what is wrong with it."""
    stripped = text.strip()
    if not stripped:
        return None, "the executor wrote nothing on stdout"
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError) as exc:
        return None, f"the executor's stdout is not one JSON value ({_first_problem(exc)}): it starts " \
                     f"{stripped[:80]!r}"
    if not isinstance(value, dict):
        return None, f"the executor's stdout is JSON {type(value).__name__}, not an object"
    return value, ""


def _first_problem(exc: Exception) -> str:
    return str(exc).split(":")[0] if isinstance(exc, ValueError) else "nested too deeply"


def _exit_words(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def _stderr_end(stderr: str) -> str:
    tail = stderr.strip()[-_SHOWN:]
    return f"; its stderr ends: {tail!r}" if tail else "; its stderr is empty"


def _failed(message: str) -> Finding:
    return Finding(rule=ids.EXECUTOR_FAILED, stage="executor", message=message)


def _invalid(message: str) -> Finding:
    return Finding(rule=ids.EXECUTOR_OUTPUT_INVALID, stage="executor", message=message)


def command_executor(argv: Sequence[str], **options: Any) -> CommandExecutor:
    """A CommandExecutor for ``argv``, checked (InputError when it cannot run)."""
    return CommandExecutor(tuple(os.fspath(a) for a in argv), **options).checked()
