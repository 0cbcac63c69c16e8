"""JavaScript cases: changes to the `shipit-cli` Node tool (an environment override,
logger timestamps, a CLI command, package.json edits) and the one-defect variants made from them."""
from __future__ import annotations

from .cases import CaseSet, mk_failure, mk_result, mk_step, with_
from .changes import Change, ChangeMaker
from .corpus.fixtures import F

ENV_OVERRIDE_TEST_JS = F(r'''

test('SHIPIT_BRANCH overrides everything', (t) => {
  process.env.SHIPIT_BRANCH = 'hotfix';
  t.after(() => delete process.env.SHIPIT_BRANCH);
  const dir = tmpProject({ name: 'demo' }, { branch: 'release' });
  assert.strictEqual(loadConfig(dir).branch, 'hotfix');
});
''')


def build(make: ChangeMaker, cases: CaseSet) -> None:
    """Every JavaScript case, in the order that numbers their steps (see CaseSet)."""
    env = _env_override(make, cases)
    _logger_timestamps(make, cases)
    _changelog_command(make, cases)
    _package_json_outside_allowed(make, cases)
    _failure_report(cases, env)


def _env_override(make: ChangeMaker, cases: CaseSet) -> Change:
    env = make.change("js", [
        ("edit", "lib/config.js",
         "  const config = { ...DEFAULTS, ...(pkg.shipit || {}), ...rc, name: pkg.name };\n",
         "  const config = { ...DEFAULTS, ...(pkg.shipit || {}), ...rc, name: pkg.name };\n"
         "  if (process.env.SHIPIT_BRANCH) {\n    config.branch = process.env.SHIPIT_BRANCH;\n  }\n"),
        ("append", "test/config.test.js", ENV_OVERRIDE_TEST_JS),
    ])
    d_env = "Let the SHIPIT_BRANCH environment variable override the configured branch, with a test."
    st, rs = cases.add("valid/js-env-override", mk_step(d_env, allowed=["lib/**", "test/**"]),
                       mk_result(env, "loadConfig honours SHIPIT_BRANCH; added a test."))
    cases.add("missing_files_written/js-empty-list", st, with_(rs, filesWritten=[]),
              "missing_files_written")
    cases.add("scope_outside_allowed/js-test-outside-lib", with_(st, allowedFiles=["lib/**"]), rs,
              "scope_outside_allowed")
    lines = env.patch.split("\n")
    cases.add("malformed_patch/js-truncated-mid-line", st,
              with_(rs, patch="\n".join(lines[:-4]) + "\n" + lines[-4][:12]), "malformed_patch")
    return env


def _logger_timestamps(make: ChangeMaker, cases: CaseSet) -> None:
    ts = make.change("js", [
        ("edit", "lib/logger.js", "function createLogger({ verbose = false, stream = process.stderr } = {}) {\n"
         "  const write = (level, msg) => stream.write(`[${level}] ${msg}\\n`);\n",
         "function createLogger({ verbose = false, stream = process.stderr, timestamps = false } = {}) {\n"
         "  const prefix = () => (timestamps ? `${new Date().toISOString()} ` : '');\n"
         "  const write = (level, msg) => stream.write(`${prefix()}[${level}] ${msg}\\n`);\n"),
    ])
    st, rs = cases.add("valid/js-logger-timestamps",
                       mk_step("Add an opt-in `timestamps` option to createLogger() that prefixes each "
                               "line with an ISO timestamp."),
                       mk_result(ts, "createLogger({ timestamps: true }) prefixes ISO timestamps."))
    cases.add("files_touched_incomplete/js-touched-other-file", st,
              with_(rs, filesTouched=["bin/shipit.js"]), "files_touched_incomplete")


def _changelog_command(make: ChangeMaker, cases: CaseSet) -> None:
    cl = make.change("js", [
        ("edit", "bin/shipit.js", "    case 'version':\n",
         "    case 'changelog': {\n"
         "      const fs = require('fs');\n"
         "      const text = fs.readFileSync(config.changelog, 'utf8');\n"
         "      const latest = text.split(/^## /m)[1];\n"
         "      console.log(latest ? `## ${latest.trim()}` : 'no entries');\n"
         "      return 0;\n    }\n    case 'version':\n"),
        ("edit", "bin/shipit.js", "usage: shipit <version|release>", "usage: shipit <changelog|version|release>"),
    ])
    st, rs = cases.add("valid/js-cli-changelog-command",
                       mk_step("Add a `shipit changelog` command that prints the latest CHANGELOG section.",
                               excluded=["node_modules/", "*.lock"]),
                       mk_result(cl, "Added the changelog command and updated the usage line."))
    cases.add("undeclared_file/js-hidden-package-json", st,
              with_(rs, patch=cl.patch + make.change("js", [
              ("edit", "package.json", '"version": "0.9.2"', '"version": "0.10.0"')]).patch),
              "undeclared_file")


def _package_json_outside_allowed(make: ChangeMaker, cases: CaseSet) -> None:
    pj = make.change("js", [
        ("edit", "package.json", '    "test": "node --test test/"\n',
         '    "test": "node --test test/",\n    "lint": "eslint lib bin test"\n'),
        ("edit", "lib/config.js", "function readJson(file) {", "function readJSON(file) {"),
        ("edit", "lib/config.js", "const pkg = readJson(", "const pkg = readJSON("),
        ("edit", "lib/config.js", "? readJson(rcPath)", "? readJSON(rcPath)"),
    ])
    cases.add("scope_outside_allowed/js-package-json-outside-lib",
              mk_step("Rename readJson to readJSON in lib/config.js.", allowed=["lib/**"]),
              mk_result(pj, "Renamed readJson to readJSON and added a lint script."),
              "scope_outside_allowed")


def _failure_report(cases: CaseSet, env: Change) -> None:
    cases.add("valid/js-failure-report-fix-regression",
              mk_step("Fix regression: the SHIPIT_BRANCH test leaks the variable into other tests.",
                      "fix_regression", apply=env),
              mk_failure("Could not fix: node --test in the sandbox is v16, which has no t.after(); "
                         "the test runner must be upgraded first.", mode="fix_regression",
                         touched=["test/config.test.js"]))
