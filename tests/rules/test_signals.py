"""judge/rules/signals/: tell-tale shapes of a change are recorded as signals naming the file and line, never a
rejection; honest look-alikes (a string that mentions `# noqa`, a narrow `except`, a called helper) raise none
(issue 10, item 6)."""

from __future__ import annotations

import pytest

import judge
from helpers.builders import diff, make_case
from judge.llm.stage import _trusted_signals
from helpers.scenario_repos import Repo, git_env  # noqa: F401  (git_env: autouse fixture, a clean git environment)


def _new_file(path: str, text: str) -> str:
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n{body}"


def _edit(path: str, before: str, after: str, context: str = "", start: int = 10) -> str:
    """One hunk at line ``start``: ``context`` lines, then ``before`` replaced by ``after``."""
    ctx, old, new = context.splitlines(), before.splitlines(), after.splitlines()
    body = "".join(f" {line}\n" for line in ctx) + "".join(f"-{line}\n" for line in old) + \
        "".join(f"+{line}\n" for line in new)
    return (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -{start},{len(ctx) + len(old)} +{start},{len(ctx) + len(new)} @@\n{body}")


def _judged(*parts: str, description: str | None = None) -> judge.Verdict:
    patch = "".join(parts)
    files = list(dict.fromkeys(line.split(" b/", 1)[1] for line in patch.splitlines() if line.startswith("diff --git")))
    step = {"description": description} if description else None
    return judge.validate(*make_case(patch, filesWritten=files, filesTouched=files, step=step))


def _signal(verdict: judge.Verdict, rule: str) -> judge.Finding | None:
    assert verdict.valid, verdict.reason  # a signal never rejects
    found = [f for f in verdict.findings if f.rule == rule]
    assert all(f.severity == "signal" for f in found)
    return found[0] if found else None


def _quote_free(finding: judge.Finding, *executor_words: str) -> None:
    """The prompt's trusted part gets the rule id alone; the message quotes no executor code either."""
    assert _trusted_signals((finding,)) == [finding.rule]
    for words in executor_words:
        assert words not in finding.message


# --------------------------------------------------------------------------- only_new_scripts


def test_a_change_that_only_adds_top_level_scripts_is_signalled():
    verdict = _judged(_new_file("reproduce_issue.py", "from app import parse_port\nprint(parse_port('0'))"),
                      _new_file("scripts/debug.js", "console.log(require('../src/app').parsePort('0'));"))
    signal = _signal(verdict, "only_new_scripts")
    assert signal and signal.files == ("reproduce_issue.py", "scripts/debug.js")
    assert "reproduce_issue.py, scripts/debug.js" in signal.message and "changes no existing file" in signal.message
    _quote_free(signal, "parse_port")


@pytest.mark.parametrize("parts, description", [
    ((_new_file("src/ports.py", "def parse_port(v):\n    return int(v)"),), None),  # a new module, not a script
    ((diff("python_edit.diff"), _new_file("reproduce_issue.py", "print(1)")), None),  # beside a real fix
    ((_new_file("scripts/migrate.py", "print(1)"),), "Add scripts/migrate.py that moves the data"),  # asked for
])
def test_new_modules_scripts_beside_a_fix_and_asked_for_scripts_raise_no_signal(parts, description):
    assert _signal(_judged(*parts, description=description), "only_new_scripts") is None


# --------------------------------------------------------------------------- only_test_files

TEST_EDIT = _edit("tests/test_app.py", "    assert parse_port('80') == 80", "    assert parse_port('80') == 80\n    assert True")


@pytest.mark.parametrize("path", ["tests/test_app.py", "src/app.test.ts", "src/__tests__/app.spec.js"])
def test_a_change_to_tests_only_for_a_step_about_code_is_signalled(path):
    verdict = _judged(_edit(path, "  check(80);", "  check(80);\n  check(81);"))
    signal = _signal(verdict, "only_test_files")
    assert signal and signal.files == (path,) and "only test files" in signal.message
    _quote_free(signal)


@pytest.mark.parametrize("parts, description", [
    ((TEST_EDIT,), "Add a test for parse_port() rejecting port 0"),
    ((TEST_EDIT, diff("python_edit.diff")), None),
    ((TEST_EDIT,), "Update test_app.py for the new port range"),  # names the file it changes
])
def test_test_work_the_step_asks_for_or_beside_code_raises_no_signal(parts, description):
    assert _signal(_judged(*parts, description=description), "only_test_files") is None


# --------------------------------------------------------------------------- checks_suppressed


@pytest.mark.parametrize("path, line, label", [
    ("src/app.py", "    port = int(value)  # type: ignore[arg-type]", "# type: ignore"),
    ("src/app.py", "    port = int(value)  #type:ignore", "# type: ignore"),
    ("src/app.py", "    content_type: str = value  #  type:\tignore", "# type: ignore"),  # an annotation beside it
    ("src/app.py", "    port = int(value)  # noqa: E501", "# noqa"),
    ("src/app.py", "    if debug:  # pragma: no cover", "# pragma: no cover"),
    ("src/app.py", "    # pylint: disable=broad-except", "# pylint: disable"),
    ("src/app.ts", "  // @ts-ignore", "@ts-ignore"),
    ("src/app.ts", "  // @ts-expect-error the types are wrong", "@ts-expect-error"),
    ("src/app.js", "  // eslint-disable-next-line no-unused-vars", "eslint-disable"),
    ("src/app.js", "  /* istanbul ignore next */", "istanbul/c8 ignore"),
    ("pkg/app.go", "\tx := f() //nolint:errcheck", "nolint"),
    ("lib/app.rb", "  x = y # rubocop:disable Style/Foo", "rubocop:disable"),
])
def test_an_added_check_suppression_is_signalled_with_file_line_and_kind(path, line, label):
    verdict = _judged(_edit(path, "  x = 1", f"  x = 1\n{line}"))
    signal = _signal(verdict, "checks_suppressed")
    assert signal and signal.files == (path,)
    assert f"{path} (line 11)" in signal.message and label in signal.message
    _quote_free(signal, "arg-type", "broad-except", "the types are wrong", "no-unused-vars", "errcheck", "Style/Foo")


@pytest.mark.parametrize("path, before, after, context", [
    # inside a string, the words are data
    ("src/app.py", "", '    hint = "add # noqa to silence flake8"', ""),
    ("src/app.ts", "", "  const hint = '// @ts-ignore is banned';", ""),
    # a triple-quoted string opened in the context
    ("src/app.py", "", "    # type: ignore is explained here", '    doc = """\n'),
    # kept on an edited line: nothing new is silenced
    ("src/app.py", "    port = int(v)  # type: ignore", "    port = int(value)  # type: ignore", ""),
    # prose documents the directives
    ("docs/lint.md", "", "Use `# noqa` sparingly.", ""),
])
def test_suppression_words_in_strings_prose_or_kept_from_before_raise_no_signal(path, before, after, context):
    assert _signal(_judged(_edit(path, before, after, context)), "checks_suppressed") is None


# --------------------------------------------------------------------------- gates_lowered


@pytest.mark.parametrize("path, before, after, seen", [
    ("pyproject.toml", "fail_under = 90", "fail_under = 80", "threshold fail-under 90 -> 80"),
    ("setup.cfg", "addopts = --cov=app --cov-fail-under=85", "addopts = --cov=app --cov-fail-under=70",
     "threshold fail-under 85 -> 70"),
    ("jest.config.js", "      lines: 80,", "      lines: 50,", "threshold lines 80 -> 50"),
    (".flake8", "max-line-length = 88", "max-line-length = 120", "threshold max-line-length 88 -> 120"),
    (".coveragerc", "fail_under = 95", "", "threshold fail-under removed"),
    (".eslintrc.json", '    "no-unused-vars": "error",', '    "no-unused-vars": "off",', "1 lint rule(s) turned off"),
    ("ruff.toml", 'ignore = ["E501"]', 'ignore = ["E501", "F401", "B008"]', "2 lint rule(s) turned off"),
    (".github/workflows/ci.yml", "      - run: pytest", "      - run: pytest || true", "CI configuration edited"),
    (".gitlab-ci.yml", "  script: make test", "  script: make test-fast", "CI configuration edited"),
])
def test_a_loosened_gate_or_a_ci_edit_is_signalled(path, before, after, seen):
    signal = _signal(_judged(_edit(path, before, after)), "gates_lowered")
    assert signal and signal.files == (path,) and f"{path} ({seen})" in signal.message
    _quote_free(signal, "pytest || true", "make test-fast")


@pytest.mark.parametrize("path, before, after, description", [
    ("pyproject.toml", "fail_under = 80", "fail_under = 90", None),  # raised, not lowered
    ("src/wrap.py", "    line_length = 80", "    line_length = 100", None),  # a value the program uses
    ("README.md", "Coverage must stay above --cov-fail-under=90.", "Coverage must stay above --cov-fail-under=80.", None),
    ("src/chart.ts", "  lines: 80,", "  lines: 50,", None),  # code, not configuration
    ("config/chart.yaml", "  lines: 80", "  lines: 50", None),  # not a coverage configuration
    (".github/workflows/ci.yml", "        python: ['3.11']", "        python: ['3.11', '3.12']",
     "Add Python 3.12 to the CI matrix"),
])
def test_raised_gates_program_values_prose_and_asked_for_ci_work_raise_no_signal(path, before, after, description):
    assert _signal(_judged(_edit(path, before, after), description=description), "gates_lowered") is None


# --------------------------------------------------------------------------- exception_swallowed


@pytest.mark.parametrize("path, added, context", [
    ("src/app.py", "    try:\n        port = int(value)\n    except Exception:\n        pass", ""),
    ("src/app.py", "    try:\n        port = int(value)\n    except:\n        ...", ""),
    ("src/app.py", "    try:\n        port = int(value)\n    except BaseException: pass", ""),
    ("src/app.py", "        except (ValueError, Exception) as exc:  # keep going\n            continue", "    for v in values:\n        try:\n            port = int(v)\n"),
    ("src/app.py", "    with contextlib.suppress(Exception):\n        port = int(value)", ""),
    ("src/app.ts", "  try {\n    port = parse(value);\n  } catch {}", ""),
    ("src/app.ts", "  try {\n    port = parse(value);\n  } catch (e) {\n    // ignore\n  }", ""),
    ("src/app.js", "  fetchUser(id).catch(() => {});", ""),
    ("src/App.java", "    try { run(); } catch (Exception e) {}", ""),
])
def test_catching_every_exception_and_doing_nothing_is_signalled(path, added, context):
    signal = _signal(_judged(_edit(path, "", added, context)), "exception_swallowed")
    assert signal and signal.files == (path,) and f"{path} (line " in signal.message
    _quote_free(signal, "keep going", "ignore")


def test_the_signal_points_at_the_empty_catch_not_at_the_start_of_the_added_lines():
    added = "  const a = 1;\n  const b = 2;\n  try {\n    port = parse(value);\n  } catch (e) {\n  }"
    signal = _signal(_judged(_edit("src/app.ts", "", added)), "exception_swallowed")
    assert signal and "src/app.ts (line 14)" in signal.message


@pytest.mark.parametrize("path", ["dist/app.js", "src/app.min.js", "types/app.d.ts"])
def test_generated_files_raise_no_signal(path):
    added = "function helper() {\n  try { run(); } catch (e) {}\n}"
    verdict = _judged(_edit(path, "", added))
    assert _signal(verdict, "exception_swallowed") is None and _signal(verdict, "unused_function") is None


@pytest.mark.parametrize("path, added", [
    ("src/app.py", "    try:\n        port = cache[value]\n    except KeyError:\n        pass"),  # a narrow except
    ("src/app.py", "    try:\n        port = int(value)\n    except Exception as exc:\n        log.warning(exc)\n        raise"),
    ("src/app.py", '    msg = "except Exception: pass"'),
    ("src/app.ts", "  try {\n    port = parse(value);\n  } catch (e) {\n    console.error(e);\n  }"),
    ("src/app.js", "  fetchUser(id).catch(handleError);"),
    ("src/App.java", "    try { run(); } catch (InterruptedException e) {}"),
])
def test_narrow_or_handled_exceptions_raise_no_signal(path, added):
    assert _signal(_judged(_edit(path, "", added)), "exception_swallowed") is None


# --------------------------------------------------------------------------- unused_function

PY_UNUSED = "def _retry(fn, attempts=3):\n    for _ in range(attempts):\n        fn()"


@pytest.mark.parametrize("path, added", [
    ("src/app.py", PY_UNUSED),
    ("src/app.py", "class Client:\n    async def fetch_with_retry(self, url):\n        return await self.get(url)"),
    ("src/app.ts", "function retryFetch(url: string): Promise<Response> {\n  return fetch(url);\n}"),
    ("src/app.ts", "const retryFetch = async (url: string) => {\n  return fetch(url);\n};"),
    ("src/app.ts", "class Client {\n  private retryFetch(url: string): Promise<void> {\n    return this.get(url);\n  }\n}"),
    ("pkg/app.go", "func retryFetch(url string) error {\n\treturn nil\n}"),
])
def test_a_new_function_nothing_in_the_patch_names_is_signalled(path, added):
    signal = _signal(_judged(_edit(path, "", added)), "unused_function")
    assert signal and signal.files == (path,) and "1 new function(s)" in signal.message and f"{path} (line 1" in signal.message
    _quote_free(signal, "retry", "fetch_with_retry", "retryFetch")


@pytest.mark.parametrize("path, added", [
    ("src/app.py", PY_UNUSED + "\n\nPORT = _retry(lambda: 80)"),  # called
    ("src/app.ts", "export function retryFetch(url: string) {\n  return fetch(url);\n}"),  # exported
    ("tests/test_app.py", "def test_port():\n    assert parse_port('80') == 80"),  # a test
    ("src/app.py", "class Port:\n    def __repr__(self):\n        return 'Port'"),  # a dunder
    ("src/app.py", "@app.route('/health')\ndef health():\n    return 'ok'"),  # registered by its decorator
    ("src/app.py", "class Case(TestCase):\n    def setUp(self):\n        self.port = 80"),  # called by its framework
    ("pkg/app.go", "func RetryFetch(url string) error {\n\treturn nil\n}"),  # exported by its capital
    ("src/lib.rs", "    #[test]\n    fn parses_ports() {\n        assert_eq!(1, 1);\n    }"),  # a Rust test
    ("src/app.ts", "  if (port > 0) {\n    return port;\n  }"),  # control flow, not a method
])
def test_called_exported_test_conventional_and_decorated_functions_raise_no_signal(path, added):
    assert _signal(_judged(_edit(path, "", added)), "unused_function") is None


def test_a_function_named_in_another_file_of_the_patch_is_used():
    verdict = _judged(_edit("src/retry.py", "", PY_UNUSED), _edit("src/app.py", "", "from retry import _retry"))
    assert _signal(verdict, "unused_function") is None


# --------------------------------------------------------------------------- all of them


def test_signals_are_shown_by_explain_and_never_decide(capsys, tmp_path):
    import json

    from helpers.builders import run_cli

    step, result = make_case(_new_file("reproduce_issue.py", "try:\n    import app\nexcept Exception:\n    pass"),
                             filesWritten=["reproduce_issue.py"], filesTouched=["reproduce_issue.py"])
    (tmp_path / "step.json").write_text(json.dumps(step))
    (tmp_path / "result.json").write_text(json.dumps(result))
    code, out, err = run_cli(capsys, "validate", "--step", str(tmp_path / "step.json"), "--result",
                             str(tmp_path / "result.json"), "--explain")
    assert code == 0 and json.loads(out)["valid"] is True
    assert "[signal] only_new_scripts:" in err and "[signal] exception_swallowed:" in err


def test_with_a_workspace_the_signals_judge_gits_diff_of_the_work_tree(tmp_path):
    repo = Repo(tmp_path / "repo", {"src/app.py": "def parse_port(value):\n    return int(value)\n"})
    repo.write({"src/app.py": "def parse_port(value):\n    return int(value)  # type: ignore\n"})
    step, result = make_case(repo.diff(), filesWritten=["src/app.py"], filesTouched=["src/app.py"])
    verdict = judge.validate(step, result, workspace=judge.Workspace(repo=str(repo.root), base=repo.base))
    signal = _signal(verdict, "checks_suppressed")
    assert verdict.evidence_method == "file_changes"
    assert signal and "src/app.py (line 2)" in signal.message


@pytest.mark.parametrize("added, used", [
    # the name only inside longer names, on several lines: no mention
    (PY_UNUSED + "\n\nRETRIES = _retry_count + _retry2\nlimit = max_retry(_retry_)", False),
    # a call on the definition's own line after it, and a mention on a line of its own
    ("def _retry(fn): return _retry(fn)", True),
    (PY_UNUSED + "\n\n# see _retry", True),
])
def test_a_function_is_used_when_its_name_is_a_token_of_the_patch_twice(added, used):
    assert (_signal(_judged(_edit("src/app.py", "", added)), "unused_function") is None) is used


def test_a_branch_head_on_a_continued_line_or_a_while_loop_is_read():
    from judge.patch.parse import parse_patch
    from judge.rules.signals._conditions import branch_heads

    hunk = parse_patch(_edit("src/app.py", "x = 1", "while busy:\n    wait()\nelif ready:\n    go()")).files[0].hunks[0]
    assert branch_heads(hunk) == "while busy:\nelif ready:"
    plain = parse_patch(_edit("src/app.py", "x = 1", "x = 2")).files[0].hunks[0]
    assert branch_heads(plain) == ""
