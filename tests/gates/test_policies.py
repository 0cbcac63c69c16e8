"""Policies (seed 004): the defaults, the three presets, the layers (judge.toml < template < step < flags), which
commands may run — none unless allowlisted, never through a shell — the seed's warnings and its contradiction."""

from __future__ import annotations

import json
import os
import fnmatch
import shlex
from pathlib import Path

import pytest

import judge
from helpers.builders import run_cli
from helpers.gate_cases import (PY, STAND_IN_TESTS, Project, evidence, gate, gate_result, project, py, record, rules,
                        shell_on, step)
from judge.contract.gates import PRESETS, PolicyLayer
from judge.contract.schema import parse_step
from judge.gates.policies import Policies, command_denial
from judge.gates.spec import gate_spec
from judge.runs.artifacts import ARTIFACT_FILES
from helpers.scenario_repos import git_env  # noqa: F401  (git_env: autouse fixture)


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    return project(tmp_path).change()


def marking(proj: Project, label: str = "ran") -> tuple[str, Path]:
    """A command that, if it ever runs, creates a marker file outside the repository."""
    marker = proj.tmp / label
    return py(f"open({str(marker)!r}, 'w').write('ran')"), marker


def policies_of(step_data: dict, *, toml: dict | None = None, template: dict | None = None,
                flags: dict | None = None) -> Policies:
    from judge.contract.gates import StepTemplate

    spec = gate_spec(parse_step(step_data), None, StepTemplate.model_validate(template) if template else None,
                     (("judge.toml", PolicyLayer.model_validate(toml) if toml else None),),
                     PolicyLayer.model_validate(flags) if flags else None)
    return spec.policies


# --- defaults and presets ------------------------------------------------------------------------


def test_defaults_are_the_seeds():
    policies = policies_of(step())
    assert (policies.enable_shell_gates, policies.shell_gate_allowlist, policies.require_tests_evidence,
            policies.require_diff_summary, policies.evidence_schema_mode) == (False, (), False, False, "lenient")
    assert policies.source("enable_shell_gates") == "default"


@pytest.mark.parametrize("preset, expected", [
    ("permissive", {"enable_shell_gates": False, "require_tests_evidence": False, "shell_gate_allowlist": ()}),
    ("strict", {"enable_shell_gates": True, "require_tests_evidence": True,
                "shell_gate_allowlist": ("*pytest*", "*npm test*", "*npm run test*")}),
    ("audit", {"enable_shell_gates": True, "require_tests_evidence": True, "require_diff_summary": True,
               "evidence_schema_mode": "strict",
               "shell_gate_allowlist": ("*pytest*", "*npm test*", "*npm run lint*", "*npm run build*")}),
])
def test_presets_are_the_seeds_three_modes(preset, expected):
    policies = policies_of(step(policies={"preset": preset}))
    assert {key: getattr(policies, key) for key in expected} == expected
    assert set(PRESETS) == {"permissive", "strict", "audit"}


def test_a_layers_own_keys_override_its_preset():
    policies = policies_of(step(policies={"preset": "strict", "shell_gate_allowlist": ["*make test*"]}))
    assert policies.shell_gate_allowlist == ("*make test*",) and policies.require_tests_evidence


def test_a_higher_layers_preset_overrides_a_lower_layers_keys():
    policies = policies_of(step(policies={"preset": "permissive"}), toml={"require_tests_evidence": True,
                                                                          "enable_shell_gates": True})
    assert not policies.require_tests_evidence and not policies.enable_shell_gates
    assert policies.source("require_tests_evidence") == "step"


@pytest.mark.parametrize("bad", [{"preset": "lax"}, {"enable_shell_gates": "yes"}, {"shell_gate_allowlist": "*"},
                                 {"shell_gate_allowlist": [""]}, {"evidence_schema_mode": "loose"},
                                 {"enable_shell_gate": True}])
