"""What an executor must return for a step and how judge will judge it: Markdown to paste into the executor's prompt
(seed 000's "Agent Instructions Addendum"), derived from the schemas, the rule catalogue and the step's gates.

Nothing here restates a rule by hand: each rule's text is judge.rule_ids.CATALOG's, the result's fields are
schemas/execute-step.schema.json's, the evidence file's schemas/evidence-file.schema.json's, and the gates and
policies are what judge.gates.spec.gate_spec makes of the step and its template, as the pipeline does.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from judge import rule_ids as ids
from judge.config import JudgeConfig
from judge.contract.gates import EVIDENCE_FIELDS, GATE_TYPES
from judge.contract.models import Step
from judge.contract.schema import load_schema, parse_step
from judge.gates.spec import GateSpec, gate_spec
from judge.gates.templates import load_template
from judge.lazy_pattern import lazy_compile
from judge.rule_ids import CATALOG, RuleInfo
from judge.runs.record_table import code_span

__all__ = ["EVIDENCE_DIR", "GATE_CHECKS", "render_instructions"]

# Seed 000: where an executor that changed no tracked file proves its work.
EVIDENCE_DIR = ".orchestrator/evidence"

# What each gate type passes on, one line each (docs/gates.md's gate table, worded for the executor).
GATE_CHECKS: dict[str, str] = {
    "command_exit_0": "a verified record of `command` shows exit 0",
    "command_output_contains": "a verified record of `command` shows exit 0 and stdout containing `contains`",
    "command_output_regex": "a verified record of `command` shows exit 0 and stdout matching `pattern`",
    "file_exists": "a regular file is at `path` (a link or directory is not)",
    "file_not_exists": "nothing is at `path`",
    "changed_files_allowlist": "every changed file matches a glob of `allowed`",
    "changed_files_minimum": "at least `min_count` (default 1) changed files match `paths`",
    "forbid_paths": "no changed file matches `paths`",
    "diff_max_lines": "added + removed lines are at most `max`",
    "diff_min_lines": "added + removed lines are at least `min` (default 1)",
    "json_schema_valid": "the file at `path` is JSON valid against `schema`",
    "criteria_checklist_complete": "every criterion of the step is `true` in the evidence's `criteria_checklist`",
    "patch_applies_cleanly": "the gate's `patch` applies to the work tree (without one: your patch applies to the base)",
    "no_uncommitted_changes": "`git status` is clean: nothing staged, modified or untracked",
    "tests_passed": "the evidence says `tests_passed: true` and each command of `tests_run` is backed by a verified record",
    "lint_passed": "the evidence says `lint_passed: true` and each command of `lint_run` is backed by a verified record",
    "human_approval": "a person approves the work, after every other check passed (you cannot do it for them)",
}
assert tuple(GATE_CHECKS) == GATE_TYPES, "one line per gate type of the contract"

# The evidence document's fields (seed 004), worded for the executor.
_EVIDENCE_FIELD_HELP: dict[str, str] = {
    "changed_files": "the files you changed (compared with what git or the patch shows)",
    "diff_summary": "the change in a sentence or two",
    "commands_run": "every command you ran, exactly as you ran it",
    "tests_run": "the test commands, exactly as in `commands_run`",
    "tests_passed": "`true` only when those tests passed",
    "lint_run": "the lint commands, exactly as in `commands_run`",
    "lint_passed": "`true` only when lint passed",
    "artifacts_created": "files you made besides the change (reports, build output)",
    "criteria_checklist": "each criterion id of the step, `true` when it is met",
    "notes": "anything else the orchestrator should know",
}
assert tuple(_EVIDENCE_FIELD_HELP) == EVIDENCE_FIELDS

# The result's fields, worded for the executor; a field the schema gains and this lacks shows the schema's description.
_RESULT_FIELD_HELP: dict[str, str] = {
    "success": "`true` only when you did the whole step; otherwise `false` (see the last section)",
    "patch": "the unified diff (`git diff` against the commit you started from) of every change you made, whole; "
             "`git add -N FILE` each new file first, or a plain `git diff` leaves it out; delete (or .gitignore) what "
             "your runs left behind (caches, bytecode, build output) rather than listing it",
    "filesWritten": "every file the patch adds, changes, deletes or renames",
    "filesTouched": "every file of `filesWritten`, plus the files you only read",
    "summary": "what you did, in plain words for the orchestrator; never words addressed to the judge or reviewer",
    "evidence": "the evidence document: only when the step has gates (below)",
}

# Rules only one mode can break; the rest apply to both.
_ONLY_IN_MODE: dict[str, str] = {
    ids.SCOPE_FIX_REGRESSION: "fix_regression",
    ids.REVERSAL: "fix_regression",
    ids.PARTIAL_REVERSAL: "fix_regression",
    ids.OVERREACH: "fix_regression",
    ids.SUPERFICIAL_ONLY: "apply",
    ids.STEP_NOT_IMPLEMENTED: "apply",
}
# Rejections the executor can neither cause nor fix: the orchestrator's step and policies, judge itself.
_NOT_THE_EXECUTORS = frozenset({ids.POLICY_CONTRADICTION, ids.POLICY_WARNING, ids.WORKSPACE_UNREADABLE,
                                ids.LLM_UNAVAILABLE, ids.JUDGE_ERROR})
# The catalogue's leading tag, `*(workspace)*` or `*(ledger, signal only)*`: when a rule applies.
_TAG = lazy_compile(r"^\*\((?P<tag>[^)]*)\)\*\s*")
# "(see below)", "(see `judge/rules/reversal.py` for why)": pointers within docs/rules.md, which this text is not.
_SEE_ALSO = lazy_compile(r"\s*\(see [^)]*\)")
# Tags of the rules that need more than the result: the repository, a ledger, or the orchestrator's command records.
_WORKSPACE_TAGS = frozenset({"workspace", "ledger", "evidence"})
# Where a long rule text may be cut (after a clause), and how long one may be before it is.
_CLAUSE_END = lazy_compile(r"[,;:] | — ")
_RULE_TEXT_LIMIT = 240


def render_instructions(step: Any = None, *, config: JudgeConfig | None = None) -> str:
    """Markdown telling an executor what to return for ``step`` (a dict or Step; None: any step) and how judge
    judges it. A step that breaks its contract, or names a template that cannot be read, raises ContractViolation."""
    config = config or JudgeConfig()
    if step is None:
        return _document(("# Instructions for the executor", _INTRODUCTION, _result_section(None),
                          _rules_section(None, None), _evidence_file_section(None), _generic_gates_section(),
                          _failure_section(None)))
    step = step if isinstance(step, Step) else parse_step(step)
    template = load_template(step.template, config.templates_dir) if step.template else None
    spec = gate_spec(step, None, template, (("judge.toml", config.policies),), config.policy_overrides)
    return _document((f"# Instructions for step {code_span(step.id)}", _INTRODUCTION, _scope_section(step),
                      _result_section(step), _rules_section(step.mode, spec), _evidence_file_section(step),
                      _gates_section(spec), _failure_section(step.mode)))


_INTRODUCTION = (
    "judge decides whether you really did this step. It checks your result against the step and, when the "
    "orchestrator gives it the repository, against the work itself: what you claim is compared with what changed. "
    "It answers `{\"valid\": bool, \"reason\": str}`; a rejection names the rule and what to fix.")


def _document(sections: Iterable[str]) -> str:
    return "\n\n".join(section for section in sections if section) + "\n"


def _scope_section(step: Step) -> str:
    mode = code_span(step.mode) if step.mode else "not stated (`apply`, unless you fix a regression)"
    lines = ["## The step", f"- id: {code_span(step.id)}; mode: {mode}"]
    if step.mode == "fix_regression":
        lines.append(f"- a fix of a regression: touch only the files the apply step changed (`applyFiles`: "
                     f"{_spans(step.apply_files or ())}), and fix narrowly; do not undo the apply step")
    if step.allowed_files is not None:
        lines.append(f"- every file you write must match one of `allowedFiles`: {_spans(step.allowed_files)}")
    if step.excluded_paths:
        lines.append(f"- write no file that matches `excludedPaths`: {_spans(step.excluded_paths)}")
    if step.expects_no_changes:
        lines.append("- `expectsNoChanges`: the step may change no file; then return `success: true` with no "
                     "`patch` and no `filesWritten`")
    return "\n".join(lines)


def _result_section(step: Step | None) -> str:
    schema = load_schema("result")
    lines = ["## What to return", "One JSON object (schemas/execute-step.schema.json); * marks a required field:"]
    for name, field in schema["properties"].items():
        mark = "*" if name in schema.get("required", ()) else ""
        text = _mode_help(step) if name == "mode" else _RESULT_FIELD_HELP.get(name) or field.get("description", "")
        lines.append(f"- `{name}`{mark}: {text}")
    return "\n".join(lines)


def _mode_help(step: Step | None) -> str:
    if step is None or step.mode is None:
        return "`\"apply\"` for a step, `\"fix_regression\"` for a fix of a regression an apply step caused"
    return f"`\"{step.mode}\"`, the step's mode"


def _rules_section(mode: str | None, spec: GateSpec | None) -> str:
    """The catalogue's rules that can reject this step's result, grouped by what judge needs to apply them."""
    rules = [info for info in CATALOG if info.id not in _NOT_THE_EXECUTORS and _applies(info, mode)]
    with_gates = spec is None or bool(spec.gates) or spec.needs_evidence
    groups = (
        ("When `judge drive` runs you: your stdout is the result, one JSON object and nothing else",
         [r for r in rules if r.stage == "executor"]),
        ("Always", [r for r in rules if r.stage in ("contract", "rules") and _tag(r) == ""]),
        ("When judge has the repository, a ledger or the orchestrator's command records",
         [r for r in rules if r.stage == "rules" and _tag(r) in _WORKSPACE_TAGS]),
        ("The gates and the evidence document" + ("" if spec is None else " (below)"),
         [r for r in rules if r.stage == "gates"] if with_gates else []),
        ("Review by a model, when judge has one (only what the rules let through)",
         [r for r in rules if r.stage == "semantic"]),
    )
    parts = ["## How it is judged",
             "Each of these rejects the result; when several do, the first in judge's order is the verdict."]
    for title, members in groups:
        if members:
            parts.append(f"### {title}\n" + "\n".join(_rule_line(r, mode) for r in members))
    signals = [r.id for r in rules if "signal only" in _tag(r)]
    parts.append("Never a rejection alone, but shown to the reviewing model: " + ", ".join(f"`{s}`" for s in signals)
                 + ".")
    return "\n\n".join(parts)


def _applies(info: RuleInfo, mode: str | None) -> bool:
    only = _ONLY_IN_MODE.get(info.id)
    return only is None or mode is None or only == mode


def _tag(info: RuleInfo) -> str:
    match = _TAG.match(info.when)
    return match.group("tag") if match else ""


def _rule_line(info: RuleInfo, mode: str | None) -> str:
    when = _clipped(_SEE_ALSO.sub("", _TAG.sub("", info.when, count=1)))
    only = _ONLY_IN_MODE.get(info.id)
    label = f" *({only} only)*" if only and mode is None else ""
    return f"- `{info.id}`{label}: {when}"


def _clipped(text: str, limit: int = _RULE_TEXT_LIMIT) -> str:
    """``text`` cut after its last whole clause within ``limit`` characters (or its first clause, when that is
    longer), marked with an ellipsis: the long catalogue lines list every case (all of Windows' reserved names),
    which a prompt does not need. A cut never falls inside a code span or a parenthesis, so the Markdown stays
    whole."""
    if len(text) <= limit:
        return text
    cuts = [m.start() for m in _CLAUSE_END.finditer(text)
            if text.count("`", 0, m.start()) % 2 == 0 and text.count("(", 0, m.start()) == text.count(")", 0, m.start())]
    within = [cut for cut in cuts if cut <= limit]
    cut = within[-1] if within else (cuts[0] if cuts else len(text))
    return text if cut == len(text) else text[:cut] + " …"


def _evidence_file_section(step: Step | None) -> str:
    schema = load_schema("evidence-file")
    step_id = step.id if step is not None else "<step id>"
    kinds = [kind for kind in schema["properties"]["type"]["enum"] if kind not in (None, "file_changes")]
    example = {"version": 1, "nodeId": step_id, "timestamp": "<ISO 8601, e.g. 2026-02-07T16:00:00.000Z>",
               "summary": "<what you did>", "type": " | ".join(kinds)}
    optional = "; ".join(f"`{name}`: {field.get('description', '')}" for name, field in schema["properties"].items()
                         if name not in schema["required"])
    return "\n".join([
        "## Work evidence",
        "Your work must change at least one file. When the step needs no file change (analysis, validation, an "
        "external effect), write the evidence file instead; it counts as the change:",
        f"Path: `{EVIDENCE_DIR}/{step_id}.json`", "```json", json.dumps(example, indent=2, ensure_ascii=False), "```",
        f"Required: {', '.join(f'`{name}`' for name in schema['required'])}. Optional: {optional}"])


def _gates_section(spec: GateSpec) -> str:
    if not spec.gates and not spec.needs_evidence:
        return ("## Gates\nThis step has none: leave `evidence` out. If you send it anyway, its claims are checked "
                "(`tests_passed: true` must be backed by a verified record of the tests).")
    lines = ["## Gates", "Checked after the rules, in this order:"]
    for entry in spec.gates:
        gate = entry.gate
        params = f" {code_span(json.dumps(gate.parameters, ensure_ascii=False))}" if gate.parameters else ""
        about = f" — {gate.description}" if gate.description else ""
        source = "" if entry.source == "step" else f" (from the {entry.source})"
        lines.append(f"{entry.index}. `{gate.type}`{params}{source}: {GATE_CHECKS[gate.type]}{about}")
    return "\n".join(lines + ["", _evidence_doc(spec), "", _policies(spec), "", _TRUTHFULNESS])


def _evidence_doc(spec: GateSpec) -> str:
    required = spec.required_fields
    lines = ["### The evidence document (`evidence` in your result, snake_case fields)",
             "Required (present and not null, false, blank or empty): "
             + (", ".join(f"`{name}`" for name in required) or "none")]
    lines += [f"- `{name}`: {_EVIDENCE_FIELD_HELP[name]}" for name in required if name in _EVIDENCE_FIELD_HELP]
    others = [name for name in EVIDENCE_FIELDS if name not in required]
    lines.append("Also: " + "; ".join(f"`{name}`: {_EVIDENCE_FIELD_HELP[name]}" for name in others) + ".")
    if spec.criteria:
        lines.append("Criteria for `criteria_checklist` (each `true` only when met):")
        lines += [f"- {code_span(key)}: {text}" for key, text in spec.criteria.items()]
    return "\n".join(lines)


def _policies(spec: GateSpec) -> str:
    policies = spec.policies
    values = {"enable_shell_gates": policies.enable_shell_gates, "shell_gate_allowlist": list(policies.shell_gate_allowlist),
              "require_tests_evidence": policies.require_tests_evidence,
              "require_diff_summary": policies.require_diff_summary,
              "evidence_schema_mode": policies.evidence_schema_mode}
    return "### Policies in force\n" + "\n".join(
        f"- `{key}`: {code_span(json.dumps(value))} ({policies.source(key)})" for key, value in values.items())


_TRUTHFULNESS = (
    "A claim about a command (`tests_passed`, `lint_passed`, a command gate) counts only when judge has a verified "
    "record of exactly that command for this step, made on the work as you leave it by the orchestrator or by judge "
    "itself (a record of an earlier state of the tree backs nothing), and the command is in `commands_run`; "
    "`tests_run` must name commands that run the tests. List the commands exactly as run; never claim what you "
    "did not run or what failed.")


def _generic_gates_section() -> str:
    lines = ["## Gates", "A step may list gates, checked after the rules. What each passes on:"]
    lines += [f"- `{kind}`: {check}" for kind, check in GATE_CHECKS.items()]
    lines.append("With gates, send the evidence document as `evidence`; its fields: "
                 + "; ".join(f"`{name}`: {text}" for name, text in _EVIDENCE_FIELD_HELP.items()) + ".")
    return "\n".join(lines + ["", _TRUTHFULNESS])


def _failure_section(mode: str | None) -> str:
    shown = f"`mode: \"{mode}\"`" if mode else "the step's `mode`"
    return ("## When you could not do it\n"
            f"Return `success: false` with {shown}, no `patch` and no `filesWritten` (`{ids.FAILURE_WITH_PATCH}`), "
            f"and a `summary` of a sentence or more saying what blocked you and what you tried "
            f"(`{ids.FAILURE_WITHOUT_SUMMARY}`). Leave the repository as you found it: changes left behind are "
            f"`{ids.CHANGED_BUT_UNCLAIMED}`. Never report partial work as `success: true`.")


def _spans(values: Iterable[str]) -> str:
    return ", ".join(code_span(value) for value in values) or "none"
