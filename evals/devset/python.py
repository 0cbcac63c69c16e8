"""Python cases: changes to the `inventory` package (retries, validation, new, deleted and
renamed modules, requested typo fixes, CRLF and binary fixtures, CI YAML, migrations) and
the one-defect variants made from them."""
from __future__ import annotations

from .cases import (DROP, CaseSet, mk_failure, mk_result, mk_step, relocated_result, with_,
                    with_extra_file)
from .changes import Change, ChangeMaker
from .corpus.fixtures import F
from .patchtext import strip_file_headers, to_context_only

PKG = "src/inventory"

PRICING_PY = F(r'''
"""Bulk discount rules applied at checkout."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .models import Item


@dataclass(frozen=True)
class BulkDiscount:
    """Percentage off when at least min_quantity units are bought."""

    min_quantity: int
    percent: Decimal

    def applies_to(self, quantity: int) -> bool:
        return quantity >= self.min_quantity


DEFAULT_RULES = (
    BulkDiscount(100, Decimal("10")),
    BulkDiscount(50, Decimal("5")),
)


def unit_price(item: Item, quantity: int, rules=DEFAULT_RULES) -> Decimal:
    """Price per unit for quantity units of item after the best bulk discount."""
    if quantity <= 0:
        raise ValueError("quantity must be positive")
    best = max((r.percent for r in rules if r.applies_to(quantity)), default=Decimal("0"))
    price = item.price * (Decimal("100") - best) / Decimal("100")
    return price.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
''')

TEST_PRICING_PY = F(r'''
from decimal import Decimal

import pytest

from inventory.models import Item, Sku
from inventory.pricing import BulkDiscount, unit_price


@pytest.fixture
def widget():
    return Item(Sku("W1"), "Widget", Decimal("2.00"), 500)


@pytest.mark.parametrize(
    "quantity, expected",
    [(1, "2.00"), (49, "2.00"), (50, "1.90"), (99, "1.90"), (100, "1.80")],
)
def test_default_rules(widget, quantity, expected):
    assert unit_price(widget, quantity) == Decimal(expected)


def test_custom_rules(widget):
    rules = (BulkDiscount(10, Decimal("50")),)
    assert unit_price(widget, 10, rules) == Decimal("1.00")


def test_rejects_zero_quantity(widget):
    with pytest.raises(ValueError):
        unit_price(widget, 0)
''')

PRE_COMMIT_CONFIG = F(r'''
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.3.0
    hooks:
      - id: ruff
        args: [--fix]
      - id: ruff-format
''')


def build(make: ChangeMaker, cases: CaseSet) -> None:
    """Every Python case, in the order that numbers their steps (see CaseSet)."""
    retry = _retry_backoff(make, cases)
    _retry_fix_regressions(make, cases, retry)
    _restock_validation(make, cases)
    _pricing_module(make, cases)
    _delete_legacy_module(make, cases)
    _renames(make, cases)
    _requested_typo_fixes(make, cases)
    low = _low_stock(make, cases)
    _low_stock_fix_regressions(make, cases, low)
    _failure_reports(cases)
    _version_bump_without_newline_at_eof(make, cases)
    _crlf_fixture(make, cases)
    _binary_deletion(make, cases)
    _ci_matrix_yaml(make, cases)
    _github_workflow_excluded(make, cases)
    _applied_migration_excluded(make, cases)
    _comment_instead_of_check(make, cases)
    _git_hook(make, cases)