def test_bad_step_policies_are_schema_invalid(proj, bad):
    verdict = proj.validate(step(policies=bad))
    assert verdict.rule == "schema_invalid" and "$.step.policies" in verdict.reason


# --- layers: judge.toml < template < step < flags --------------------------------------------------

LAYERS = {
    "toml": {"enable_shell_gates": True, "shell_gate_allowlist": ["*"]},
    "template": {"enable_shell_gates": False},
    "step": {"enable_shell_gates": True},
    "flags": {"enable_shell_gates": False},
}


@pytest.mark.parametrize("present, value, source", [
    (("toml",), True, "judge.toml"),
    (("toml", "template"), False, "template"),
    (("toml", "template", "step"), True, "step"),
    (("toml", "template", "step", "flags"), False, "command line"),
    (("toml", "flags"), False, "command line"),
    (("template", "step"), True, "step"),
])
def test_each_layer_overrides_the_ones_below(present, value, source):
    policies = policies_of(step(**({"policies": LAYERS["step"]} if "step" in present else {})),
                           toml=LAYERS["toml"] if "toml" in present else None,
                           template={"policies": LAYERS["template"]} if "template" in present else None,
                           flags=LAYERS["flags"] if "flags" in present else None)
    assert (policies.enable_shell_gates, policies.source("enable_shell_gates")) == (value, source)


def test_unset_keys_leave_the_layer_below_alone():
    policies = policies_of(step(policies={"require_diff_summary": True}), toml=LAYERS["toml"])
    assert policies.shell_gate_allowlist == ("*",) and policies.source("shell_gate_allowlist") == "judge.toml"
    assert policies.require_diff_summary and policies.source("require_diff_summary") == "step"


def test_the_layers_decide_whether_a_command_runs(proj):
    cmd, marker = marking(proj)
    s = step(gate("command_exit_0", command=cmd), policies={"enable_shell_gates": False})
    done = proj.result(evidence(commands=[cmd]))
    toml = PolicyLayer.model_validate(LAYERS["toml"])
    verdict = proj.validate(s, done, policies=toml)
    assert verdict.rule == "command_not_allowed" and "from step" in verdict.reason and not marker.exists()
    verdict = proj.validate(s, done, policies=toml, policy_overrides=PolicyLayer(enable_shell_gates=True))
    assert verdict.valid, verdict.reason
    assert marker.read_text() == "ran"


def test_the_templates_policies_sit_between_judge_toml_and_the_step(proj):
    cmd, marker = marking(proj)
    (proj.tmp / "templates").mkdir()
    (proj.tmp / "templates" / "closed.json").write_text(json.dumps({"policies": LAYERS["template"]}))
    toml = PolicyLayer.model_validate(LAYERS["toml"])
    done = proj.result(evidence(commands=[cmd]))
    verdict = proj.validate(step(gate("command_exit_0", command=cmd), template="closed"), done, policies=toml)
    assert verdict.rule == "command_not_allowed" and "from template" in verdict.reason and not marker.exists()
    reopened = step(gate("command_exit_0", command=cmd), template="closed", policies={"enable_shell_gates": True})
    assert proj.validate(reopened, done, policies=toml).valid and marker.exists()


def test_the_command_line_flags_override_the_step(proj, tmp_path, capsys, monkeypatch):
    cmd, marker = marking(proj)
    files = {"step.json": step(gate("command_exit_0", command=cmd), policies=shell_on()),
             "result.json": proj.result(evidence(commands=[cmd]))}
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data))
    monkeypatch.chdir(tmp_path)  # judge.toml / pyproject.toml of the working directory: none here
    common = ("validate", "--step", str(tmp_path / "step.json"), "--result", str(tmp_path / "result.json"),
              "--repo", str(proj.root), "--base", proj.repo.base, "--artifacts", str(tmp_path / "art"),
              "--semantic", "off")
    code, out, err = run_cli(capsys, *common, "--no-enable-shell-gates")
    assert (code, json.loads(out)["valid"]) == (1, False) and "command_not_allowed" in out and not marker.exists()
    assert "enable_shell_gates is false, from command line" in out
    code, out, err = run_cli(capsys, *common)
    assert (code, json.loads(out)["valid"]) == (0, True) and marker.exists()


