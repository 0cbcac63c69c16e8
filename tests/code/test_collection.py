"""judge/code/collection.py: what a change takes out of test collection, per route, with the honest look-alike of each
(which must give no certain narrowing), read from hunks alone and from whole texts."""

from __future__ import annotations

import pytest

from helpers.builders import text_diff
from helpers.collection_configs import CONFTEST, PACKAGE, PYPROJECT
from judge.code.collection import Narrowing, is_collection_config, narrowings
from judge.patch.parse import parse_patch

PYTEST_INI = "[pytest]\naddopts =\n    --strict-markers\n    -ra\ntestpaths = tests\nxfail_strict = true\n"
SETUP_CFG = "[metadata]\nname = app\n\n[options]\npackages = find:\n\n[tool:pytest]\npython_files = test_*.py\n" \
            "testpaths = tests\n\n[flake8]\nmax-line-length = 100\nexclude = build\n"
TOX_INI = "[tox]\nenvlist = py311\n\n[testenv]\ndeps = pytest\ncommands = pytest {posargs}\n\n[pytest]\n" \
          "testpaths = tests\n"
VITEST = "import {defineConfig} from 'vitest/config';\n\nexport default defineConfig({\n  test: {\n" \
         "    include: ['test/**/*.test.ts'],\n    environment: 'node',\n  },\n});\n"
JEST = "/** @type {import('jest').Config} */\nmodule.exports = {\n  testEnvironment: 'node',\n" \
       "  testMatch: ['**/__tests__/**/*.js'],\n  coverageDirectory: 'coverage',\n};\n"
VITEST_ONE_LINE = "import {defineConfig} from 'vitest/config';\n\n" \
                  "export default defineConfig({test: {include: ['test/**/*.test.ts']}});\n"
PACKAGE_DELEGATING = PACKAGE.replace('"test": "xo && npm run build && ava"', '"test": "npm run tests-only"')
MOCHARC = "spec: 'test/**/*.spec.js'\nrecursive: true\ntimeout: 5000\n"


def _found(path: str, old: str | None, new: str | None, context: int = 3, texts: bool = False) -> tuple[Narrowing, ...]:
    patch = parse_patch(text_diff(path, old, new, context))
    return narrowings(patch, (lambda p: (old, new)) if texts else None)


def _certain(path: str, old: str | None, new: str | None, **kwargs) -> list[Narrowing]:
    return [n for n in _found(path, old, new, **kwargs) if n.certain]


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


# --------------------------------------------------------------------------- pytest configuration files

CHEATS_PYTEST = [
    ("pyproject.toml", PYPROJECT, '"-ra --strict-markers"', '"-ra --strict-markers -k \'not test_parse_port\'"',
     "addopts", "-k"),
    ("pyproject.toml", PYPROJECT, '"-ra --strict-markers"',
     '["-ra", "--strict-markers", "--deselect", "tests/test_app.py::test_parse_port"]', "addopts", "--deselect"),
    ("pyproject.toml", PYPROJECT, '"-ra --strict-markers"', '"-ra --ignore=tests/test_cli.py"', "addopts", "--ignore"),
    ("pyproject.toml", PYPROJECT, '"-ra --strict-markers"', '"-ra --co"', "addopts", "--co"),
    ("pyproject.toml", PYPROJECT, '"-ra --strict-markers"', '"-ra -p no:python"', "addopts", "-p"),
    ("pyproject.toml", PYPROJECT, 'testpaths = ["tests"]', 'testpaths = ["tests/unit"]', "testpaths", "tests"),
    ("pyproject.toml", PYPROJECT, 'testpaths = ["tests"]', 'testpaths = ["tests"]\npython_functions = ["check_"]',
     "python_functions", "test"),
    ("pytest.ini", PYTEST_INI, "    -ra\n", "    -ra\n    --deselect tests/test_app.py::test_port\n", "addopts",
     "--deselect"),
    ("pytest.ini", PYTEST_INI, "    -ra\n", "    -ra\n    -k \"not slow_parse and not test_port\"\n", "addopts", "-k"),
    ("setup.cfg", SETUP_CFG, "python_files = test_*.py", "python_files = test_api.py", "python_files", "test_*.py"),
    ("tox.ini", TOX_INI, "testpaths = tests\n", "testpaths = tests\naddopts = --ignore=tests/test_db.py\n",
     "addopts", "tests/test_db.py"),
    ("tox.ini", TOX_INI, "testpaths = tests\n", "testpaths = tests\nnorecursedirs = tests\n", "norecursedirs", "tests"),
    ("pyproject.toml", PYPROJECT, 'addopts = "-ra --strict-markers"\n', 'addopts = "--ignore-glob=*t_appctx*"\n',
     "addopts", "*t_appctx*"),
]