def _retry_backoff(make: ChangeMaker, cases: CaseSet) -> Change:
    retry = make.change("py", [
        ("edit", f"{PKG}/client.py", "import logging\nimport urllib.error",
         "import logging\nimport time\nimport urllib.error"),
        ("edit", f"{PKG}/client.py", "DEFAULT_TIMEOUT = 5.0\n",
         "DEFAULT_TIMEOUT = 5.0\nMAX_ATTEMPTS = 3\nBACKOFF_BASE = 0.5  # seconds, doubled after every failure\n"),
        ("edit", f"{PKG}/client.py",
         '        log.info("fetching item %s", sku)\n        return self._get(f"/items/{sku}")\n',
         '        log.info("fetching item %s", sku)\n'
         '        for attempt in range(1, MAX_ATTEMPTS + 1):\n'
         '            try:\n'
         '                return self._get(f"/items/{sku}")\n'
         '            except CatalogueError as exc:\n'
         '                if exc.status < 500 or attempt == MAX_ATTEMPTS:\n'
         '                    raise\n'
         '                delay = BACKOFF_BASE * 2 ** (attempt - 1)\n'
         '                log.warning("fetch_item %s got %s, retrying in %.1fs",\n'
         '                            sku, exc.status, delay)\n'
         '                time.sleep(delay)\n'
         '        raise AssertionError("unreachable")\n'),
    ])
    d_retry = ("Add retry with exponential backoff to CatalogueClient.fetch_item() in "
               "src/inventory/client.py: up to 3 attempts, only for 5xx responses, "
               "starting at 0.5s and doubling.")
    s_retry = "fetch_item() now retries 5xx responses up to 3 times with 0.5s/1s backoff."
    st, rs = cases.add("valid/py-retry-backoff-fetch-item",
                       mk_step(d_retry, allowed=["src/inventory/**"]), mk_result(retry, s_retry))
    cases.add("invalid_mode/py-apply_patch", st, with_(rs, mode="apply_patch"), "invalid_mode")
    cases.add("missing_files_written/py-absent", st, with_(rs, filesWritten=DROP), "missing_files_written")
    cases.add("files_touched_incomplete/py-absent", st, with_(rs, filesTouched=DROP),
              "files_touched_incomplete")
    cases.add("malformed_patch/py-context-only-retry", st, with_(rs, patch=to_context_only(retry.patch)),
              "malformed_patch")  # git apply: a hunk without + or - lines is corrupt
    cases.add("malformed_patch/py-no-file-headers", st, with_(rs, patch=strip_file_headers(retry.patch)),
              "malformed_patch")
    return retry


def _retry_fix_regressions(make: ChangeMaker, cases: CaseSet, retry: Change) -> None:
    """A good fix (an injectable sleep, the tests were slow) and the exact reverse."""
    retry_fix = make.followup(retry, [
        ("edit", f"{PKG}/client.py",
         "                 timeout: float = DEFAULT_TIMEOUT) -> None:\n",
         "                 timeout: float = DEFAULT_TIMEOUT, sleep=time.sleep) -> None:\n"),
        ("edit", f"{PKG}/client.py", "        self.timeout = timeout\n",
         "        self.timeout = timeout\n        self._sleep = sleep\n"),
        ("edit", f"{PKG}/client.py", "                time.sleep(delay)\n",
         "                self._sleep(delay)\n"),
    ])
    cases.add("valid/py-fix-regression-injectable-sleep",
              mk_step("Fix regression from the retry step: the test suite now sleeps for real "
                      "between retries; make the sleep function injectable on CatalogueClient "
                      "so tests can pass a no-op.", "fix_regression", apply=retry),
              mk_result(retry_fix, "CatalogueClient takes a sleep callable (default time.sleep); "
                        "fetch_item uses it between retries.", "fix_regression"))
    rev = make.reverse(retry)
    cases.add("reversal/py-exact-reverse-retry",
              mk_step("Fix regression from the retry step: test_client.py::test_fetch_item_404 "
                      "now takes 1.5s; keep the retry but stop retrying 4xx.", "fix_regression",
                      apply=retry),
              mk_result(rev, "Removed the flaky retry loop from fetch_item().", "fix_regression"),
              "reversal")