# --- command gates run only when allowed ---------------------------------------------------------


def test_shell_gates_off_by_default_nothing_runs(proj):
    cmd, marker = marking(proj)
    verdict = proj.validate(step(gate("command_exit_0", command=cmd)), proj.result(evidence(commands=[cmd])))
    assert (verdict.valid, verdict.rule) == (False, "command_not_allowed")
    assert "enable_shell_gates" in verdict.reason and "shell gates are off" in verdict.reason
    assert gate_result(verdict, "command_exit_0").status == "failed"
    assert verdict.outcome.next_action == "diagnose"  # the orchestrator's policy must change, not the work
    assert not marker.exists() and verdict.execution_evidence == ()


def test_shell_gates_on_but_not_allowlisted_nothing_runs(proj):
    cmd, marker = marking(proj)
    s = step(gate("command_output_contains", command=cmd, contains="x"), policies=shell_on("*npm test*"))
    verdict = proj.validate(s, proj.result(evidence(commands=[cmd])))
    assert (verdict.valid, verdict.rule) == (False, "command_not_allowed")
    assert "shell_gate_allowlist" in verdict.reason and "'*npm test*'" in verdict.reason
    from judge.gates.policies import _pattern_for
    assert f"e.g. {_pattern_for(cmd)!r}" in verdict.reason  # the command itself, never a prefix such as `python -c*`
    assert fnmatch.fnmatchcase(cmd, _pattern_for(cmd)) and not fnmatch.fnmatchcase(f"{PY} -c evil", _pattern_for(cmd))
    assert not marker.exists() and verdict.execution_evidence == ()


def test_the_allowlist_is_matched_against_the_whole_command():
    policies = Policies(enable_shell_gates=True, shell_gate_allowlist=("pytest*",))
    assert command_denial("pytest -q", policies) is None
    assert command_denial("python -m pytest -q", policies) is not None
    assert command_denial("rm -rf / ; pytest", policies) is not None


def test_an_allowlisted_command_runs_on_a_copy_of_the_judged_tree_and_is_recorded(proj):
    cmd = py("import os; print(os.getcwd())")
    s = step(gate("command_output_contains", command=cmd, contains="judge-tree-"), policies=shell_on(f"{PY} -c *"))
    verdict = proj.validate(s, proj.result(evidence(commands=[cmd])))
    assert verdict.valid, verdict.reason
    (made,) = verdict.execution_evidence
    assert (made.step_id, made.command) == ("step-1", tuple(shlex.split(cmd)))
    ran_in = made.stdout.strip()
    assert ran_in != os.path.realpath(proj.root) and not os.path.exists(ran_in)  # a scratch copy, removed after
    root = proj.tmp / "judge-artifacts"
    assert made.artifacts and all((root / path).is_file() for path in made.artifacts)
    assert sorted(Path(path).name for path in made.artifacts) == sorted(ARTIFACT_FILES)
    written = json.loads((root / next(p for p in made.artifacts if p.endswith("evidence.json"))).read_text())
    assert written["evidenceHash"] == made.evidence_hash
    assert "judge ran it" in gate_result(verdict, "command_output_contains").message


def test_each_command_runs_once_even_when_several_gates_name_it(proj):
    cmd = py(f"open({str(proj.tmp / 'count')!r}, 'a').write('x'); print('ok')")
    s = step(gate("command_exit_0", command=cmd), gate("command_output_contains", command=cmd, contains="ok"),
             gate("command_output_regex", command=cmd, pattern="^ok$"), policies=shell_on())
    verdict = proj.validate(s, proj.result(evidence(commands=[cmd])))
    assert verdict.valid, verdict.reason
    assert (proj.tmp / "count").read_text() == "x" and len(verdict.execution_evidence) == 1


