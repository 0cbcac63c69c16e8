"""Rust cases: changes to the `tally` crate (parser and stats features and their fixes,
version bumps beside an excluded Cargo.lock, a new module in a file without a final newline,
a 2000+ line regenerated table, a write to ~/.cargo) and the one-defect variants made from them."""
from __future__ import annotations

import random

from .cases import CaseSet, mk_failure, mk_result, mk_step, patch_result, with_, with_extra_file
from .changes import Change, ChangeMaker
from .corpus.fixtures import F
from .corpus.rs_tally import RS_FILES
from .patchtext import change_counts, hunks_of, to_context_only

MEDIAN_STEP = "Add Summary::median(values) to src/stats.rs with a unit test."
VERSION_BUMP_STEP = "Bump the crate version to 0.3.0 in Cargo.toml (CI regenerates Cargo.lock)."

HUMAN_NUMBER_RS = F(r'''
/// Formats a number with a metric suffix: 950 -> "950", 1234 -> "1.2k",
/// 1234567 -> "1.2M".
pub fn human_number(value: f64) -> String {
    let abs = value.abs();
    let (scaled, suffix) = if abs >= 1e9 {
        (value / 1e9, "G")
    } else if abs >= 1e6 {
        (value / 1e6, "M")
    } else if abs >= 1e3 {
        (value / 1e3, "k")
    } else {
        return format!("{}", value);
    };
    format!("{:.1}{}", scaled, suffix)
}

#[cfg(test)]
mod tests {
    use super::human_number;

    #[test]
    fn suffixes() {
        assert_eq!(human_number(950.0), "950");
        assert_eq!(human_number(1234.0), "1.2k");
        assert_eq!(human_number(1234567.0), "1.2M");
        assert_eq!(human_number(-2500.0), "-2.5k");
    }
}
''')


def build(make: ChangeMaker, cases: CaseSet) -> None:
    """Every Rust case, in the order that numbers their steps (see CaseSet)."""
    _parser_skips_comments(make, cases)
    med = _median(make, cases)
    _median_fix_regressions(make, cases, med)
    _version_bump_lock_excluded(make, cases)
    _new_module_without_newline_at_eof(make, cases)
    _failure_with_empty_summary(cases)
    _large_regenerated_table(make, cases)
    _doc_comment_instead_of_semicolons(make, cases)
    _absolute_home_cargo_config(make, cases)


