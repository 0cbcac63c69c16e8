"""The deterministic path must not import the LLM stack: litellm alone costs seconds of cold start.

Each check runs in a fresh interpreter. Stub `litellm`, `openai` and `tenacity` packages are put
first on sys.path, so an import of any of them shows up in sys.modules even where the real package
is not installed (and where it is, the cheap stub is what gets imported).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers.builders import diff, make_case

HEAVY = ("litellm", "openai", "tenacity", "pygit2", "tree_sitter")  # pygit2: only a run with a workspace reads a repository; tree_sitter: only JS/TS code


@pytest.fixture
def stubs(tmp_path: Path) -> Path:
    root = tmp_path / "stubs"
    for name in HEAVY:
        package = root / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(f"IMPORTED = {name!r}\n", encoding="utf-8")
    return root


def _run_fresh(stubs: Path, body: str, tmp_path: Path) -> dict:
    script = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, {stubs!r})
        {body}
        print(json.dumps({{"loaded": sorted(m for m in {heavy!r} if m in sys.modules), "answer": answer}}))
        """
    ).format(stubs=str(stubs), body=textwrap.indent(textwrap.dedent(body), "").strip(), heavy=HEAVY)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _case_literal(*patch: str) -> str:
    return repr(make_case(*patch))


def test_stubs_are_seen_when_imported(stubs: Path, tmp_path: Path) -> None:
    # The check itself can fail: importing a stub is recorded.
    report = _run_fresh(stubs, "import litellm\nanswer = litellm.IMPORTED", tmp_path)
    assert report == {"loaded": ["litellm"], "answer": "litellm"}


def test_import_judge_loads_no_llm_module(stubs: Path, tmp_path: Path) -> None:
    report = _run_fresh(stubs, "import judge\nanswer = judge.__version__", tmp_path)
    assert report["loaded"] == []


def test_deterministic_rejection_loads_no_llm_module(stubs: Path, tmp_path: Path) -> None:
    body = f"""
    import judge
    step, result = {_case_literal(diff("hidden_extra_file.diff"))}
    answer = judge.validate(step, result).rule
    """
    report = _run_fresh(stubs, body, tmp_path)
    assert report == {"loaded": [], "answer": "undeclared_file"}


def test_valid_case_with_semantic_skipped_loads_no_llm_module(stubs: Path, tmp_path: Path) -> None:
    body = f"""
    import judge
    step, result = {_case_literal()}
    verdict = judge.validate(step, result)
    answer = [verdict.valid, verdict.semantic.status]
    """
    report = _run_fresh(stubs, body, tmp_path)
    assert report == {"loaded": [], "answer": [True, "skipped"]}


def test_cli_main_loads_no_llm_module(stubs: Path, tmp_path: Path) -> None:
    step, result = make_case()
    (tmp_path / "step.json").write_text(json.dumps(step), encoding="utf-8")
    (tmp_path / "result.json").write_text(json.dumps(result), encoding="utf-8")
    body = """
    import contextlib, io
    from judge.cli.main import main
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(["validate", "--step", "step.json", "--result", "result.json", "--explain"])
    answer = [code, json.loads(out.getvalue())["valid"]]
    """
    report = _run_fresh(stubs, body, tmp_path)
    assert report == {"loaded": [], "answer": [0, True]}