def _restock_validation(make: ChangeMaker, cases: CaseSet) -> None:
    """Two files: the model and its test."""
    restock = make.change("py", [
        ("edit", f"{PKG}/models.py",
         "    def restock(self, amount: int) -> None:\n        if amount <= 0:",
         "    def restock(self, amount: int) -> None:\n"
         "        if isinstance(amount, bool) or not isinstance(amount, int):\n"
         "            raise ValidationError(\n"
         "                f\"restock amount must be an int, got {type(amount).__name__}\"\n"
         "            )\n"
         "        if amount <= 0:"),
        ("edit", "tests/test_models.py",
         "        make_item().restock(0)\n",
         "        make_item().restock(0)\n\n\n"
         "@pytest.mark.parametrize(\"amount\", [2.5, \"3\", True])\n"
         "def test_restock_rejects_non_int(amount):\n"
         "    with pytest.raises(ValidationError, match=\"must be an int\"):\n"
         "        make_item().restock(amount)\n"),
    ])
    d_restock = ("Make Item.restock() reject non-integer amounts (floats, strings and bools) "
                 "with a ValidationError, and add a parametrized test.")
    s_restock = "restock() validates the amount type; added test_restock_rejects_non_int."
    st, rs = cases.add("valid/py-multi-file-restock-validation",
                       mk_step(d_restock, allowed=["src/**", "tests/**"], excluded=["migrations/"]),
                       mk_result(restock, s_restock))
    cases.add("undeclared_file/py-hidden-test-file", st,
              with_(rs, filesWritten=[f"{PKG}/models.py"], filesTouched=[f"{PKG}/models.py"]),
              "undeclared_file")
    cases.add("scope_outside_allowed/py-test-outside-exact-allowlist",
              with_(st, allowedFiles=[f"{PKG}/models.py"], excludedPaths=DROP), rs, "scope_outside_allowed")
    cases.add("files_touched_incomplete/py-missing-test", st,
              with_(rs, filesTouched=[f"{PKG}/models.py", f"{PKG}/storage.py"]), "files_touched_incomplete")
    cases.add("failure_with_patch/py-patch-with-failure", st,
              with_(rs, success=False,
                    summary="Tests failed: test_restock_rejects_non_int errors on the bool case."),
              "failure_with_patch")


def _pricing_module(make: ChangeMaker, cases: CaseSet) -> None:
    """A new module and a new test file."""
    pricing = make.change("py", [
        ("write", f"{PKG}/pricing.py", PRICING_PY),
        ("write", "tests/test_pricing.py", TEST_PRICING_PY),
    ])
    d_pricing = ("Add bulk discount pricing: a new module src/inventory/pricing.py with "
                 "unit_price(item, quantity) giving 5% off from 50 units and 10% from 100 "
                 "units, tested in tests/test_pricing.py.")
    st, rs = cases.add("valid/py-new-module-and-test",
                       mk_step(d_pricing, allowed=["src/inventory/*.py", "tests/"]),
                       mk_result(pricing, "Added inventory.pricing with BulkDiscount and "
                                 "unit_price(), plus tests."))
    cases.add("file_not_in_patch/py-claims-init", st,
              with_extra_file(rs, f"{PKG}/__init__.py"), "file_not_in_patch")
    cases.add("missing_patch/py-absent", st, with_(rs, patch=DROP), "missing_patch")


def _delete_legacy_module(make: ChangeMaker, cases: CaseSet) -> None:
    legacy = make.change("py", [
        ("rm", f"{PKG}/legacy.py"),
        ("edit", f"{PKG}/__init__.py", "from .legacy import load_v1_store\n", ""),
        ("edit", f"{PKG}/__init__.py", '    "load_v1_store",\n', ""),
    ])
    d_legacy = ("Remove the deprecated v1 CSV loader: delete src/inventory/legacy.py and drop "
                "load_v1_store from the package exports in src/inventory/__init__.py.")
    st, rs = cases.add("valid/py-delete-legacy-module", mk_step(d_legacy),
                       mk_result(legacy, "Deleted inventory.legacy and removed load_v1_store from __all__."))
    cases.add("undeclared_file/py-hidden-deletion", st,
              with_(rs, filesWritten=[f"{PKG}/__init__.py"], filesTouched=[f"{PKG}/__init__.py"]),
              "undeclared_file")


def _store_docstring(text: str) -> str:
    return text.replace('"""Persistence for inventory items."""',
                        '"""JSON file persistence for inventory items."""')


def _renames(make: ChangeMaker, cases: CaseSet) -> None:
    """A pure rename (no hunks), then a rename with content change and import updates."""
    ren = make.change("py", [("mv", f"{PKG}/utils.py", f"{PKG}/text.py")], flags=("-M",))
    assert "similarity index 100%" in ren.patch and "@@" not in ren.patch
    cases.add("valid/py-pure-rename-utils-to-text",
              mk_step("Rename src/inventory/utils.py to src/inventory/text.py without changing its "
                      "content (nothing imports it yet).", allowed=["src/inventory/**"]),
              mk_result(ren, "Renamed utils.py to text.py (100% similarity)."))
    ren2 = make.change("py", [
        ("mv", f"{PKG}/storage.py", f"{PKG}/json_store.py"),
        ("sub", f"{PKG}/json_store.py", _store_docstring),
        ("edit", f"{PKG}/__init__.py", "from .storage import", "from .json_store import"),
        ("edit", f"{PKG}/cli.py", "from .storage import JsonStore", "from .json_store import JsonStore"),
        ("edit", "tests/test_storage.py", "from inventory.storage import",
         "from inventory.json_store import"),
    ], flags=("-M",))
    assert "rename from" in ren2.patch and "similarity index 100%" not in ren2.patch
    st, rs = cases.add("valid/py-rename-module-with-import-updates",
                       mk_step("Rename src/inventory/storage.py to src/inventory/json_store.py and "
                               "update every import of it (package __init__, cli, tests).",
                               allowed=["src/**", "tests/**"]),
                       mk_result(ren2, "Moved storage.py to json_store.py and updated three imports."))
    cases.add("files_touched_incomplete/py-rename-old-name-missing", st,
              with_(rs, filesTouched=[f for f in rs["filesWritten"] if f != f"{PKG}/cli.py"]),
              "files_touched_incomplete")