def test_an_unsigned_attached_record_does_not_save_the_run(proj):
    # without judge's key an attached record may be forged: judge runs the allowed command itself
    cmd, marker = marking(proj)
    attached = record(proj.tmp, shlex.split(cmd), sign=False)
    marker.unlink()
    verdict = proj.validate(step(gate("command_exit_0", command=cmd), policies=shell_on()),
                            proj.result(evidence(commands=[cmd])), records=(attached,))
    assert verdict.valid and marker.exists()
    assert "judge ran it" in gate_result(verdict, "command_exit_0").message


def test_judge_never_runs_the_commands_the_executor_names(proj):
    cmd, marker = marking(proj)
    s = step(gate("tests_passed"), gate("lint_passed"), policies=shell_on())
    doc = evidence(commands=[cmd], tests=[cmd], passed=True, lint_run=[cmd], lint_passed=True)
    verdict = proj.validate(s, proj.result(doc))
    assert verdict.rule == "unverifiable_claim" and not marker.exists() and verdict.execution_evidence == ()


def test_a_command_gate_that_hangs_is_stopped_at_the_gate_timeout(proj):
    cmd = py("import time; time.sleep(60)")
    verdict = proj.validate(step(gate("command_exit_0", command=cmd), policies=shell_on()),
                            proj.result(evidence(commands=[cmd])), gate_timeout=0.5)
    assert verdict.rule == "gate_failed" and "TIMEOUT" in verdict.reason
    assert verdict.outcome.next_action == "retry"  # the step's code may be what loops: only a retry can tell
    (made,) = verdict.execution_evidence
    assert made.timed_out and made.duration_seconds < 30


def test_a_command_gate_whose_program_is_missing_is_an_environment_failure(proj):
    cmd = "no-such-program-for-judge --version"
    verdict = proj.validate(step(gate("command_exit_0", command=cmd), policies=shell_on()),
                            proj.result(evidence(commands=[cmd])))
    assert verdict.rule == "gate_failed" and "NOT_FOUND" in verdict.reason
    assert verdict.outcome.next_action == "diagnose"


def test_a_command_gates_output_is_bounded(proj):
    cmd = py("print('x' * 100000 + ' done')")
    verdict = proj.validate(step(gate("command_output_contains", command=cmd, contains=" done"), policies=shell_on()),
                            proj.result(evidence(commands=[cmd])), gate_max_output=1000)
    (made,) = verdict.execution_evidence
    assert made.stdout_bytes > 100000 and len(made.stdout) < 1200
    assert verdict.valid, verdict.reason  # the tail of the output is kept


@pytest.mark.parametrize("inside", ["repo/.judge", "repo", "link-to-repo/.judge"])
def test_an_artifacts_root_inside_the_repository_is_refused(proj, inside):
    os.symlink(proj.root, proj.tmp / "link-to-repo")
    cmd, marker = marking(proj)
    verdict = proj.validate(step(gate("command_exit_0", command=cmd), policies=shell_on()),
                            proj.result(evidence(commands=[cmd])), artifacts_root=str(proj.tmp / inside))
    assert not verdict.valid and "inside the judged repository" in verdict.reason
    assert verdict.outcome.next_action == "diagnose"
    assert not marker.exists() and not (proj.root / ".judge").exists()


def test_judging_twice_with_a_command_gate_gives_the_same_verdict(proj, monkeypatch):
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    cmd = shlex.join([PY, "-c", "import sys; sys.path.insert(0, '.'); import src.app"])
    s = step(gate("command_exit_0", command=cmd), policies=shell_on())
    done = proj.result(evidence(commands=[cmd]))
    first = judge.validate(s, done, workspace=proj.workspace(), config=proj.config())
    second = judge.validate(s, done, workspace=proj.workspace(), config=proj.config())
    assert first.valid, first.reason
    assert (second.valid, second.rule) == (first.valid, first.rule), second.reason