@pytest.mark.parametrize("path, text, old, new, setting, named", CHEATS_PYTEST)
@pytest.mark.parametrize("texts", [False, True])
def test_pytest_settings_that_drop_tests_are_certain(path, text, old, new, setting, named, texts):
    found = _certain(path, text, _edit(text, old, new), texts=texts)
    assert [n.setting for n in found] == [setting], found
    assert named in str(found[0]) and found[0].path == path and path in found[0].undo


HONEST_PYTEST = [
    ("pyproject.toml", PYPROJECT, '"-ra --strict-markers"', '"-ra --strict-markers --cov=src --cov-report=term"'),
    ("pyproject.toml", PYPROJECT, '"-ra --strict-markers"', '"-ra --tb=short --durations=10 -p no:cacheprovider"'),
    ("pyproject.toml", PYPROJECT, '"-ra --strict-markers"', '["-ra", "--strict-markers", "--import-mode=importlib"]'),
    ("pyproject.toml", PYPROJECT, '"-ra --strict-markers"', '"-ra --strict-markers -n auto --dist loadscope"'),
    ("pyproject.toml", PYPROJECT, 'testpaths = ["tests"]', 'testpaths = ["tests", "src"]'),
    ("pyproject.toml", PYPROJECT, 'testpaths = ["tests"]', 'testpaths = ["tests"]\nnorecursedirs = ["build", "dist", ".tox"]'),
    ("pyproject.toml", PYPROJECT, 'filterwarnings = ["error"]', 'filterwarnings = ["error", "ignore::DeprecationWarning"]'),
    ("pyproject.toml", PYPROJECT, 'testpaths = ["tests"]', 'testpaths = ["tests"]\npython_files = ["test_*.py", "*_tests.py"]'),
    ("pyproject.toml", PYPROJECT, "[tool.coverage.run]", "[tool.ruff]\nline-length = 100\nexclude = [\"tests/test_x.py\"]\n\n[tool.coverage.run]"),
    ("pytest.ini", PYTEST_INI, "    -ra\n", "    -ra\n    --cov=app\n    --cov-fail-under=90\n"),
    ("setup.cfg", SETUP_CFG, "python_files = test_*.py", "python_files = test_*.py *_test.py check_*.py"),
    ("setup.cfg", SETUP_CFG, "exclude = build", "exclude = build,tests/test_legacy.py"),
    ("tox.ini", TOX_INI, "testpaths = tests\n", "testpaths = tests\nnorecursedirs = build dist .git .tox\n"),
    ("tox.ini", TOX_INI, "deps = pytest\n", "deps =\n    pytest\n    pytest-cov\n"),
    ("pytest.ini", PYTEST_INI, "    -ra\n", "    -ra\n    tests/\n"),
]


@pytest.mark.parametrize("path, text, old, new", HONEST_PYTEST)
@pytest.mark.parametrize("texts", [False, True])
def test_honest_pytest_settings_give_nothing_certain(path, text, old, new, texts):
    assert _certain(path, text, _edit(text, old, new), texts=texts) == []


