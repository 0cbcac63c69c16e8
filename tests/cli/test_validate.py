"""`judge validate` on the command line: exit codes, the strict stdout, one-line errors, no tracebacks."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.builders import diff, make_case, run_cli
from judge.cli.main import main

_RUN_MAIN = "import sys; from judge.cli.main import main; sys.exit(main())"


def _write(tmp_path: Path, name: str, value: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def _files(tmp_path: Path, step: object, result: object) -> tuple[str, str]:
    return _write(tmp_path, "step.json", step), _write(tmp_path, "result.json", result)


_run = run_cli


def _subprocess(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run([sys.executable, "-c", _RUN_MAIN, *argv], input=stdin, capture_output=True, timeout=60)
    assert b"Traceback" not in proc.stderr
    return proc


def _assert_usage_error(code: int, out: str, err: str) -> None:
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("judge:")


@pytest.fixture
def valid_files(tmp_path: Path) -> tuple[str, str]:
    return _files(tmp_path, *make_case())


@pytest.fixture
def invalid_files(tmp_path: Path) -> tuple[str, str]:
    return _files(tmp_path, *make_case(diff("hidden_extra_file.diff")))


# --- the real process -------------------------------------------------------------------------


def test_subprocess_valid_exits_0_with_one_strict_json_line(valid_files: tuple[str, str]) -> None:
    step, result = valid_files
    proc = _subprocess("validate", "--step", step, "--result", result)
    assert proc.returncode == 0
    lines = proc.stdout.decode("utf-8").splitlines()
    assert len(lines) == 1
    verdict = json.loads(lines[0])
    assert set(verdict) == {"valid", "reason"}
    assert verdict["valid"] is True
    # with no model, one warning line says the implementation was not reviewed (issue 14)
    assert proc.stderr.decode().splitlines() == [
        "judge: warning: step implementation not verified: no model configured; set --model or JUDGE_MODEL (any "
        "litellm model string) to have it reviewed, or --semantic off to say you do not want that"]


def test_subprocess_invalid_exits_1_naming_the_rule(invalid_files: tuple[str, str]) -> None:
    step, result = invalid_files
    proc = _subprocess("validate", "--step", step, "--result", result)
    assert proc.returncode == 1
    verdict = json.loads(proc.stdout)
    assert verdict["valid"] is False
    assert verdict["reason"].startswith("undeclared_file:")


def test_subprocess_reads_result_from_stdin(tmp_path: Path) -> None:
    step, result = make_case()
    proc = _subprocess("validate", "--step", _write(tmp_path, "s.json", step), "--result", "-",
                       stdin=json.dumps(result).encode())
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["valid"] is True


def test_subprocess_unknown_subcommand_is_one_stderr_line_and_exit_2() -> None:
    proc = _subprocess("frobnicate")
    _assert_usage_error(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def test_installed_console_script_runs(valid_files: tuple[str, str]) -> None:
    script = Path(sys.executable).with_name("judge")
    if not script.exists():
        pytest.skip("no installed `judge` script next to the interpreter")
    step, result = valid_files
    proc = subprocess.run([str(script), "validate", "--step", step, "--result", result], capture_output=True, timeout=60)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["valid"] is True


def test_subprocess_output_is_byte_identical_across_runs(invalid_files: tuple[str, str]) -> None:
    step, result = invalid_files
    first = _subprocess("validate", "--step", step, "--result", result)
    second = _subprocess("validate", "--step", step, "--result", result)
    assert first.stdout == second.stdout
    assert first.stdout


# --- in-process: verdicts -----------------------------------------------------------------------


def test_valid_stdout_has_exactly_valid_and_reason(capsys, valid_files) -> None:
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", valid_files[1])
    assert code == 0
    assert out.endswith("\n") and out.count("\n") == 1
    verdict = json.loads(out)
    assert list(verdict) == ["valid", "reason"]
    assert verdict["valid"] is True and isinstance(verdict["reason"], str) and verdict["reason"]
    assert err.startswith("judge: warning: step implementation not verified: no model configured;")
    assert err.count("\n") == 1


def test_semantic_off_says_nothing_on_stderr(capsys, valid_files) -> None:
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", valid_files[1], "--semantic", "off")
    assert (code, err) == (0, "")
    assert json.loads(out)["reason"].endswith("semantic review off.")


def test_invalid_exits_1(capsys, invalid_files) -> None:
    code, out, _ = _run(capsys, "validate", "--step", invalid_files[0], "--result", invalid_files[1])
    assert code == 1
    assert json.loads(out) == {"valid": False, "reason": json.loads(out)["reason"]}
    assert json.loads(out)["reason"].startswith("undeclared_file:")


def test_same_input_twice_gives_byte_identical_stdout(capsys, invalid_files) -> None:
    argv = ("validate", "--step", invalid_files[0], "--result", invalid_files[1])
    first = _run(capsys, *argv)
    second = _run(capsys, *argv)
    assert first == second


@pytest.mark.parametrize(
    ("value", "type_name"), [([1, 2], "array"), ("a string", "string"), (42, "integer"), (None, "null")]
)
def test_result_json_that_is_not_an_object_is_schema_invalid_not_usage(capsys, tmp_path, value, type_name) -> None:
    step, _ = make_case()
    step_file, result_file = _files(tmp_path, step, value)
    code, out, err = _run(capsys, "validate", "--step", step_file, "--result", result_file)
    assert code == 1
    verdict = json.loads(out)
    assert verdict["valid"] is False
    assert verdict["reason"].startswith("schema_invalid:")
    assert "$.result" in verdict["reason"] and type_name in verdict["reason"]
    assert err == ""


def test_step_json_that_is_an_array_is_schema_invalid(capsys, tmp_path) -> None:
    _, result = make_case()
    step_file, result_file = _files(tmp_path, [], result)
    code, out, _ = _run(capsys, "validate", "--step", step_file, "--result", result_file)
    assert code == 1
    assert json.loads(out)["reason"].startswith("schema_invalid:")
    assert "$.step" in json.loads(out)["reason"]


def test_schema_breach_reason_has_json_path(capsys, tmp_path) -> None:
    step_file, result_file = _files(tmp_path, *make_case(success="yes"))
    code, out, _ = _run(capsys, "validate", "--step", step_file, "--result", result_file)
    assert code == 1
    assert "$.result.success" in json.loads(out)["reason"]


# --- in-process: stdin --------------------------------------------------------------------------


def test_step_from_stdin(capsys, monkeypatch, tmp_path) -> None:
    step, result = make_case()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(step).encode())))
    code, out, _ = _run(capsys, "validate", "--step", "-", "--result", _write(tmp_path, "r.json", result))
    assert code == 0
    assert json.loads(out)["valid"] is True


def test_result_from_stdin(capsys, monkeypatch, tmp_path) -> None:
    step, result = make_case(diff("hidden_extra_file.diff"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(result).encode())))
    code, out, _ = _run(capsys, "validate", "--step", _write(tmp_path, "s.json", step), "--result", "-")
    assert code == 1
    assert json.loads(out)["reason"].startswith("undeclared_file:")


def test_both_stdin_is_usage_error(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{}")))
    code, out, err = _run(capsys, "validate", "--step", "-", "--result", "-")
    _assert_usage_error(code, out, err)
    assert "stdin" in err


def test_empty_stdin_is_usage_error(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    step, _ = make_case()
    code, out, err = _run(capsys, "validate", "--step", _write(tmp_path, "s.json", step), "--result", "-")
    _assert_usage_error(code, out, err)
    assert "empty" in err


# --- in-process: unreadable input ---------------------------------------------------------------


def test_missing_file_is_usage_error(capsys, tmp_path, valid_files) -> None:
    missing = str(tmp_path / "nope.json")
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", missing)
    _assert_usage_error(code, out, err)
    assert "--result" in err and "no such file" in err


def test_directory_is_usage_error(capsys, tmp_path, valid_files) -> None:
    code, out, err = _run(capsys, "validate", "--step", str(tmp_path), "--result", valid_files[1])
    _assert_usage_error(code, out, err)
    assert "--step" in err and "directory" in err


def test_a_well_formed_failure_report_is_valid_and_exits_3(capsys, tmp_path) -> None:
    """Valid as a report, but the step was not done: exit 3, so a shell or CI step cannot read it as done."""
    step, result = make_case("", success=False, filesWritten=[], filesTouched=[],
                             summary="parse_port() is generated from ports.yaml, which this step may not edit")
    step_file, result_file = _files(tmp_path, step, result)
    code, out, err = _run(capsys, "validate", "--step", step_file, "--result", result_file)
    assert code == 3, err
    verdict = json.loads(out)
    assert verdict["valid"] is True and "not done" in verdict["reason"]


def test_an_invalid_failure_report_is_exit_1(capsys, tmp_path) -> None:
    step, result = make_case(success=False, summary="failed")  # carries a patch: not a clean failure report
    step_file, result_file = _files(tmp_path, step, result)
    code, out, _ = _run(capsys, "validate", "--step", step_file, "--result", result_file)
    assert code == 1 and json.loads(out)["valid"] is False


def test_an_unknown_flag_points_at_the_commands_own_help(capsys, valid_files) -> None:
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", valid_files[1], "--bogus")
    _assert_usage_error(code, out, err)
    assert "--bogus" in err and "`judge validate --help`" in err


def test_a_fifo_is_refused_without_waiting_for_a_writer(capsys, tmp_path, valid_files) -> None:
    """Opening a FIFO for reading blocks until someone writes; judge must refuse it at once instead."""
    fifo = tmp_path / "step.fifo"
    os.mkfifo(fifo)
    code, out, err = _run(capsys, "validate", "--step", str(fifo), "--result", valid_files[1])
    _assert_usage_error(code, out, err)
    assert "--step" in err and "FIFO" in err and "regular file" in err


def test_a_device_is_refused(capsys, valid_files) -> None:
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", "/dev/zero")
    _assert_usage_error(code, out, err)
    assert "--result" in err and "character device" in err


def test_a_file_too_large_is_refused_before_it_is_read(capsys, tmp_path, valid_files) -> None:
    """A sparse 300 MiB file: refused from its size, so no 300 MiB is ever read or held."""
    import tracemalloc

    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(300 * 1024 * 1024)
    tracemalloc.start()
    try:
        code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", str(huge))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    _assert_usage_error(code, out, err)
    assert "--result" in err and "300 MiB" in err and "larger than 256 MiB" in err
    assert peak < 64 * 1024 * 1024, peak


def test_a_key_given_twice_is_refused_naming_the_key(capsys, tmp_path, valid_files) -> None:
    step, result = make_case()
    twice = tmp_path / "r.json"
    twice.write_text(json.dumps(result)[:-1] + ', "success": false}', encoding="utf-8")
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", str(twice))
    _assert_usage_error(code, out, err)
    assert '"success" appears twice' in err and "--result" in err


def test_non_utf8_file_is_usage_error(capsys, tmp_path, valid_files) -> None:
    bad = tmp_path / "latin1.json"
    bad.write_bytes('{"mode": "apply", "summary": "caf\u00e9"}'.encode("latin-1"))
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", str(bad))
    _assert_usage_error(code, out, err)
    assert "UTF-8" in err


def test_utf8_bom_is_accepted(capsys, tmp_path) -> None:
    step, result = make_case()
    step_file = tmp_path / "bom.json"
    step_file.write_bytes(b"\xef\xbb\xbf" + json.dumps(step).encode())
    code, out, _ = _run(capsys, "validate", "--step", str(step_file), "--result", _write(tmp_path, "r.json", result))
    assert code == 0


@pytest.mark.parametrize("content", [b"", b"   \n\t\n"])
def test_empty_file_is_usage_error(capsys, tmp_path, valid_files, content) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(content)
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", str(empty))
    _assert_usage_error(code, out, err)
    assert "empty" in err


def test_invalid_json_names_line_and_column(capsys, tmp_path, valid_files) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "mode": "apply",\n  "success": tru\n}\n', encoding="utf-8")
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", str(broken))
    _assert_usage_error(code, out, err)
    assert "line 3 column 14" in err


def test_trailing_garbage_after_json_is_usage_error(capsys, tmp_path, valid_files) -> None:
    broken = tmp_path / "two.json"
    broken.write_text('{"mode": "apply"} {"x": 1}', encoding="utf-8")
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", str(broken))
    _assert_usage_error(code, out, err)
    assert "line 1 column 19" in err


def test_deeply_nested_json_is_usage_error_not_crash(capsys, tmp_path, valid_files) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", str(deep))
    _assert_usage_error(code, out, err)


# --- in-process: usage ---------------------------------------------------------------------------


def test_unknown_subcommand_is_usage_error(capsys) -> None:
    code, out, err = _run(capsys, "frobnicate")
    _assert_usage_error(code, out, err)


def test_missing_step_is_usage_error(capsys, valid_files) -> None:
    code, out, err = _run(capsys, "validate", "--result", valid_files[1])
    _assert_usage_error(code, out, err)
    assert "--step" in err


def test_no_subcommand_is_usage_error(capsys) -> None:
    code, out, err = _run(capsys)
    _assert_usage_error(code, out, err)


def test_unknown_option_is_usage_error(capsys, valid_files) -> None:
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", valid_files[1], "--bogus")
    _assert_usage_error(code, out, err)


# --- --explain -----------------------------------------------------------------------------------


def test_explain_keeps_stdout_strict_and_writes_stages_and_findings_to_stderr(capsys, invalid_files) -> None:
    code, out, err = _run(capsys, "validate", "--step", invalid_files[0], "--result", invalid_files[1], "--explain")
    assert code == 1
    assert out.count("\n") == 1
    assert set(json.loads(out)) == {"valid", "reason"}
    for stage in ("contract", "rules", "semantic"):
        assert f"stage {stage}" in err
    assert "[reject] undeclared_file:" in err


def test_explain_does_not_change_stdout(capsys, invalid_files) -> None:
    argv = ("validate", "--step", invalid_files[0], "--result", invalid_files[1])
    _, plain, _ = _run(capsys, *argv)
    _, explained, _ = _run(capsys, *argv, "--explain")
    assert plain == explained


def test_explain_on_valid_says_semantic_skipped(capsys, valid_files) -> None:
    code, out, err = _run(capsys, "validate", "--step", valid_files[0], "--result", valid_files[1], "--explain")
    assert code == 0
    assert json.loads(out)["valid"] is True
    assert "VALID" in err
    assert "skipped" in err


# --- output encoding -----------------------------------------------------------------------------


def test_lone_surrogate_in_step_mode_still_prints_a_json_verdict(capsys, tmp_path, valid_files) -> None:
    """JSON allows "\\ud800"; the schema error echoes the bad mode, and stdout must still be one JSON line."""
    step_file = tmp_path / "surrogate.json"
    step_file.write_text('{"id": "s", "description": "d", "mode": "\\ud800"}', encoding="ascii")
    proc = _subprocess("validate", "--step", str(step_file), "--result", valid_files[1])
    assert proc.returncode == 1
    verdict = json.loads(proc.stdout)
    assert set(verdict) == {"valid", "reason"} and verdict["reason"].startswith("schema_invalid:")


def test_ascii_stdout_still_gets_the_verdict(tmp_path) -> None:
    """A reason naming a non-ASCII file must not crash a process whose stdout encoding is ASCII."""
    step, result = make_case(diff("quoted_paths.diff"), filesWritten=["docs/read me.md"], filesTouched=["docs/read me.md"])
    step_file, result_file = _files(tmp_path, step, result)
    proc = subprocess.run([sys.executable, "-c", _RUN_MAIN, "validate", "--step", step_file, "--result", result_file],
                          capture_output=True, timeout=60, env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    assert proc.returncode == 1
    verdict = json.loads(proc.stdout)
    assert verdict["reason"].startswith("undeclared_file:") and "caf\u00e9.md" in verdict["reason"]


def test_closed_stdin_is_usage_error(capsys, monkeypatch, valid_files) -> None:
    """`judge validate --step - ... <&-`: Python sets sys.stdin to None; that is unreadable input, exit 2."""
    monkeypatch.setattr(sys, "stdin", None)
    try:
        code, out, err = _run(capsys, "validate", "--step", "-", "--result", valid_files[1])
    except AttributeError as exc:  # what judge does today: a crash that the console script shows as a traceback
        pytest.fail(f"closed stdin crashed judge: {exc!r}")
    _assert_usage_error(code, out, err)


def test_nan_is_not_json(tmp_path: Path, capsys) -> None:
    step = tmp_path / "step.json"
    step.write_text('{"id": "s", "description": "d", "budget": NaN}')
    result = _write(tmp_path, "result.json", make_case()[1])
    code, out, err = _run(capsys, "validate", "--step", str(step), "--result", result)
    assert code == 2 and out == ""
    assert "NaN is not a JSON value" in err and len(err.splitlines()) == 1


def test_version_prints_judges_version_and_exits_0(capsys) -> None:
    from judge.cli.main import main
    from judge.version import __version__

    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"judge {__version__}\n"


def test_top_level_help_lists_each_command_once_with_examples_and_exit_codes(capsys) -> None:
    from judge.cli.main import main

    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    out = capsys.readouterr().out
    assert stopped.value.code == 0
    assert "eval-merge" not in out and "eval-compare" not in out  # argparse's spelling of `eval merge`, not a command
    assert "examples:" in out and "exit codes: 0 valid" in out
    listed = [line.split()[0] for line in out.split("positional arguments:")[1].split("options:")[0].splitlines()[2:]
              if line.startswith("    ") and not line.startswith("     ")]
    assert listed[:2] == ["validate", "eval"] and "drive" in listed


@pytest.mark.parametrize("command, extra, module", [("serve", "serve", "uvicorn"), ("mcp", "mcp", "mcp")])
def test_a_command_whose_extra_is_missing_says_what_to_install(capsys, monkeypatch, command, extra, module) -> None:
    import importlib.util

    from judge.cli.main import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == module else real(name, *a))
    assert main([command]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"pip install 'judge[{extra}]'" in err and "internal error" not in err