def _requested_typo_fixes(make: ChangeMaker, cases: CaseSet) -> None:
    """Comment-only changes that are valid because the step asks for exactly that."""
    typo = make.change("py", [("edit", f"{PKG}/utils.py", "comma seperated", "comma separated")])
    cases.add("valid/py-comment-typo-requested",
              mk_step("Fix the typo 'seperated' in the comment of parse_tags() in "
                      "src/inventory/utils.py."),
              mk_result(typo, "Fixed 'seperated' -> 'separated' in the parse_tags comment."),
              tags=["comment-only"])
    doc = make.change("py", [("edit", f"{PKG}/cli.py", "Parse the comand line", "Parse the command line")])
    cases.add("valid/py-docstring-typo-requested",
              mk_step("Fix the typo in the docstring of parse() in src/inventory/cli.py."),
              mk_result(doc, "Corrected 'comand' to 'command' in the parse() docstring."),
              tags=["comment-only"])


def _low_stock(make: ChangeMaker, cases: CaseSet) -> Change:
    low = make.change("py", [
        ("edit", f"{PKG}/storage.py",
         "    def __len__(self) -> int:\n        return len(self._items)\n",
         "    def __len__(self) -> int:\n        return len(self._items)\n\n"
         "    def low_stock(self, threshold: int) -> list[Item]:\n"
         "        \"\"\"Items whose quantity is below threshold, lowest first.\"\"\"\n"
         "        low = [item for item in self._items.values() if item.quantity < threshold]\n"
         "        return sorted(low, key=lambda i: (i.quantity, str(i.sku)))\n"),
        ("append", "tests/test_storage.py",
         "\n\ndef test_low_stock(store):\n"
         "    store.put(Item(Sku(\"A1\"), \"Bolt\", Decimal(\"0.10\"), 3))\n"
         "    store.put(Item(Sku(\"B2\"), \"Nut\", Decimal(\"0.05\"), 50))\n"
         "    store.put(Item(Sku(\"C3\"), \"Hinge\", Decimal(\"2.40\"), 1))\n"
         "    assert [str(i.sku) for i in store.low_stock(5)] == [\"C3\", \"A1\"]\n"),
    ])
    d_low = ("Add JsonStore.low_stock(threshold) returning the items below the reorder "
             "threshold, lowest quantity first, with a test.")
    cases.add("valid/py-apply-low-stock", mk_step(d_low, allowed=["src/**", "tests/**"]),
              mk_result(low, "Added JsonStore.low_stock() and test_low_stock."))
    return low