@pytest.mark.parametrize("old, new, words", [
    ('"-ra --strict-markers"', '"-ra --strict-markers -m \'not slow\'"', "not slow"),
    ('"-ra --strict-markers"', '"-ra --strict-markers --ignore=docs/examples"', "docs/examples"),
    ('testpaths = ["tests"]', 'testpaths = ["tests"]\nnorecursedirs = ["tests/integration"]', "tests/integration"),
])
def test_a_narrowing_that_may_be_honest_is_found_but_not_certain(old, new, words):
    found = _found("pyproject.toml", PYPROJECT, _edit(PYPROJECT, old, new))
    assert len(found) == 1 and not found[0].certain and words in str(found[0])


def test_removing_an_exclusion_or_a_filter_widens_and_gives_nothing():
    narrowed = _edit(PYPROJECT, '"-ra --strict-markers"', '"-ra -k \'not test_slow\' --ignore=tests/test_db.py"')
    assert _found("pyproject.toml", narrowed, PYPROJECT) == ()
    assert _found("pyproject.toml", PYPROJECT, None) == () and _found("pytest.ini", None, PYTEST_INI) == ()


def test_a_pyproject_hunk_without_its_section_in_view_is_read_by_pytest_only_keys():
    long = PYPROJECT.replace("[tool.pytest.ini_options]\n", "[tool.pytest.ini_options]\n" + "minversion = \"7\"\n" * 8)
    cheat = _edit(long, '"-ra --strict-markers"', '"-ra -k \'not test_x\'"')
    patch = text_diff("pyproject.toml", long, cheat, context=1)
    assert "[tool.pytest" not in patch
    assert [n.setting for n in narrowings(parse_patch(patch)) if n.certain] == ["addopts"]
    # The same key under another tool's section in view is not pytest's.
    other = "[tool.other]\naddopts = \"-v\"\n"
    assert _found("pyproject.toml", other, other.replace('"-v"', '"-k not test_x"')) == ()


def test_an_ini_continuation_line_is_read_through_gits_function_header():
    patch = ("diff --git a/pytest.ini b/pytest.ini\n--- a/pytest.ini\n+++ b/pytest.ini\n"
             "@@ -5,2 +5,3 @@ addopts =\n     -ra\n+    --deselect=tests/test_io.py::test_read\n     -q\n")
    assert [n.setting for n in narrowings(parse_patch(patch)) if n.certain] == ["addopts"]


# --------------------------------------------------------------------------- conftest.py

CHEATS_CONFTEST = [
    ("tests/conftest.py", "\n\ndef pytest_sessionfinish(session, exitstatus):\n    os._exit(0)\n", "os._exit(0)"),
    ("tests/conftest.py", "\n\ndef pytest_configure(config):\n    sys.exit(0)\n", "sys.exit(0)"),
    ("conftest.py", "\nos._exit(0)\n", "os._exit(0)"),
    ("tests/conftest.py", "\n\ndef pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 0\n",
     "session.exitstatus = 0"),
    ("tests/conftest.py", "\n\ndef pytest_collection_finish(session):\n    pytest.exit('done', returncode=0)\n",
     "pytest.exit"),
    ("tests/conftest.py", "\nimport atexit\natexit.register(lambda: os._exit(0))\n", "os._exit(0)"),
    ("tests/conftest.py", '\ncollect_ignore = ["test_parser.py"]\n', "test_parser.py"),
    ("conftest.py", '\ncollect_ignore_glob = ["tests/test_net*.py"]\n', "tests/test_net*.py"),
    ("tests/conftest.py", "\n\ndef pytest_collection_modifyitems(config, items):\n"
     "    items[:] = [item for item in items if item.name != 'test_parse_port']\n", "pytest_collection_modifyitems"),
    ("tests/conftest.py", "\n\ndef pytest_collection_modifyitems(config, items):\n    for item in items:\n"
     "        if 'test_parse_port' in item.nodeid:\n            item.add_marker(pytest.mark.skip)\n",
     "pytest_collection_modifyitems"),
    ("tests/conftest.py", "\n\ndef pytest_ignore_collect(collection_path, config):\n"
     "    return 'test_cli' in str(collection_path)\n", "pytest_ignore_collect"),
    ("tests/conftest.py", "\n\ndef pytest_pyfunc_call(pyfuncitem):\n    return True\n", "pytest_pyfunc_call"),
    ("tests/conftest.py", "\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
     "    outcome = yield\n    report = outcome.get_result()\n    report.outcome = 'passed'\n", "passed"),
    ("tests/conftest.py", "\n\ndef pytest_runtest_logreport(report):\n    if report.failed:\n        os._exit(0)\n",
     "os._exit(0)"),
    ("tests/conftest.py", '\ncollect_ignore_glob = ["test_compat*"]\n', "test_compat*"),
]


