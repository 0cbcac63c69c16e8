"""One reader for every interface: raw input becomes one frozen Request, read once, in one order, under one policy.

The command line, `judge serve`, `judge mcp`, `judge drive`, `judge eval` and the Python API all hand their input
here, so the same input gets the same answer everywhere. What goes wrong is sorted once:

- input that cannot be read as a request (not JSON, not an object, an unknown or missing key, records that are
  not a list, a workspace outside the server's roots) is an InputError from ``asked_of``: a refusal (exit 2,
  HTTP 400, an MCP tool error);
- a step, result, record or gate spec that breaks its contract travels on the Request: a ``schema_invalid``
  verdict on every interface, and nothing else is read;
- workspace arguments that name nothing judge can use (no such directory, work tree, commit or ledger; a
  repository without its base), or an evidence key of the caller's own configuration that cannot be read, travel
  on the Request too and come first: every interface refuses them (``Request.refusal``); the Python API, which
  never raises, gives the ``workspace_unreadable`` or ``execution_evidence_invalid`` verdict instead. A server's
  own key is not its client's to fix: `judge serve` and `judge mcp` answer its problem with that verdict;
- a workspace that opens but cannot be read through (corrupt, tampered) is ``workspace_unreadable`` everywhere;
- anything else that fails while reading is judge's own failure: ``judge_error``, never a refusal or valid.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from judge.errors import ContractViolation, InputError, WorkspaceRefused

if TYPE_CHECKING:
    from judge.config import JudgeConfig
    from judge.contract.models import ExecuteStepResult, ExecutionEvidence, Step
    from judge.contract.plain import PlainResult, PlainStep
    from judge.gates.spec import GateSpec
    from judge.runs.keys import EvidenceKey
    from judge.workspace.facts import Workspace, WorkspaceFacts
    from judge.workspace.roots import WorkspaceRoots

__all__ = ["Asked", "OLD_NAMES", "REQUEST_KEYS", "Request", "asked_of", "take"]

# A validate request's keys (HTTP body, MCP arguments); `evidence` is the records' older name, still read.
REQUEST_KEYS = ("step", "result", "workspace", "records")
OLD_NAMES = {"evidence": "records"}


@dataclass(frozen=True)
class Request:
    """Everything one validation reads, read once: the evidence key, then the contract, then the workspace. When
    ``violation`` is set the contract is broken and the workspace was not read; ``key_problem`` and
    ``workspace_problem`` say why the key or the workspace could not be; ``failure`` is judge's own."""

    step: "Step | PlainStep | None" = None
    result: "ExecuteStepResult | PlainResult | None" = None
    records: "tuple[ExecutionEvidence, ...]" = ()
    spec: "GateSpec | None" = None
    violation: ContractViolation | None = None
    key: "EvidenceKey | None" = None
    key_problem: InputError | None = None
    workspace: "WorkspaceFacts | None" = None
    workspace_problem: InputError | None = None
    key_in_repository: str | None = None  # the judged repository that holds the evidence key (then it is not read)
    failure: Exception | None = None  # judge's own failure while reading the workspace
    has_repository: bool = False  # the caller named a repository (command gates may run in it)

    @property
    def success(self) -> bool | None:
        """What the result says of itself (``success``); None when the contract is broken."""
        return self.result.success if self.result is not None else None

    def refusal(self, *, own_key: bool = True) -> InputError | None:
        """What an interface refuses instead of judging: workspace arguments that name nothing judge can use, or
        (``own_key``: the key is the caller's own configuration, as on the command line) an unreadable key."""
        if own_key and self.key_problem is not None:
            return self.key_problem
        if isinstance(self.workspace_problem, WorkspaceRefused):
            return self.workspace_problem
        return None


@dataclass(frozen=True)
class Asked:
    """A validate request's parts as a client sent them (HTTP body, MCP arguments), its shape checked."""

    step: Any
    result: Any
    records: tuple[Any, ...]
    workspace: "Workspace | None"


def asked_of(request: Mapping[str, Any], roots: "WorkspaceRoots", *, also: Sequence[str] = ()) -> Asked:
    """The parts of a request object; InputError (naming the key) when its shape is wrong. ``also``: keys the
    interface reads itself (MCP's ``explain``)."""
    known = (*REQUEST_KEYS, *OLD_NAMES, *also)
    unknown = sorted(set(request) - set(known))
    if unknown:
        raise InputError(f"has unknown key(s) {', '.join(map(repr, unknown))}; its keys are "
                         f"{', '.join((*REQUEST_KEYS, *also))} (the model, its API base and keys are the server's own "
                         "settings)", field="request")
    missing = [key for key in ("step", "result") if request.get(key) is None]
    if missing:
        raise InputError(f"has no {' and no '.join(missing)}: send {{\"step\": <step JSON>, \"result\": <executor "
                         "result JSON>}", field="request")
    name, records = _one_of(request, "records")
    if records is not None and not isinstance(records, list):
        raise InputError("must be a list of execution records as `judge run` writes them", field=name)
    workspace = roots.workspace(request["workspace"]) if request.get("workspace") is not None else None
    return Asked(request["step"], request["result"], tuple(records or ()), workspace)