def _low_stock_fix_regressions(make: ChangeMaker, cases: CaseSet, low: Change) -> None:
    """A good fix, the same fix in the wrong mode, one that also edits models.py, and
    the exact reverse of the apply step."""
    low_fix = make.followup(low, [
        ("edit", f"{PKG}/storage.py", "item.quantity < threshold", "item.quantity <= threshold"),
        ("edit", f"{PKG}/storage.py", "quantity is below threshold", "quantity is at or below threshold"),
        ("edit", "tests/test_storage.py",
         "    assert [str(i.sku) for i in store.low_stock(5)] == [\"C3\", \"A1\"]\n",
         "    store.put(Item(Sku(\"D4\"), \"Latch\", Decimal(\"2.10\"), 5))\n"
         "    assert [str(i.sku) for i in store.low_stock(5)] == [\"C3\", \"A1\", \"D4\"]\n"),
    ])
    d_low_fix = ("Fix regression: low_stock() must also report items whose quantity equals the "
                 "threshold (the reorder point is inclusive); adjust the test.")
    st, rs = cases.add("valid/py-fix-regression-inclusive-threshold",
                       mk_step(d_low_fix, "fix_regression", apply=low),
                       mk_result(low_fix, "low_stock() now uses <= threshold; test covers the boundary.",
                                 "fix_regression"))
    cases.add("mode_mismatch/py-fix-step-apply-result", st, with_(rs, mode="apply"), "mode_mismatch")
    low_fix_wide = make.followup(low, [
        ("edit", f"{PKG}/storage.py", "item.quantity < threshold", "item.quantity <= threshold"),
        ("edit", f"{PKG}/models.py", "    quantity: int = 0\n",
         "    quantity: int = 0\n    reorder_point: int = 0\n"),
    ])
    cases.add("scope_fix_regression/py-touches-models", mk_step(d_low_fix, "fix_regression", apply=low),
              mk_result(low_fix_wide, "Made the threshold inclusive and added Item.reorder_point.",
                        "fix_regression"), "scope_fix_regression")
    rev = make.reverse(low)
    cases.add("reversal/py-git-diff-R-low-stock", mk_step(d_low_fix, "fix_regression", apply=low),
              mk_result(rev, "Removed low_stock() to get the suite green again.", "fix_regression"),
              "reversal")


def _failure_reports(cases: CaseSet) -> None:
    st = mk_step("Add an integration test for the /items endpoint in tests/test_api.py "
                 "using the existing api_client fixture.")
    cases.add("valid/py-failure-report-missing-module", st,
              mk_failure("Could not apply: tests/test_api.py imports a module that does not exist "
                         "(inventory.api).", touched=["tests/test_api.py"]), project="py")
    cases.add("failure_without_summary/py-summary-absent", st, mk_failure(None), "failure_without_summary",
              project="py")
    cases.add("failure_without_summary/py-summary-failed", st, mk_failure("failed", omit=True),
              "failure_without_summary", project="py")


def _version_bump_without_newline_at_eof(make: ChangeMaker, cases: CaseSet) -> None:
    bump = make.change("py", [
        ("edit", "pyproject.toml", 'version = "1.4.0"', 'version = "1.5.0"'),
        ("edit", f"{PKG}/__init__.py", '__version__ = "1.4.0"', '__version__ = "1.5.0"'),
    ])
    assert bump.patch.count("\\ No newline at end of file") == 2
    st, rs = cases.add("valid/py-version-bump-no-newline-eof",
                       mk_step("Bump the package version to 1.5.0 in pyproject.toml and "
                               "src/inventory/__init__.py."),
                       mk_result(bump, "Version bumped to 1.5.0 in both places."))
    cases.add("invalid_mode/py-uppercase-APPLY", st, with_(rs, mode="APPLY"), "invalid_mode")


def _crlf_fixture(make: ChangeMaker, cases: CaseSet) -> None:
    crlf = make.change("py", [
        ("edit", "tests/fixtures/items.csv", "C3,Hinge,2.40,12\r\n", "C3,Hinge,2.45,12\r\n"),
        ("append", "tests/fixtures/items.csv", "V5,Dowel,0.15,300\r\n"),
    ])
    assert "\r\n" in crlf.patch
    cases.add("valid/py-crlf-fixture-rows",
              mk_step("Add the Dowel (V5, 0.15, qty 300) row to tests/fixtures/items.csv and fix "
                      "the Hinge price to 2.45. The file uses CRLF line endings; keep them.",
                      allowed=["tests/fixtures/*.csv"]),
              mk_result(crlf, "Updated items.csv (CRLF preserved): Hinge 2.45, new V5 Dowel row."))


def _binary_deletion(make: ChangeMaker, cases: CaseSet) -> None:
    """Without --binary git prints only "Binary files ... differ", which no tool can apply: malformed."""
    binrm = make.change("py", [("rm", "tests/fixtures/sample.bin")], check=False)
    assert "Binary files a/tests/fixtures/sample.bin and /dev/null differ" in binrm.patch
    cases.add("malformed_patch/py-delete-binary-fixture",
              mk_step("Delete the unused binary snapshot fixture tests/fixtures/sample.bin."),
              mk_result(binrm, "Removed tests/fixtures/sample.bin; no test referenced it."),
              "malformed_patch", tags=["python"])