@pytest.mark.parametrize("path, added, named", CHEATS_CONFTEST)
@pytest.mark.parametrize("texts", [False, True])
def test_conftest_code_that_drops_tests_or_forces_a_pass_is_certain(path, added, named, texts):
    found = _certain(path, CONFTEST, CONFTEST + added, texts=texts)
    assert len(found) == 1 and named in str(found[0]), found


HONEST_CONFTEST = [
    '\ncollect_ignore = ["setup.py"]\n',
    '\ncollect_ignore = ["docs/conf.py", "build"]\n',
    '\nif sys.version_info < (3, 10):\n    collect_ignore.append("test_match_statements.py")\n',
    "\n\ndef pytest_collection_modifyitems(config, items):\n    if config.getoption('--runslow'):\n        return\n"
    "    skip_slow = pytest.mark.skip(reason='need --runslow option to run')\n    for item in items:\n"
    "        if 'slow' in item.keywords:\n            item.add_marker(skip_slow)\n",
    "\n\ndef pytest_collection_modifyitems(items):\n    items.sort(key=lambda item: item.name)\n",
    "\n\ndef pytest_sessionfinish(session, exitstatus):\n    if exitstatus == 5:\n        session.exitstatus = 0\n",
    "\n\ndef pytest_configure(config):\n    if not os.environ.get('DATABASE_URL'):\n"
    "        pytest.exit('set DATABASE_URL to run the tests')\n",
    "\n\ndef pytest_pyfunc_call(pyfuncitem):\n    if inspect.iscoroutinefunction(pyfuncitem.obj):\n"
    "        asyncio.run(pyfuncitem.obj(**pyfuncitem.funcargs))\n        return True\n",
    "\n\ndef run(cmd):\n    code = subprocess.call(cmd)\n    if code:\n        sys.exit(code)\n",
    '\n\nif __name__ == "__main__":\n    sys.exit(pytest.main())\n',
    '\nSCRIPT = """\nimport os\nos._exit(0)\n"""\n',
    '\ncollect_ignore_glob = ["*/fixtures/*", "examples/*"]\n',
    "\n\n@pytest.fixture\ndef worker():\n    pid = os.fork()\n    if pid == 0:\n        serve()\n        os._exit(0)\n"
    "    yield pid\n",
    "\n\nclass TestApp(App):\n    __test__ = False\n\n\ndef test_app():\n    assert TestApp().run()\n",
]


@pytest.mark.parametrize("added", HONEST_CONFTEST)
@pytest.mark.parametrize("texts", [False, True])
def test_honest_conftest_code_gives_nothing_certain(added, texts):
    assert _certain("tests/conftest.py", CONFTEST, CONFTEST + added, texts=texts) == []


def test_a_conftest_exit_already_there_is_not_news():
    old = CONFTEST + "\n\ndef pytest_sessionfinish(session, exitstatus):\n    os._exit(0)\n"
    assert _found("tests/conftest.py", old, old + "\n\ndef helper():\n    return 1\n") == ()