# --- no shell, ever ------------------------------------------------------------------------------

METACHARACTERS = {
    "semicolon": ("echo hi; touch pwned", "hi; touch pwned"),
    "substitution": ("echo $(touch pwned)", "$(touch pwned)"),
    "and": ("echo a && touch pwned", "a && touch pwned"),
    "or": ("echo a || touch pwned", "a || touch pwned"),
    "pipe": ("echo a | tee pwned", "a | tee pwned"),
    "backticks": ("echo `touch pwned`", "`touch pwned`"),
    "redirection": ("echo hi > pwned", "hi > pwned"),
    "variable": ("echo $HOME", "$HOME"),
    "glob": ("echo *", "*"),
    "newline": ("echo hi\ntouch pwned", "hi touch pwned"),
}


@pytest.mark.parametrize("cmd, literal", METACHARACTERS.values(), ids=METACHARACTERS.keys())
def test_a_shell_metacharacter_command_never_reaches_a_shell(proj, cmd, literal):
    s = step(gate("command_output_contains", command=cmd, contains=literal), policies=shell_on("*"))
    verdict = proj.validate(s, proj.result(evidence(commands=[cmd])))  # the helper also proves the repo untouched
    (made,) = verdict.execution_evidence
    assert made.command == tuple(shlex.split(cmd))
    assert made.stdout == literal + "\n"
    assert verdict.valid, verdict.reason
    assert not (proj.root / "pwned").exists() and not (Path.cwd() / "pwned").exists()


# --- the seed's warnings and its contradiction ---------------------------------------------------


def warnings(verdict: judge.Verdict) -> list[str]:
    found = [f for f in verdict.findings if f.rule == "policy_warning"]
    assert all((f.severity, f.stage) == ("signal", "contract") for f in found)
    return [f.message for f in found]


def test_warning_tests_evidence_required_with_shell_gates_off(proj):
    tests = py("print('1 passed')")
    s = step(policies={"require_tests_evidence": True, **STAND_IN_TESTS})
    verdict = proj.validate(s, proj.result(evidence(commands=[tests], tests=[tests], passed=True)),
                            records=(record(proj.tmp, shlex.split(tests)),))
    assert verdict.valid, verdict.reason
    assert warnings(verdict) == ["require_tests_evidence is on with shell gates off: only attached execution "
                                 "records can verify tests claims"]


def test_warning_shell_gates_on_with_an_empty_allowlist(proj):
    verdict = proj.validate(step(policies={"enable_shell_gates": True}))
    assert verdict.valid
    assert warnings(verdict) == ["shell gates are on but shell_gate_allowlist is empty: no command can run"]


def test_warning_command_gate_with_shell_gates_off(proj):
    cmd, marker = marking(proj)
    verdict = proj.validate(step(gate("command_exit_0", command=cmd)), proj.result(evidence(commands=[cmd])))
    assert len(warnings(verdict)) == 1 and "1 command gate(s) (command_exit_0) with shell gates off" in \
        warnings(verdict)[0]
    assert "pass only on attached execution records" in warnings(verdict)[0]
    assert not marker.exists()


def test_a_command_gate_with_shell_gates_off_passes_on_an_attached_record(proj):
    # what the warning promises: shell gates off is not a dead end when the orchestrator attaches the run
    cmd = py("print('12 passed')")
    verdict = proj.validate(step(gate("command_output_contains", command=cmd, contains="12 passed")),
                            proj.result(evidence(commands=[cmd])), records=(record(proj.tmp, shlex.split(cmd)),))
    assert verdict.valid, verdict.reason
    assert len(warnings(verdict)) == 1