def _parser_skips_comments(make: ChangeMaker, cases: CaseSet) -> None:
    com = make.change("rs", [
        ("edit", "src/parser.rs",
         "    if trimmed.is_empty() {\n        return Err(ParseError::Empty);\n    }\n",
         "    if trimmed.is_empty() {\n        return Err(ParseError::Empty);\n    }\n"
         "    if trimmed.starts_with('#') {\n        return Ok(Vec::new());\n    }\n"),
        ("edit", "src/parser.rs", "/// Splits a line on commas or whitespace and parses every field as f64.\n",
         "/// Splits a line on commas or whitespace and parses every field as f64.\n"
         "/// Lines starting with `#` are comments and yield no fields.\n"),
        ("edit", "src/parser.rs", "    #[test]\n    fn reports_bad_field() {",
         "    #[test]\n    fn skips_comments() {\n"
         "        assert_eq!(parse_line(\"# header\").unwrap(), Vec::<f64>::new());\n    }\n\n"
         "    #[test]\n    fn reports_bad_field() {"),
    ])
    d_com = "Make parse_line() skip comment lines starting with '#' instead of reporting an error."
    st, rs = cases.add("valid/rs-parser-skip-comments", mk_step(d_com, allowed=["src/**"]),
                       mk_result(com, "parse_line returns no fields for '#' lines; added skips_comments."))
    cases.add("invalid_mode/rs-Apply-capitalised", st, with_(rs, mode="Apply"), "invalid_mode")
    cases.add("missing_patch/rs-newlines-only", st, with_(rs, patch="\n\n"), "missing_patch")
    cases.add("malformed_patch/rs-context-only-parser", st, with_(rs, patch=to_context_only(com.patch)),
              "malformed_patch")  # git apply: a hunk without + or - lines is corrupt
    lines = com.patch.split("\n")
    s_, e_ = hunks_of(com.patch)[-1]
    cut = "\n".join(lines[:s_ + (e_ - s_) // 2]) + "\n"
    cases.add("malformed_patch/rs-truncated-last-hunk", st, with_(rs, patch=cut), "malformed_patch")


def _median(make: ChangeMaker, cases: CaseSet) -> Change:
    med = make.change("rs", [
        ("edit", "src/stats.rs", "    pub fn mean(&self) -> Option<f64> {",
         "    /// Median of values; None for an empty slice.\n"
         "    pub fn median(values: &[f64]) -> Option<f64> {\n"
         "        if values.is_empty() {\n            return None;\n        }\n"
         "        let mut sorted = values.to_vec();\n"
         "        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());\n"
         "        Some(sorted[sorted.len() / 2])\n    }\n\n"
         "    pub fn mean(&self) -> Option<f64> {"),
        ("edit", "src/stats.rs", "        assert_eq!(s.mean(), Some(2.0));\n    }\n",
         "        assert_eq!(s.mean(), Some(2.0));\n    }\n\n"
         "    #[test]\n    fn median_of_odd_count() {\n"
         "        assert_eq!(Summary::median(&[5.0, 1.0, 3.0]), Some(3.0));\n"
         "        assert_eq!(Summary::median(&[]), None);\n    }\n"),
    ])
    cases.add("valid/rs-apply-median", mk_step(MEDIAN_STEP, allowed=["src/stats.rs"]),
              mk_result(med, "Added Summary::median and median_of_odd_count."))
    return med


def _median_fix_regressions(make: ChangeMaker, cases: CaseSet, med: Change) -> None:
    fix = make.followup(med, [
        ("edit", "src/stats.rs", "        Some(sorted[sorted.len() / 2])\n",
         "        let mid = sorted.len() / 2;\n"
         "        if sorted.len() % 2 == 0 {\n"
         "            Some((sorted[mid - 1] + sorted[mid]) / 2.0)\n"
         "        } else {\n            Some(sorted[mid])\n        }\n"),
        ("edit", "src/stats.rs", "        assert_eq!(Summary::median(&[]), None);\n",
         "        assert_eq!(Summary::median(&[]), None);\n"
         "        assert_eq!(Summary::median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));\n"),
    ])
    d_fix = ("Fix regression: median() returns the upper middle value for even-length input; "
             "it must average the two middle values.")
    st, rs = cases.add("valid/rs-fix-regression-even-median",
                       mk_step(d_fix, "fix_regression", apply=med),
                       mk_result(fix, "median() averages the two middle values for even counts.",
                                 "fix_regression"))
    cases.add("mode_mismatch/rs-fix-step-apply-result", st, with_(rs, mode="apply"), "mode_mismatch")
    rev = make.reverse(med)
    cases.add("reversal/rs-exact-reverse-median", mk_step(d_fix, "fix_regression", apply=med),
              mk_result(rev, "Removed median(); callers can sort themselves.", "fix_regression"),
              "reversal")


def _version_bump_lock_excluded(make: ChangeMaker, cases: CaseSet) -> None:
    bump = make.change("rs", [("edit", "Cargo.toml", 'version = "0.2.4"', 'version = "0.3.0"')])
    cases.add("valid/rs-version-bump-lock-excluded",
              mk_step(VERSION_BUMP_STEP, excluded=["*.lock", "target/"]),
              mk_result(bump, "Cargo.toml version is 0.3.0."))
    bump2 = make.change("rs", [
        ("edit", "Cargo.toml", 'version = "0.2.4"', 'version = "0.3.0"'),
        ("edit", "Cargo.lock", 'name = "tally"\nversion = "0.2.4"', 'name = "tally"\nversion = "0.3.0"'),
    ])
    cases.add("scope_excluded/rs-cargo-lock",
              mk_step(VERSION_BUMP_STEP, excluded=["*.lock", "target/"]),
              mk_result(bump2, "Bumped to 0.3.0 in Cargo.toml and Cargo.lock."), "scope_excluded")


def _new_module_without_newline_at_eof(make: ChangeMaker, cases: CaseSet) -> None:
    """src/lib.rs has no final newline, so its hunk ends with the no-newline marker."""
    fmtmod = make.change("rs", [
        ("edit", "src/lib.rs", "pub mod stats;", "pub mod format;\npub mod stats;\n"),
        ("write", "src/format.rs", HUMAN_NUMBER_RS),
    ])
    assert "\\ No newline at end of file" in fmtmod.patch
    st, rs = cases.add("valid/rs-new-module-lib-no-newline",
                       mk_step("Add a format module with human_number() (1234567 -> \"1.2M\") and "
                               "register it in src/lib.rs."),
                       mk_result(fmtmod, "Added src/format.rs and `pub mod format;` in lib.rs."))
    cases.add("file_not_in_patch/rs-claims-main", st,
              with_extra_file(rs, "src/main.rs"), "file_not_in_patch")


def _failure_with_empty_summary(cases: CaseSet) -> None:
    cases.add("failure_without_summary/rs-summary-empty", mk_step(MEDIAN_STEP),
              mk_failure(""), "failure_without_summary", project="rs")


def _width_tables() -> tuple[str, str]:
    """A seeded lookup table of 1150 ranges, as tuples (old) and as Range structs (new)."""
    rnd = random.Random(7)
    ranges, lo = [], 0x1100
    for _ in range(1150):
        lo += rnd.randint(1, 40)
        hi = lo + rnd.randint(0, 12)
        ranges.append((lo, hi, rnd.choice((0, 2))))
        lo = hi
    old = ("// Generated by tools/gen_width.py -- do not edit.\n"
           "pub static WIDTHS: &[(u32, u32, u8)] = &[\n"
           + "".join(f"    (0x{a:05X}, 0x{z:05X}, {w}),\n" for a, z, w in ranges) + "];\n")
    new = ("// Generated by tools/gen_width.py -- do not edit.\n"
           "use crate::width::Range;\n\n"
           "pub static WIDTHS: &[Range] = &[\n"
           + "".join(f"    Range {{ lo: 0x{a:05x}, hi: 0x{z:05x}, width: {w} }},\n"
                     for a, z, w in ranges) + "];\n")
    return old, new


def _large_regenerated_table(make: ChangeMaker, cases: CaseSet) -> None:
    """Over 2000 changed lines: a generated table rewritten in a new format."""
    old, new = _width_tables()
    big = make.change("rs", [("write", "src/width_table.rs", new)],
                      setup=[("write", "src/width_table.rs", old)])
    assert sum(change_counts(big.patch)) > 2000
    cases.add("valid/rs-large-regenerated-table",
              mk_step("Regenerate src/width_table.rs with tools/gen_width.py now that it emits "
                      "Range structs instead of tuples.", allowed=["src/width_table.rs"]),
              mk_result(big, "Regenerated the width table (1150 ranges) in the Range struct format."))


def _doc_comment_instead_of_semicolons(make: ChangeMaker, cases: CaseSet) -> None:
    sup = make.change("rs", [
        ("edit", "src/parser.rs", "/// Splits a line on commas or whitespace and parses every field as f64.\n",
         "/// Splits a line on commas, semicolons or whitespace and parses every\n"
         "/// field as f64.\n"),
        ("edit", "src/parser.rs", "        .filter(|s| !s.is_empty())\n",
         "        // empty fields come from repeated separators\n        .filter(|s| !s.is_empty())\n"),
    ])
    cases.add("superficial_only/rs-doc-comment-semicolons",
              mk_step("Make parse_line() also accept ';' as a field separator (European CSV)."),
              mk_result(sup, "parse_line now splits on semicolons too."), "superficial_only")


def _absolute_home_cargo_config(make: ChangeMaker, cases: CaseSet) -> None:
    """An absolute path outside the repository: a plain diff with labels."""
    cargo_cfg_old = "[build]\njobs = 2\n"
    cargo_cfg_new = "[build]\njobs = 2\nrustflags = [\"-C\", \"target-cpu=native\"]\n\n[net]\ngit-fetch-with-cli = true\n"
    patch = make.labelled_diff([
        ("a/Cargo.toml", "b/Cargo.toml", RS_FILES["Cargo.toml"],
         RS_FILES["Cargo.toml"].replace(
             "[dev-dependencies]", "[profile.release]\nlto = true\n\n[dev-dependencies]")),
        ("/home/ci/.cargo/config.toml", "/home/ci/.cargo/config.toml", cargo_cfg_old, cargo_cfg_new),
    ])
    files = ["Cargo.toml", "/home/ci/.cargo/config.toml"]
    cases.add("unsafe_path/rs-absolute-home-cargo-config",
              mk_step("Speed up release builds of tally."),
              patch_result(patch, files, "Enabled LTO and native CPU flags for CI builds."),
              "unsafe_path", tags=["plain-diff"])