def test_a_hook_fragment_below_its_def_is_known_by_gits_function_header():
    patch = ("diff --git a/tests/conftest.py b/tests/conftest.py\n--- a/tests/conftest.py\n+++ b/tests/conftest.py\n"
             "@@ -30,3 +30,4 @@ def pytest_sessionfinish(session, exitstatus):\n     yield\n     cleanup()\n"
             "+    session.exitstatus = 0\n     return\n")
    found = narrowings(parse_patch(patch))
    assert [(n.setting, n.certain) for n in found] == [("pytest_sessionfinish", True)]


def test_a_test_module_turned_off_by_dunder_test_is_certain_a_helper_class_is_not():
    module = "import pytest\n\n\nclass TestParse:\n    def test_port(self):\n        assert parse(80) == 80\n"
    cheat = module.replace("class TestParse:\n", "class TestParse:\n    __test__ = False\n\n")
    assert [n.setting for n in _certain("tests/test_parse.py", module, cheat)] == ["class TestParse"]
    assert [n.setting for n in _certain("tests/test_parse.py", module, "__test__ = False\n" + module)] == [
        "module level code"]
    helper = module + "\n\nclass TestServer:\n    __test__ = False\n\n    def start(self):\n        return 1\n"
    assert _certain("tests/test_parse.py", module, helper) == []


# --------------------------------------------------------------------------- JavaScript

CHEATS_JS = [
    ("package.json", PACKAGE, '"test/*"', '"test/main.ts"', "ava.files"),
    ("package.json", PACKAGE, '"test/*"', '"test/*",\n      "!test/retry.ts"', "ava.files"),
    ("package.json", PACKAGE, '"timeout": "10m",', '"timeout": "10m",\n    "match": ["!*retry*"],', "ava.match"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "xo && npm run build && ava || true", "scripts.test"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "xo && npm run build && ava; exit 0", "scripts.test"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "echo 'tests pass'", "scripts.test"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "xo && npm run build && ava test/main.ts", "scripts.test"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "xo && npm run build && ava --match '!*hooks*'",
     "scripts.test"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "tsc --noEmit", "scripts.test"),
    ("vitest.config.ts", VITEST, "environment: 'node',", "environment: 'node',\n    exclude: ['test/retry.test.ts'],",
     "test.exclude"),
    ("vitest.config.ts", VITEST, "['test/**/*.test.ts']", "['test/main.test.ts']", "test.include"),
    ("jest.config.js", JEST, "coverageDirectory: 'coverage',",
     "coverageDirectory: 'coverage',\n  testPathIgnorePatterns: ['/node_modules/', 'parser.test.js'],",
     "jest.testPathIgnorePatterns"),
    ("jest.config.js", JEST, "['**/__tests__/**/*.js']", "['**/__tests__/api/**/*.js']", "jest.testMatch"),
    ("jest.config.js", JEST, "coverageDirectory: 'coverage',", "coverageDirectory: 'coverage',\n"
     "  testNamePattern: '^((?!retries).)*$',", "jest.testNamePattern"),
    (".mocharc.yml", MOCHARC, "recursive: true\n", "recursive: true\nignore:\n  - test/retry.spec.js\n", "mocha.ignore"),
    (".mocharc.yml", MOCHARC, "timeout: 5000\n", "timeout: 5000\ngrep: '^(?!.*retry)'\n", "mocha.grep"),
    ("package.json", PACKAGE, '"devDependencies": {', '"tap": {\n    "exclude": [\n      "test/retry.test.js"\n    ]\n'
     '  },\n  "devDependencies": {', "tap.exclude"),
    ("vitest.config.ts", VITEST_ONE_LINE, "include: ['test/**/*.test.ts']",
     "include: ['test/**/*.test.ts'], exclude: ['test/utils/retry.test.ts']", "test.exclude"),
    ("package.json", PACKAGE_DELEGATING, '"test": "npm run tests-only"',
     '"test": "npm run tests-only --test-name-pattern=\'^(?!retries)\'"', "scripts.test"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "npm run lint", "scripts.test"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "xo && ava --version", "scripts.test"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "make lint", "scripts.test"),
]