def test_no_warning_under_the_defaults(proj):
    assert warnings(proj.validate(step(gate("diff_min_lines")))) == []


def test_the_cli_prints_the_warnings_on_stderr(proj, tmp_path, capsys, monkeypatch):
    (tmp_path / "step.json").write_text(json.dumps(step(policies={"enable_shell_gates": True})))
    (tmp_path / "result.json").write_text(json.dumps(proj.result()))
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "validate", "--step", str(tmp_path / "step.json"), "--result",
                             str(tmp_path / "result.json"), "--semantic", "off")
    assert code == 0 and "judge: warning: shell gates are on but shell_gate_allowlist is empty" in err


def contradicted(verdict: judge.Verdict) -> None:
    assert (verdict.valid, verdict.rule) == (False, "policy_contradiction")
    assert "can never pass" in verdict.reason and "--evidence" in verdict.reason
    assert [(s.stage, s.status) for s in verdict.stages] == [("contract", "rejected"), ("semantic", "skipped")]
    assert verdict.outcome.next_action == "diagnose"
    assert verdict.gates == ()


@pytest.mark.parametrize("workspace", [False, True], ids=["no-workspace", "workspace"])
def test_require_tests_evidence_with_shell_gates_off_and_no_record_can_never_pass(proj, workspace):
    s = step(policies={"require_tests_evidence": True})
    contradicted(proj.validate(s, proj.result(evidence(commands=["pytest"], tests=["pytest"], passed=True)),
                               workspace=workspace))


def test_the_contradiction_is_decided_before_the_rules_even_for_a_malformed_patch(proj):
    s = step(policies={"require_tests_evidence": True})
    contradicted(proj.validate(s, proj.result(patch="--- a/x\n+++ b/x\n@@ garbage"), workspace=False))


def test_the_contradiction_comes_from_any_layer(proj):
    contradicted(proj.validate(step(), policies=PolicyLayer(require_tests_evidence=True)))
    contradicted(proj.validate(step(), policy_overrides=PolicyLayer(preset="audit", enable_shell_gates=False)))


def test_strict_preset_without_records_or_a_runnable_command_gate_can_never_pass(proj):
    contradicted(proj.validate(step(policies={"preset": "strict"})))
    contradicted(proj.validate(step(gate("command_exit_0", command="make test"), policies={"preset": "strict"})))


def test_strict_preset_with_an_allowlisted_command_gate_in_a_workspace_is_no_contradiction(proj):
    tests = shlex.join([PY, "-c", "print('3 passed')", "pytest"])  # matches *pytest*
    s = step(gate("command_output_contains", command=tests, contains="3 passed"), policies={"preset": "strict"})
    assert proj.validate(s, proj.result(evidence(commands=[tests]))).rule != "policy_contradiction"
    contradicted(proj.validate(s, proj.result(evidence(commands=[tests])), workspace=False))


def test_a_workspace_without_a_repository_runs_no_command_so_the_contradiction_stands(proj):
    s = step(gate("command_exit_0", command="pytest -q"), policies={"preset": "strict"})
    (proj.tmp / "ledger.jsonl").write_text("", encoding="utf-8")  # a workspace judge can read: a ledger alone
    verdict = judge.validate(s, proj.result(evidence(commands=["pytest -q"])), config=proj.config(),
                             workspace=judge.Workspace(ledger=proj.tmp / "ledger.jsonl"))
    contradicted(verdict)


def test_an_attached_record_lifts_the_contradiction(proj):
    tests = py("print('1 passed')")
    s = step(policies={"require_tests_evidence": True, **STAND_IN_TESTS})
    verdict = proj.validate(s, proj.result(evidence(commands=[tests], tests=[tests], passed=True)),
                            records=(record(proj.tmp, shlex.split(tests)),))
    assert verdict.valid and gate_result(verdict, "tests_passed").source == "policy"