def _one_of(request: Mapping[str, Any], name: str) -> tuple[str, Any]:
    """(the key given, its value): ``name`` or its older name; InputError when both are given."""
    old = next((o for o, new in OLD_NAMES.items() if new == name and o in request), None)
    if old is not None and name in request:
        raise InputError(f"and {old!r} are one thing under two names; give only {name!r}", field=name)
    return (old, request[old]) if old is not None else (name, request.get(name))


def take(step: Any, result: Any, *, records: Sequence[Any] = (), workspace: "Workspace | None" = None,
         config: "JudgeConfig") -> Request:
    """The Request for one validation: the evidence key, the contract (step, result, records, gate spec), then the
    workspace facts, each read once. Raises nothing a caller's input causes: see the module's policy."""
    from judge.runs.keys import configured_key
    from judge.workspace.confine import is_inside

    try:
        key = configured_key(config.evidence_key, config.artifacts_root)
        key_problem = None
    except InputError as exc:
        key, key_problem = None, exc
    repository = workspace is not None and workspace.repo is not None
    arguments = _arguments_problem(workspace)
    try:
        step_model, result_model, parsed, spec = _contract(step, result, records, workspace, config)
    except ContractViolation as violation:
        return Request(violation=violation, key=key, key_problem=key_problem, workspace_problem=arguments,
                       has_repository=repository)
    request = Request(step_model, result_model, parsed, spec, key=key, key_problem=key_problem,
                      workspace_problem=arguments, has_repository=repository)
    if workspace is None or key_problem is not None or arguments is not None:
        return request
    if key is not None and workspace.repo is not None and is_inside(key.path, workspace.repo):
        return replace(request, key_in_repository=os.path.abspath(workspace.repo))  # judged no further
    try:
        facts = workspace.read(step_model.id, result_model.patch)
    except InputError as exc:
        return replace(request, workspace_problem=exc)
    except Exception as exc:  # judge's own failure (or input no interface can send): judge_error, never valid
        return replace(request, failure=exc)
    return replace(request, workspace=facts)


def _arguments_problem(workspace: "Workspace | None") -> InputError | None:
    """Why the workspace's arguments do not go together (checked before the workspace is read), or None."""
    if workspace is None:
        return None
    try:
        workspace.check_arguments()
    except InputError as exc:
        return exc
    return None


def _contract(step: Any, result: Any, records: Sequence[Any], workspace: "Workspace | None",
              config: "JudgeConfig") -> tuple:
    """(step, result, records, gate spec); ContractViolation at the first that breaks its contract. A step and
    result with only plain fields are read without pydantic (judge.contract.plain), all others as models."""
    from judge.contract.plain import plain_result, plain_step
    from judge.gates.spec import gate_spec

    step_model = plain_step(step) or _step_model(step)
    result_model = plain_result(result) or _result_model(result)
    parsed = tuple(_record(record, index) for index, record in enumerate(records))
    judged = workspace.repo if workspace is not None else None
    template = None
    if step_model.template:
        from judge.gates.templates import load_template

        template = load_template(step_model.template, config.templates_dir, judged)
    spec = gate_spec(step_model, result_model.evidence, template, (("judge.toml", config.policies),),
                     config.policy_overrides)
    return step_model, result_model, parsed, spec


def _step_model(step: Any) -> "Step":
    from judge.contract.models import Step
    from judge.contract.schema import parse_step

    return step if isinstance(step, Step) else parse_step(step)


def _result_model(result: Any) -> "ExecuteStepResult":
    from judge.contract.models import ExecuteStepResult
    from judge.contract.schema import parse_result

    return result if isinstance(result, ExecuteStepResult) else parse_result(result)


def _record(record: Any, index: int) -> "ExecutionEvidence":
    from judge.contract.models import ExecutionEvidence
    from judge.contract.schema import parse_execution_evidence

    if isinstance(record, ExecutionEvidence):
        return record
    try:
        return parse_execution_evidence(record)
    except ContractViolation as violation:
        where = violation.path.replace("$.execution-evidence", f"$.records[{index}]", 1)
        raise ContractViolation("record", violation.schema, where, violation.problem) from None