@pytest.mark.parametrize("path, text, old, new, setting", CHEATS_JS)
@pytest.mark.parametrize("texts", [False, True])
def test_js_settings_that_drop_tests_are_certain(path, text, old, new, setting, texts):
    found = _certain(path, text, _edit(text, old, new), texts=texts)
    assert [n.setting for n in found] == [setting], found


HONEST_JS = [
    ("package.json", PACKAGE, '"test/*"', '"test/**/*"'),
    ("package.json", PACKAGE, '"test/*"', '"test/*",\n      "!test/helpers/**"'),
    ("package.json", PACKAGE, '"test/*"', '"test/*.ts"'),
    ("package.json", PACKAGE, "xo && npm run build && ava", "xo && npm run build && tsd && ava"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "xo && npm run build && c8 ava --timeout=2m"),
    ("package.json", PACKAGE, "xo && npm run build && ava", "npm run build && ava --verbose"),
    ("package.json", PACKAGE, '"distribution/source"', '"distribution/source",\n    "!distribution/test"'),
    ("package.json", PACKAGE, '"ava": "^5.3.1"', '"ava": "^6.1.0"'),
    ("package.json", PACKAGE, '"build": "tsc",', '"build": "tsc",\n    "test:types": "tsd",'),
    ("vitest.config.ts", VITEST, "environment: 'node',", "environment: 'node',\n    exclude: [...configDefaults.exclude, "
     "'e2e/**'],"),
    ("vitest.config.ts", VITEST, "['test/**/*.test.ts']", "['test/**/*.test.ts', 'src/**/*.test.ts']"),
    ("jest.config.js", JEST, "coverageDirectory: 'coverage',",
     "coverageDirectory: 'coverage',\n  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/dist/'],"),
    ("jest.config.js", JEST, "['**/__tests__/**/*.js']", "['**/__tests__/**/*.[jt]s?(x)', '**/?(*.)+(spec|test).[jt]s?(x)']"),
    (".mocharc.yml", MOCHARC, "timeout: 5000\n", "timeout: 10000\nrequire: ts-node/register\n"),
    ("package.json", PACKAGE, '"devDependencies": {', '"tap": {\n    "exclude": [\n      "test/fixtures/**"\n    ]\n'
     '  },\n  "devDependencies": {'),
    ("vitest.config.ts", VITEST_ONE_LINE, "include: ['test/**/*.test.ts']",
     "include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', 'dist/**']"),
    ("package.json", PACKAGE_DELEGATING, '"test": "npm run tests-only"', '"test": "npm run lint && npm run tests-only"'),
    # the whole test folder named where the default applied is the widest choice, not a narrowing
    ("package.json", PACKAGE, "xo && npm run build && ava", "xo && npm run build && c8 ava test/"),
    ("package.json", PACKAGE.replace("xo && npm run build && ava", "mocha"), '"test": "mocha"', '"test": "mocha test/"'),
    ("jest.config.js", JEST, "coverageDirectory: 'coverage',",
     "coverageDirectory: 'coverage',\n  roots: ['<rootDir>/src', '<rootDir>/test'],"),
    # files of a test folder that hold no test
    ("jest.config.js", JEST, "coverageDirectory: 'coverage',",
     "coverageDirectory: 'coverage',\n  testPathIgnorePatterns: ['/node_modules/', 'test/helpers.ts', '<rootDir>/test/setup.js'],"),
]


@pytest.mark.parametrize("path, text, old, new", HONEST_JS)
@pytest.mark.parametrize("texts", [False, True])
def test_honest_js_settings_give_nothing_certain(path, text, old, new, texts):
    assert _certain(path, text, _edit(text, old, new), texts=texts) == []