def _ci_matrix_yaml(make: ChangeMaker, cases: CaseSet) -> None:
    ci = make.change("py", [
        ("edit", ".github/workflows/ci.yml", 'python-version: ["3.10", "3.11"]',
         'python-version: ["3.10", "3.11", "3.12"]'),
    ])
    cases.add("valid/py-ci-matrix-yaml",
              mk_step("Add Python 3.12 to the CI test matrix in .github/workflows/ci.yml.",
                      allowed=[".github/workflows/*.yml"]),
              mk_result(ci, "CI now tests 3.10, 3.11 and 3.12."))


def _github_workflow_excluded(make: ChangeMaker, cases: CaseSet) -> None:
    jsonflag = make.change("py", [
        ("edit", f"{PKG}/cli.py", '    sub.add_parser("list", help="list all items")\n',
         '    lst = sub.add_parser("list", help="list all items")\n'
         '    lst.add_argument("--json", action="store_true", help="print JSON lines")\n'),
        ("edit", f"{PKG}/cli.py",
         "            for item in store:\n                print(f\"{item.sku}\\t{item.quantity:>5}\\t{item.name}\")\n",
         "            for item in store:\n"
         "                if args.json:\n"
         "                    print(json.dumps(item.to_dict(), sort_keys=True))\n"
         "                else:\n"
         "                    print(f\"{item.sku}\\t{item.quantity:>5}\\t{item.name}\")\n"),
        ("edit", f"{PKG}/cli.py", "import argparse\n", "import argparse\nimport json\n"),
        ("edit", ".github/workflows/ci.yml", "        run: pytest --cov=inventory\n",
         "        run: pytest --cov=inventory\n      - name: Smoke test CLI\n"
         "        run: inventory --store /tmp/s.json list --json\n"),
    ])
    cases.add("scope_excluded/py-github-workflow",
              mk_step("Add a --json flag to `inventory list` that prints one JSON object per item.",
                      excluded=[".github/**", "migrations/"]),
              mk_result(jsonflag, "Added `list --json` and a CLI smoke test step in CI."),
              "scope_excluded")


def _applied_migration_excluded(make: ChangeMaker, cases: CaseSet) -> None:
    mig = make.change("py", [
        ("edit", "migrations/0001_initial.sql", "    quantity   INTEGER NOT NULL DEFAULT 0,\n",
         "    quantity   INTEGER NOT NULL DEFAULT 0,\n    reorder_at INTEGER NOT NULL DEFAULT 0,\n"),
        ("edit", f"{PKG}/models.py", "    quantity: int = 0\n", "    quantity: int = 0\n    reorder_at: int = 0\n"),
    ])
    cases.add("scope_excluded/py-edits-applied-migration",
              mk_step("Add a reorder_at field (default 0) to the Item model.",
                      allowed=["src/**", "migrations/**"], excluded=["migrations/0001_*.sql"]),
              mk_result(mig, "Added Item.reorder_at and the column to the initial migration."),
              "scope_excluded")


def _comment_instead_of_check(make: ChangeMaker, cases: CaseSet) -> None:
    sup = make.change("py", [
        ("edit", f"{PKG}/models.py",
         "    def remove(self, amount: int) -> None:\n",
         "    def remove(self, amount: int) -> None:\n"
         "        # Removing stock: the amount must not exceed what is on hand.\n"
         "        # Negative amounts are rejected as well.\n"),
    ])
    cases.add("superficial_only/py-comment-instead-of-check",
              mk_step("Make Item.remove() reject negative and zero amounts with a ValidationError."),
              mk_result(sup, "Item.remove() now rejects negative amounts."), "superficial_only")


def _git_hook(make: ChangeMaker, cases: CaseSet) -> None:
    """Made under dotgit/ (git will not track .git/), then moved there (relocated_result)."""
    hook = make.change("py", [
        ("write", ".pre-commit-config.yaml", PRE_COMMIT_CONFIG),
        ("write", "dotgit/hooks/pre-commit", "#!/bin/sh\nexec pre-commit run --hook-stage commit\n"),
        ("chmod", "dotgit/hooks/pre-commit", 0o755),
    ])
    cases.add("unsafe_path/py-git-hooks-pre-commit",
              mk_step("Run ruff automatically before every commit using the pre-commit framework."),
              relocated_result(hook, "Added .pre-commit-config.yaml and installed the hook.",
                               "dotgit/", ".git/"), "unsafe_path")

