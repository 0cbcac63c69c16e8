"""Rules 3 and 5: undeclared_file, file_not_in_patch, files_touched_incomplete."""

import judge
from helpers.builders import diff, make_case


def test_hidden_extra_file_is_undeclared():
    verdict = judge.validate(*make_case(diff("hidden_extra_file.diff")))
    assert verdict.rule == "undeclared_file"
    assert "src/settings.py" in verdict.reason and "filesWritten" in verdict.reason


def test_all_files_declared_passes():
    files = ["src/app.py", "src/settings.py"]
    assert judge.validate(*make_case(diff("hidden_extra_file.diff"), filesWritten=files, filesTouched=files)).valid


def test_declared_paths_are_normalised():
    verdict = judge.validate(*make_case(filesWritten=["./src/app.py"], filesTouched=["src//app.py"]))
    assert verdict.valid, verdict.reason


def test_rename_is_declared_by_either_name():
    for declared in (["src/utils.py"], ["src/helpers.py"], ["src/helpers.py", "src/utils.py"]):
        verdict = judge.validate(*make_case(diff("rename_only.diff"), filesWritten=declared, filesTouched=declared))
        assert verdict.valid, (declared, verdict.reason)


def test_deleted_file_must_be_declared_by_its_old_name():
    verdict = judge.validate(*make_case(diff("deleted_file.diff"), filesWritten=["src/app.py"]))
    assert verdict.rule == "undeclared_file"
    assert "src/helpers.py" in verdict.reason


def test_quoted_paths_are_declared_by_their_real_names():
    files = ["docs/café.md", "docs/read me.md"]
    assert judge.validate(*make_case(diff("quoted_paths.diff"), filesWritten=files, filesTouched=files)).valid


def test_file_written_but_absent_from_patch_is_rejected():
    files = ["src/app.py", "src/cli.py"]
    verdict = judge.validate(*make_case(filesWritten=files, filesTouched=files))
    assert verdict.rule == "file_not_in_patch"
    assert "src/cli.py" in verdict.reason


def test_missing_files_touched_is_rejected():
    verdict = judge.validate(*make_case(filesTouched=...))
    assert verdict.rule == "files_touched_incomplete"


def test_files_touched_missing_a_written_file_is_rejected():
    verdict = judge.validate(*make_case(filesTouched=["tests/test_app.py"]))
    assert verdict.rule == "files_touched_incomplete"
    assert "src/app.py" in verdict.reason


def test_files_touched_may_list_files_only_read():
    assert judge.validate(*make_case(filesTouched=["src/app.py", "src/other.py", "README.md"])).valid


def test_git_quoted_declared_path_matches_its_real_name():
    files = ['"docs/caf\\303\\251.md"', "docs/read me.md"]
    assert judge.validate(*make_case(diff("quoted_paths.diff"), filesWritten=files, filesTouched=files)).valid


def test_patch_sent_with_crlf_line_ends_reads_like_the_original():
    verdict = judge.validate(*make_case(diff("hidden_extra_file.diff").replace("\n", "\r\n")))
    assert verdict.rule == "undeclared_file"
    assert "src/settings.py but" in verdict.reason