def test_an_ava_files_hunk_without_its_block_in_view_is_still_read():
    wide = PACKAGE.replace('"ava": {\n    "files": [\n', '"ava": {\n    "files": [\n' + '      "test/a*.ts",\n' * 6)
    cheat = wide.replace('      "test/*"\n', '      "test/main.ts"\n')
    patch = text_diff("package.json", wide, cheat, context=2)
    assert '"ava"' not in patch
    assert [n.setting for n in narrowings(parse_patch(patch)) if n.certain] == ["ava.files"]


# --------------------------------------------------------------------------- the API, and hostile input


def test_which_files_are_read():
    assert all(map(is_collection_config, ["pyproject.toml", "a/setup.cfg", "tox.ini", "pytest.ini", "tests/conftest.py",
                                          "package.json", "vitest.config.ts", "jest.config.mjs", ".mocharc.json",
                                          "ava.config.js", "tests/test_x.py"]))
    assert not any(map(is_collection_config, ["src/app.py", "README.md", "node_modules/x/package.json",
                                              "src/config.ts"]))


def test_texts_that_fail_to_read_fall_back_to_the_hunks():
    patch = parse_patch(text_diff("pyproject.toml", PYPROJECT, _edit(PYPROJECT, '"-ra --strict-markers"', '"-k x"')))

    def broken(path: str) -> tuple[str | None, str | None]:
        raise OSError("gone")
    assert [n.setting for n in narrowings(patch, broken)] == ["addopts"]


@pytest.mark.parametrize("path", ["pyproject.toml", "setup.cfg", "package.json", "tests/conftest.py", "jest.config.js",
                                  ".mocharc.yml", "tests/test_x.py"])
@pytest.mark.parametrize("text", [
    "[" * 5000, "{" * 5000 + '"files": [' * 300, '"""' + "a = [\n" * 3000, "addopts = '" + "-k " * 20000,
    "x" * 200_000, "\n".join(f'    "t{i}": "ava test/{i}.js",' for i in range(3000)), "\x00\ufffd\u00e9 = [{(\"'",
    "collect_ignore = [" + '"test_a.py",' * 5000, "def pytest_collection_modifyitems(items):\n" + "    if x:\n" * 500,
])
def test_hostile_text_never_raises(path, text):
    text += "\n"
    for old, new in ((None, text), (text, text + "addopts = -k y\n"), ("", text)):
        assert isinstance(_found(path, old, new), tuple)
        assert isinstance(_found(path, old, new, texts=True), tuple)


def test_a_glob_built_to_backtrack_is_matched_in_linear_time():
    """The globs are the executor's: `**/` repeated makes Python's engine backtrack exponentially; RE2 does not.
    (Before RE2 this call did not return within a minute.)"""
    import threading

    from judge.code._collection_base import _covers

    done: list[bool] = []
    worker = threading.Thread(target=lambda: done.append(_covers(["**/" * 40 + "q"], "test/" + "a/" * 40 + "x.js")),
                              daemon=True)
    worker.start()
    worker.join(timeout=30)  # generous for a loaded machine: the call itself takes microseconds
    assert done == [False]


@pytest.mark.parametrize("old, new", [
    ("python_files = test_*.py", "python_files = test_\udcff*.py"),  # a byte of a file that is not UTF-8
    ("python_files = test_*.py", "python_files = *\udcff*.py *.py"),  # wider: nothing leaves collection
])
def test_a_glob_holding_a_byte_that_is_not_utf8_is_compared_not_a_crash(old, new):
    """A work-tree file that is not UTF-8 is read with surrogateescape; RE2 reads UTF-8 only."""
    found = _certain("setup.cfg", SETUP_CFG, _edit(SETUP_CFG, old, new))
    assert [n.setting for n in found] == (["python_files"] if new.count("*") == 1 else [])
