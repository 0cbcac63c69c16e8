"""gates_lowered: the change loosens what the project checks: a threshold lowered or removed, lint rules turned
off, coverage exclusions added, CI configuration edited when the step does not ask for CI work."""

from __future__ import annotations

import re
from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.caseless import Caseless
from judge.patch.model import FileChange
from judge.patch.paths import file_name, file_suffix
from judge.rules.phrasing import names
from judge.rules.signals._finding import signal
from judge.rules.signals._lines import judged_work
from judge.findings import Finding

__all__ = ["gates_lowered"]


_CI_FILES = lazy_compile(r"^(?:\.github/workflows/.+|\.gitlab-ci\.ya?ml|\.circleci/.+|azure-pipelines\.ya?ml|"
                         r"(?:.+/)?Jenkinsfile|\.travis\.ya?ml|bitbucket-pipelines\.ya?ml|\.buildkite/.+|\.drone\.ya?ml|"
                         r"(?:.+/)?tox\.ini|(?:.+/)?noxfile\.py|\.pre-commit-config\.ya?ml)$")
_ASKS_FOR_CI = Caseless(r"\b(?:ci|continuous integration|workflows?|github actions|pipelines?|gitlab|circleci|"
                        r"jenkins(?:file)?|travis|buildkite|tox|nox(?:file)?|pre-commit)\b")
# A gate's threshold and its number. Coverage and the like get looser as the number falls; the keys of
# _HIGHER_IS_LOWER (line length, complexity, warnings allowed) as it rises.
_THRESHOLD = lazy_compile(
    r"(?P<key>fail[_-]under|cov-fail-under|min(?:imum)?[_-]coverage|coverage[_-]?threshold|check-coverage|"
    r"max[_-]line[_-]length|line[_-]length|max[_-]complexity|max[_-]warnings|"
    r"\bbranches|\blines|\bfunctions|\bstatements)[\"']?\s*(?:[:=]\s*|\s+)(?P<number>\d+(?:\.\d+)?)\b",
    re.IGNORECASE,
)
_HIGHER_IS_LOWER = frozenset({"max-line-length", "line-length", "max-complexity", "max-warnings"})
_COVERAGE_ONLY = frozenset({"branches", "lines", "functions", "statements"})  # generic words: coverage configs only
_COVERAGE_CONFIG = lazy_compile(r"(?:^|/)(?:jest|vitest|vite|karma)\.config\.\w+$|(?:^|/)\.(?:nyc|c8)rc(?:\.\w+)?$|"
                                r"(?:^|/)package\.json$|(?:^|/)\.?codecov\.ya?ml$|(?:^|/)karma\.conf\.\w+$")
_CONFIG_SUFFIXES = frozenset({".toml", ".cfg", ".ini", ".yml", ".yaml", ".json", ".jsonc", ".json5"})
_CONFIG_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile", "Jenkinsfile", "pylintrc", "karma.conf.js"})
_LINT_CONFIG = lazy_compile(r"(?:^|/)(?:\.eslintrc(?:\.\w+)?|eslint\.config\.\w+|\.flake8|setup\.cfg|tox\.ini|"
                            r"pyproject\.toml|\.?ruff\.toml|\.pylintrc|pylintrc|\.golangci\.ya?ml|\.rubocop\.ya?ml|"
                            r"tslint\.json|biome\.jsonc?|\.jshintrc)$")
# A lint rule turned off: ESLint's "off"/0, RuboCop's Enabled: false, or an ignore/disable list entry.
_RULE_OFF = lazy_compile(r"""^\s*["']?[@\w/-]+["']?\s*:\s*(?:["']off["']|0)\s*,?\s*$|\bEnabled:\s*false\b""")
_IGNORE_KEY = lazy_compile(r"^\s*(?:extend-)?(?:ignore|per-file-ignores|disable)\s*[=:]", re.IGNORECASE)
_LINT_CODE = lazy_compile(r"\b[A-Z]{1,4}\d{2,4}\b|\b[a-z]+(?:-[a-z]+)+\b")


def _raw(change: FileChange, sign: str) -> Iterator[str]:
    return (line for hunk in change.hunks for line in (hunk.added if sign == "+" else hunk.removed))


# The first look for _THRESHOLD, on the lower-cased line: every key holds one of these words.
_MAYBE_THRESHOLD = lazy_compile(r"under|coverage|length|complexity|warnings|branches|lines|functions|statements")


def _thresholds(lines: Iterator[str], coverage_config: bool) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {}
    for line in lines:
        if not _MAYBE_THRESHOLD.search(line.lower()):
            continue
        for found in _THRESHOLD.finditer(line):
            key = found.group("key").lower().replace("_", "-")
            key = "fail-under" if key == "cov-fail-under" else key
            if key in _COVERAGE_ONLY and not coverage_config:
                continue
            values.setdefault(key, []).append(float(found.group("number")))
    return values