def test_require_tests_evidence_makes_the_tests_fields_required(proj):
    tests = py("print('1 passed')")
    s = step(policies={"require_tests_evidence": True})
    verdict = proj.validate(s, proj.result(evidence(passed=True)), records=(record(proj.tmp, shlex.split(tests)),))
    assert verdict.rule == "evidence_incomplete"
    assert verdict.outcome.missing_fields == ("tests_run", "commands_run")


def test_audit_mode_requires_the_strict_evidence_fields(proj):
    tests = shlex.join([PY, "-c", "print('3 passed')", "pytest"])
    s = step(policies={"preset": "audit", **STAND_IN_TESTS}, evidenceSchema={"criteriaChecklist": {"c1": "validated"}})
    verdict = proj.validate(s, proj.result({"tests_passed": True}), records=(record(proj.tmp, shlex.split(tests)),))
    assert verdict.rule == "evidence_incomplete"
    assert set(verdict.outcome.missing_fields) == {"diff_summary", "tests_run", "commands_run", "changed_files"}
    assert {r.type for r in verdict.gates} == {"tests_passed", "criteria_checklist_complete"}
    complete = evidence(commands=[tests], tests=[tests], passed=True, changed=proj.changed(),
                        criteria_checklist={"c1": True})
    verdict = proj.validate(s, proj.result(complete), records=(record(proj.tmp, shlex.split(tests)),))
    assert verdict.valid, verdict.reason


def test_permissive_mode_requires_nothing(proj):
    verdict = proj.validate(step(policies={"preset": "permissive"}), proj.result({"notes": "done"}))
    assert verdict.valid and verdict.outcome.missing_fields == () and rules(verdict) == []


def test_judge_toml_policies_table_is_the_lowest_layer(tmp_path):
    from judge.config import load_config

    (tmp_path / "judge.toml").write_text('[policies]\nenable_shell_gates = true\nshell_gate_allowlist = ["*pytest*"]\n')
    loaded = load_config(env={}, cwd=tmp_path)
    policies = policies_of(step(), toml=loaded.policies.model_dump(exclude_none=True))
    assert (policies.enable_shell_gates, policies.shell_gate_allowlist) == (True, ("*pytest*",))


def test_a_bad_judge_toml_policy_is_an_input_error_naming_it(tmp_path):
    from judge.config import load_config
    from judge.errors import InputError

    (tmp_path / "judge.toml").write_text('[policies]\nenable_shell_gates = "sometimes"\n')
    with pytest.raises(InputError, match="policies"):
        load_config(env={}, cwd=tmp_path)


def test_a_gate_command_gets_a_clean_environment(proj, monkeypatch):
    # the command is the workspace's code: judge's secrets and settings never reach it
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    monkeypatch.setenv("JUDGE_API_KEY", "judge-secret")
    cmd = shlex.join([PY, "-c", "import os, json; print(json.dumps(sorted(os.environ)))"])
    verdict = proj.validate(step(gate("command_output_contains", command=cmd, contains="PATH"), policies=shell_on()),
                            proj.result(evidence(commands=[cmd])))
    assert verdict.valid, verdict.reason
    seen = json.loads(verdict.execution_evidence[-1].stdout)
    assert "OPENAI_API_KEY" not in seen and "JUDGE_API_KEY" not in seen
    assert "PATH" in seen and "PYTHONDONTWRITEBYTECODE" in seen


def test_a_step_that_asks_nothing_has_the_spec_the_full_reading_gives():
    from judge.contract.plain import plain_step

    data = {"id": "s", "description": "d", "mode": "apply"}
    for step in (plain_step(data), parse_step(data)):
        spec = gate_spec(step, None, None, (("judge.toml", None),), None)
        assert spec == gate_spec(step, None, None, (("judge.toml", PolicyLayer()),), None)  # a layer: the full reading
        assert (spec.gates, spec.required_fields, spec.policies, spec.evidence_schema) == ((), (), Policies(), None)