def test_cli_eval_loads_no_llm_module(stubs: Path, tmp_path: Path) -> None:
    step, result = make_case()
    case = {"id": "ok", "step": step, "result": result, "expected": {"valid": True}}
    (tmp_path / "set.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    body = """
    import contextlib, io
    from judge.cli.main import main
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["eval", "set.jsonl", "--out", "metrics.json"])
    answer = code
    """
    report = _run_fresh(stubs, body, tmp_path)
    assert report == {"loaded": [], "answer": 0}


# --- cold start (the issue: a deterministic reject and `judge --help` load only what they use) ---------------------
#
# Wall-clock times are bench/bench_cold_start.py's: this machine is shared, so the tests hold what makes the time,
# the modules a run loads, read from sys.modules in a fresh interpreter.

# Loaded only when a run needs them: the semantic stage, the gate stage and its families, a workspace, JS/TS trees,
# the schema validator (a breach's wording), the test-weakening detectors (a change to a test file), and pydantic
# with every model of judge's: a plain step, result and configuration are read without them (judge.contract.plain,
# judge.config_plain), and the Verdict's models are built only when the full verdict is wanted (--explain).
_NOT_FOR_A_PLAIN_REJECT = ("litellm", "openai", "tenacity", "pygit2", "tree_sitter", "jsonschema", "judge.llm",
                           "judge.workspace.facts", "judge.workspace.git", "judge.workspace.evidence_file",
                           "judge.code.weakening", "judge.code.tests", "judge.contract.approvals",
                           "judge.contract.gate_parameters", "tomllib")
_PYDANTIC = ("pydantic", "pydantic_core", "annotated_types", "judge.verdict", "judge.config", "judge.contract.models",
             "judge.contract.gates", "judge.contract.schema", "judge.gates.templates")
_GATE_STAGE = ("judge.gates.stage", "judge.gates.prepare", "judge.gates.registry", "judge.gates.commands",
               "judge.gates.files", "judge.gates.changes", "judge.gates.claims", "judge.gates.truth")


def _modules_after(body: str, tmp_path: Path) -> tuple[list[str], object]:
    """(every module loaded, ``answer``) after ``body`` runs in a fresh interpreter in ``tmp_path``."""
    script = "import json, sys\n" + textwrap.dedent(body).strip() + "\nprint(json.dumps([sorted(sys.modules), answer]))\n"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYDANTIC_DISABLE_PLUGINS")}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    modules, answer = json.loads(proc.stdout.strip().splitlines()[-1])
    return modules, answer


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if any(m == name or m.startswith(name + ".") for m in modules)]


def _write_case(tmp_path: Path, step: dict, result: dict) -> None:
    (tmp_path / "step.json").write_text(json.dumps(step), encoding="utf-8")
    (tmp_path / "result.json").write_text(json.dumps(result), encoding="utf-8")


_CLI_VALIDATE = """
import contextlib, io
from judge.cli.main import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(["validate", "--step", "step.json", "--result", "result.json"])
answer = [code, json.loads(out.getvalue())]
"""


def test_cli_deterministic_reject_loads_only_what_it_uses(tmp_path: Path) -> None:
    _write_case(tmp_path, *make_case(diff("hidden_extra_file.diff")))
    modules, (code, verdict) = _modules_after(_CLI_VALIDATE, tmp_path)
    assert code == 1 and verdict["reason"].startswith("undeclared_file")
    assert _loaded(modules, _NOT_FOR_A_PLAIN_REJECT + _GATE_STAGE + _PYDANTIC) == []
    assert "judge.rules.declarations" in modules  # the rules did run, each imported when it ran


def test_cli_plain_run_with_settings_loads_no_pydantic(tmp_path: Path) -> None:
    # A valid step (every rule passes, the semantic stage decides it is skipped) with a model and plain settings
    # from a file, a variable and flags: all read without pydantic.
    _write_case(tmp_path, *make_case())
    (tmp_path / "judge.toml").write_text('samples = 3\napi-base = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
    body = """
    import contextlib, io, os
    os.environ["JUDGE_MODEL"] = "openai/local"
    from judge.cli.main import main
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(["validate", "--step", "step.json", "--result", "result.json", "--semantic", "off",
                     "--temperature", "0.5", "--artifacts", "runs"])
    answer = [code, json.loads(out.getvalue())["reason"]]
    """
    modules, (code, reason) = _modules_after(body, tmp_path)
    assert code == 0 and reason.startswith("valid:") and "semantic review off" in reason
    assert _loaded(modules, _NOT_FOR_A_PLAIN_REJECT + _GATE_STAGE + _PYDANTIC) == ["tomllib"]  # the file was read


def test_cli_explain_builds_the_full_verdict(tmp_path: Path) -> None:
    # The other side: --explain prints the full verdict, and a number given as text is JudgeConfig's to read.
    _write_case(tmp_path, *make_case(diff("hidden_extra_file.diff")))
    body = """
    import contextlib, io, os
    os.environ["JUDGE_SAMPLES"] = "2"
    from judge.cli.main import main
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["validate", "--step", "step.json", "--result", "result.json", "--explain"])
    answer = [code, json.loads(out.getvalue())["reason"], err.getvalue()]
    """
    modules, (code, reason, explained) = _modules_after(body, tmp_path)
    assert code == 1 and reason.startswith("undeclared_file") and "undeclared_file" in explained
    assert {"pydantic", "judge.verdict", "judge.config"} <= set(modules)


def test_cli_broken_contract_words_the_breach_from_the_schema(tmp_path: Path) -> None:
    # The other side of the line above: jsonschema comes in exactly when a contract is broken, to word it.
    step, result = make_case()
    del result["success"]
    _write_case(tmp_path, step, result)
    modules, (code, verdict) = _modules_after(_CLI_VALIDATE, tmp_path)
    assert code == 1 and verdict["reason"].startswith("schema_invalid")
    assert "jsonschema" in modules and not any(m.startswith("judge.rules.") and m != "judge.rules.registry"
                                               for m in modules if m.count(".") == 2 and "signals" not in m)


def test_cli_help_loads_no_pydantic_and_no_judging_module(tmp_path: Path) -> None:
    body = """
    import contextlib, io
    from judge.cli.main import main
    with contextlib.redirect_stdout(io.StringIO()) as out:
        try:
            main(["--help"])
        except SystemExit as exc:
            code = exc.code
    answer = [code, "validate" in out.getvalue()]
    """
    modules, answer = _modules_after(body, tmp_path)
    assert answer == [0, True]
    assert _loaded(modules, ("pydantic", "pydantic_core", "unidiff", "jsonschema", "judge.config", "judge.contract",
                             "judge.pipeline", "judge.rules", "judge.verdict", "judge.rule_ids")) == []


def test_cli_command_help_still_lists_every_flag(tmp_path: Path) -> None:
    # `judge --help` builds only the commands' names; the command being run is built in full.
    body = """
    import contextlib, io
    from judge.cli.main import main
    with contextlib.redirect_stdout(io.StringIO()) as out:
        try:
            main(["validate", "--help"])
        except SystemExit as exc:
            code = exc.code
    answer = [code, out.getvalue()]
    """
    _, (code, text) = _modules_after(body, tmp_path)
    assert code == 0 and all(flag in text for flag in ("--step", "--result", "--repo", "--model", "--record"))


def test_importing_the_pipeline_loads_no_rule_module(tmp_path: Path) -> None:
    body = """
    import judge.pipeline
    from judge.rules.registry import RULES
    answer = [rule.__name__ for rule in RULES]
    """
    modules, names = _modules_after(body, tmp_path)
    rule_modules = [m for m in modules if m.startswith("judge.rules.") and m != "judge.rules.registry"]
    assert rule_modules == [] and names[:2] == ["invalid_mode", "mode_mismatch"] and len(names) > 30


def test_no_module_compiles_a_pattern_at_import(tmp_path: Path) -> None:
    # Every rule module (and all they import) loaded: no module holds a compiled re.Pattern of its own (unidiff's,
    # imported by name, are unidiff's cost), at top level or in a table, and no lazy pattern has been compiled. A new
    # module-level re.compile shows up here: use lazy_compile.
    body = """
    import re
    from importlib import import_module
    from judge.lazy_pattern import LazyPattern
    from judge.rules.registry import RULES
    for rule in RULES:
        import_module(rule.module)
    import judge.pipeline, judge.cli.main

    def values(module):
        for value in vars(module).values():
            yield value
            if isinstance(value, dict):
                yield from value.values()
            elif isinstance(value, (tuple, list)):
                yield from value
    theirs = {id(value) for name, module in list(sys.modules.items()) if not name.startswith("judge")
              for value in vars(module).values() if isinstance(value, re.Pattern)}
    compiled, used = [], []
    for name, module in sorted(sys.modules.items()):
        if name.startswith("judge"):
            for value in values(module):
                if isinstance(value, re.Pattern) and id(value) not in theirs:
                    compiled.append(f"{name}: {value.pattern[:40]}")
                elif isinstance(value, LazyPattern) and "_compiled" in vars(value) and name != "judge.patch.caseless":
                    used.append(f"{name}: {value.pattern[:40]}")  # (Caseless checks each pattern as it is made)
    answer = [compiled, used]
    """
    _, (compiled, used) = _modules_after(body, tmp_path)
    assert compiled == [] and used == []


def test_lazy_pattern_answers_as_the_compiled_pattern() -> None:
    import re

    from judge.lazy_pattern import lazy_compile

    lazy, eager = lazy_compile(r"(?P<word>b\w+)", re.IGNORECASE), re.compile(r"(?P<word>b\w+)", re.IGNORECASE)
    assert lazy.pattern == eager.pattern and "_compiled" not in vars(lazy)  # the source, without compiling
    assert lazy.search("a Bc").group("word") == eager.search("a Bc").group("word") == "Bc"
    assert (lazy.flags, lazy.groups, lazy.groupindex) == (eager.flags, eager.groups, eager.groupindex)
    assert lazy.sub("x", "ab bc") == eager.sub("x", "ab bc") and lazy.findall("b1 b2") == ["b1", "b2"]
    assert lazy.compiled() is lazy.compiled()  # compiled once
    with pytest.raises(AttributeError):
        lazy.__wrapped__  # noqa: B018  # a protocol probe answers for the lazy object, and compiles nothing