def _lowered_thresholds(change: FileChange) -> list[str]:
    """Each threshold the change loosens or removes, as ``key old -> new``."""
    if not _is_config(change.path):
        return []
    coverage_config = bool(_COVERAGE_CONFIG.search(change.path))
    old = _thresholds(_raw(change, "-"), coverage_config)
    new = _thresholds(_raw(change, "+"), coverage_config)
    lowered = []
    for key, before in old.items():
        after = new.get(key)
        if not after:
            lowered.append(f"{key} removed")
            continue
        strictest = min if key in _HIGHER_IS_LOWER else max
        loosest = max if key in _HIGHER_IS_LOWER else min
        was, now = strictest(before), loosest(after)
        if (now > was) if key in _HIGHER_IS_LOWER else (now < was):
            lowered.append(f"{key} {_number(was)} -> {_number(now)}")
    return lowered


def _is_config(path: str) -> bool:
    """Configuration, not code or prose: where a threshold is a gate rather than a value the program uses."""
    name = file_name(path)
    return (file_suffix(name).lower() in _CONFIG_SUFFIXES or name.startswith(".") or ".config." in name
            or name in _CONFIG_NAMES or bool(_CI_FILES.match(path)))


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def _rules_off(change: FileChange) -> int:
    """How many more lint rules the change turns off than it turns back on."""
    if not _LINT_CONFIG.search(change.path):
        return 0

    def count(sign: str) -> int:
        total = 0
        for line in _raw(change, sign):
            if _RULE_OFF.search(line):
                total += 1
            elif _IGNORE_KEY.search(line):
                total += len(_LINT_CODE.findall(line.split("=", 1)[-1].split(":", 1)[-1])) or 1
        return total
    return max(count("+") - count("-"), 0)


# Coverage exclusions: files or lines a coverage run stops counting. coverage.py's `omit`, `exclude_lines`,
# `exclude_also` (.coveragerc, setup.cfg/tox.ini [coverage:*], pyproject [tool.coverage.*]); Jest's
# `coveragePathIgnorePatterns`; nyc's and c8's `exclude` (.nycrc, .c8rc, or their key in package.json).
_COVERAGE_FILES = lazy_compile(r"(?:^|/)(?:\.coveragerc|setup\.cfg|tox\.ini|pyproject\.toml|package\.json|"
                               r"(?:jest|vitest|vite)\.config\.\w+|\.(?:nyc|c8)rc(?:\.\w+)?)$")
_EXCLUSION_KEY = lazy_compile(r"""^\s*(?:\{\s*)?["']?(?:omit|exclude_lines|exclude_also|coveragePathIgnorePatterns|"""
                              r"""(?P<generic>exclude))["']?\s*[=:]""")
_ANY_KEY = lazy_compile(r"""^\s*["']?[\w.-]+["']?\s*[=:]|^\s*\[""")
_COVERAGE_CONTEXT = lazy_compile(r"coverage|nyc|c8", re.IGNORECASE)
_ENTRY = lazy_compile(r"""["'][^"']+["']""")


def _coverage_exclusions(change: FileChange) -> int:
    """How many more coverage exclusions (keys or their entries) the change adds than it removes."""
    if not _COVERAGE_FILES.search(change.path) or change.is_deleted:
        return 0
    coverage_file = bool(re.search(r"\.(?:coveragerc|nycrc|c8rc)", change.path))
    ini = change.path.endswith((".coveragerc", ".cfg", ".ini"))  # INI keys start their line; values go on indented
    net = 0
    for hunk in change.hunks:
        key, generic_ok = False, coverage_file
        for raw in hunk.body:
            line = raw[1:]
            if raw[0] == "\\":
                continue
            generic_ok = generic_ok or bool(_COVERAGE_CONTEXT.search(line))
            found = _EXCLUSION_KEY.match(line)
            if found and not (ini and line[:1].isspace()):
                key = not found.group("generic") or generic_ok
                entries = len(_ENTRY.findall(line[found.end():])) or int(bool(line[found.end():].strip(" [{")))
            elif _ANY_KEY.match(line) and not (ini and line[:1].isspace()):
                key, entries = False, 0
            else:
                entries = int(line.strip() not in ("", "[", "]", "],", "{", "}"))
            if key and raw[0] in "+-":
                net += entries if raw[0] == "+" else -entries
    return max(net, 0)


def gates_lowered(ctx: StepContext) -> Iterator[Finding]:
    work = judged_work(ctx)
    if not work:
        return
    seen: list[str] = []
    files: list[str] = []
    asks_for_ci = bool(_ASKS_FOR_CI.search(ctx.step.description))
    for change in work.files:
        what = [f"threshold {item}" for item in _lowered_thresholds(change)]
        off = _rules_off(change)
        what += [f"{off} lint rule(s) turned off"] if off else []
        excluded = _coverage_exclusions(change)
        what += [f"{excluded} coverage exclusion(s) added"] if excluded else []
        if not asks_for_ci and any(_CI_FILES.match(path) for path in change.paths):
            what.append("CI configuration edited")
        if what:
            seen.append(f"{change.path} ({'; '.join(what)})")
            files.append(change.path)
    if seen:
        yield signal(ids.GATES_LOWERED, f"the change loosens what the project checks: {names(seen)}. Check that the "
                     "step asks for it: a gate lowered to let a change through hides the failure it was for.", files)
