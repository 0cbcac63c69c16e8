"""TypeScript cases: changes to the `@acme/web-client` project (renames, a retry helper,
formatCurrency, JSDoc, package.json / tsconfig.json, binary logo and favicon, a name with a
space, a 2000+ line fixture, vendored code) and the one-defect variants made from them."""
from __future__ import annotations

import json
import random

from .cases import CaseSet, mk_failure, mk_result, mk_step, relocated_result, with_, with_extra_file
from .changes import Change, ChangeMaker
from .corpus.fixtures import ICO_MAGIC, PNG_MAGIC, F, fake_binary
from .patchtext import change_counts, plus_minus_only, to_context_only

RETRY_TS = F(r'''
export interface RetryOptions {
  attempts?: number;
  baseDelayMs?: number;
  shouldRetry?: (err: unknown) => boolean;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Calls fn until it succeeds or the attempts are used up, waiting
 * baseDelayMs * 2^(attempt - 1) between attempts.
 */
export async function withRetry<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 200;
  const shouldRetry = options.shouldRetry ?? (() => true);
  const sleep = options.sleep ?? defaultSleep;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await fn();
    } catch (err) {
      lastError = err;
      if (attempt === attempts || !shouldRetry(err)) {
        break;
      }
      await sleep(baseDelayMs * 2 ** (attempt - 1));
    }
  }
  throw lastError;
}
''')

RETRY_STEP = ("Add retry with exponential backoff to fetchUser() in src/api/client.ts "
              "(3 attempts, 200ms base delay) via a reusable helper.")

FORMAT_CURRENCY_TS = F(r'''

/** Formats an amount in cents, e.g. formatCurrency(123456, "EUR") -> "€1,234.56". */
export function formatCurrency(amountCents: number, currency: string, locale = "en-US"): string {
  if (!Number.isInteger(amountCents)) {
    throw new RangeError(`amountCents must be an integer, got ${amountCents}`);
  }
  return new Intl.NumberFormat(locale, { style: "currency", currency }).format(amountCents / 100);
}
''')

FORMAT_CURRENCY_TEST_TS = F(r'''

describe("formatCurrency", () => {
  it("formats cents with the currency symbol", () => {
    expect(formatCurrency(123456, "USD")).toBe("$1,234.56");
  });

  it("rejects fractional cents", () => {
    expect(() => formatCurrency(1.5, "USD")).toThrow(RangeError);
  });
});
''')


def build(make: ChangeMaker, cases: CaseSet) -> None:
    """Every TypeScript case, in the order that numbers their steps (see CaseSet)."""
    _rename_foo_to_bar(make, cases)
    retry = _retry_helper(make, cases)
    _retry_fix_regressions(make, cases, retry)
    _todo_comment_instead_of_retry(make, cases)
    currency = _format_currency(make, cases)
    _format_currency_fix_regression(make, cases, currency)
    _requested_jsdoc_only(make, cases)
    _delete_deprecated_module(make, cases)
    _package_json_and_tsconfig(make, cases)
    _dotdot_inside_src(make, cases)
    _renames(make, cases)
    _binary_files(make, cases)
    _path_with_spaces(make, cases)
    _large_fixture(make, cases)
    _vendored_edit(make, cases)
    _failure_report(cases)


def _rename_foo_to_bar(make: ChangeMaker, cases: CaseSet) -> None:
    """One rename across three files."""
    ren = make.change("ts", [
        ("edit", "src/serviceA.ts", "export function foo(orders", "export function bar(orders"),
        ("edit", "src/serviceA.ts", "const open = foo(orders);", "const open = bar(orders);"),
        ("edit", "src/index.ts", "export { ServiceA, foo } from", "export { ServiceA, bar } from"),
        ("edit", "test/serviceA.test.ts", "import { ServiceA, foo } from", "import { ServiceA, bar } from"),
        ("edit", "test/serviceA.test.ts", 'describe("foo", () => {', 'describe("bar", () => {'),
        ("edit", "test/serviceA.test.ts", "expect(foo(orders)", "expect(bar(orders)"),
    ])
    d_ren = "Rename foo to bar in src/serviceA.ts and update its export and the tests."
    st, rs = cases.add("valid/ts-rename-foo-to-bar", mk_step(d_ren, allowed=["src/**", "test/**"]),
                       mk_result(ren, "Renamed foo() to bar() in serviceA.ts, index.ts and the test."))
    cases.add("scope_outside_allowed/ts-test-outside-src", with_(st, allowedFiles=["src/**"]), rs,
              "scope_outside_allowed")
    cases.add("mode_mismatch/ts-apply-step-fix-result", st, with_(rs, mode="fix_regression"),
              "mode_mismatch")
    cases.add("files_touched_incomplete/ts-missing-index", st,
              with_(rs, filesTouched=["src/serviceA.ts", "test/serviceA.test.ts"]),
              "files_touched_incomplete")
    cases.add("malformed_patch/ts-bare-plus-minus-lines", st,
              with_(rs, patch="\n".join(plus_minus_only(ren.patch)) + "\n"), "malformed_patch")


def _retry_helper(make: ChangeMaker, cases: CaseSet) -> Change:
    """A new helper module and the client change that uses it."""
    retry = make.change("ts", [
        ("write", "src/api/retry.ts", RETRY_TS),
        ("edit", "src/api/client.ts", 'import { logger } from "../utils/logger";\n',
         'import { logger } from "../utils/logger";\nimport { withRetry } from "./retry";\n'),
        ("edit", "src/api/client.ts",
         "    return this.request<User>(`/users/${encodeURIComponent(id)}`);\n",
         "    return withRetry(() => this.request<User>(`/users/${encodeURIComponent(id)}`), {\n"
         "      attempts: 3,\n"
         "      baseDelayMs: 200,\n"
         "      shouldRetry: (err) => err instanceof HttpError,\n"
         "    });\n"),
    ])
    st, rs = cases.add("valid/ts-retry-helper-new-file", mk_step(RETRY_STEP, allowed=["src/**"]),
                       mk_result(retry, "Added withRetry() in src/api/retry.ts and used it in fetchUser()."))
    cases.add("undeclared_file/ts-hidden-new-module", st,
              with_(rs, filesWritten=["src/api/client.ts"], filesTouched=["src/api/client.ts"]),
              "undeclared_file")
    cases.add("failure_with_patch/ts-failed-but-patch", st,
              with_(rs, success=False, filesWritten=[], filesTouched=[],
                    summary="Could not finish: vitest times out in the sandbox."),
              "failure_with_patch")
    cases.add("missing_patch/ts-empty-string", st, with_(rs, patch=""), "missing_patch")
    return retry


def _retry_fix_regressions(make: ChangeMaker, cases: CaseSet, retry: Change) -> None:
    retry_fix = make.followup(retry, [
        ("edit", "src/api/client.ts", "      shouldRetry: (err) => err instanceof HttpError,\n",
         "      // 4xx answers are final; retry 5xx and network errors only.\n"
         "      shouldRetry: (err) => !(err instanceof HttpError) || err.status >= 500,\n"),
    ])
    d_fix = ("Fix regression: fetchUser() now retries 404 responses three times, which "
             "slows down the not-found page; only retry 5xx and network errors.")
    cases.add("valid/ts-fix-regression-retry-5xx-only", mk_step(d_fix, "fix_regression", apply=retry),
              mk_result(retry_fix, "shouldRetry now skips 4xx HttpErrors.", "fix_regression"))
    wide = make.followup(retry, [
        ("edit", "src/api/client.ts", "      shouldRetry: (err) => err instanceof HttpError,\n",
         "      shouldRetry: (err) => isRetryable(err),\n"),
        ("edit", "src/types.ts", "export interface Page<T> {",
         "export function isRetryable(err: unknown): boolean {\n"
         "  const status = (err as { status?: number }).status;\n"
         "  return status === undefined || status >= 500;\n}\n\nexport interface Page<T> {"),
        ("edit", "src/api/client.ts", 'import { Order, User } from "../types";',
         'import { Order, User, isRetryable } from "../types";'),
    ])
    cases.add("scope_fix_regression/ts-touches-types", mk_step(d_fix, "fix_regression", apply=retry),
              mk_result(wide, "Moved the retry predicate into types.ts as isRetryable().",
                        "fix_regression"), "scope_fix_regression")
    rev = make.reverse(retry)
    assert "deleted file mode" in rev.patch
    cases.add("reversal/ts-reverse-deletes-helper", mk_step(d_fix, "fix_regression", apply=retry),
              mk_result(rev, "Reverted the retry change; fetchUser calls request() directly.",
                        "fix_regression"), "reversal")


def _todo_comment_instead_of_retry(make: ChangeMaker, cases: CaseSet) -> None:
    sup = make.change("ts", [
        ("edit", "src/api/client.ts", "  async fetchUser(id: string): Promise<User> {\n",
         "  // TODO: retry with exponential backoff (3 attempts, 200ms base delay).\n"
         "  // Transient 5xx errors from the gateway should not surface to the UI.\n"
         "  async fetchUser(id: string): Promise<User> {\n"),
    ])
    cases.add("placeholder_only/ts-todo-comment-instead-of-retry", mk_step(RETRY_STEP, allowed=["src/**"]),
              mk_result(sup, "Added retry with exponential backoff to fetchUser()."), "placeholder_only")


def _format_currency(make: ChangeMaker, cases: CaseSet) -> Change:
    cur = make.change("ts", [
        ("append", "src/utils/format.ts", FORMAT_CURRENCY_TS),
        ("edit", "test/format.test.ts", 'import { formatDate, pluralize, truncate } from "../src/utils/format";',
         'import { formatCurrency, formatDate, pluralize, truncate } from "../src/utils/format";'),
        ("append", "test/format.test.ts", FORMAT_CURRENCY_TEST_TS),
    ])
    d_cur = ("Add formatCurrency(amountCents, currency) to src/utils/format.ts using "
             "Intl.NumberFormat and cover it in test/format.test.ts.")
    st, rs = cases.add("valid/ts-format-currency-with-test", mk_step(d_cur, excluded=["vendor/**", "dist/"]),
                       mk_result(cur, "Added formatCurrency() and two tests."))
    cases.add("invalid_mode/ts-fix", st, with_(rs, mode="fix"), "invalid_mode")
    cases.add("malformed_patch/ts-context-only-format", st, with_(rs, patch=to_context_only(cur.patch)),
              "malformed_patch")  # git apply: a hunk without + or - lines is corrupt
    cases.add("file_not_in_patch/ts-claims-index", st,
              with_extra_file(rs, "src/index.ts"), "file_not_in_patch")
    return cur


def _format_currency_fix_regression(make: ChangeMaker, cases: CaseSet, cur: Change) -> None:
    cur_fix = make.followup(cur, [
        ("edit", "src/utils/format.ts",
         "  return new Intl.NumberFormat(locale, { style: \"currency\", currency }).format(amountCents / 100);\n",
         "  const formatted = new Intl.NumberFormat(locale, { style: \"currency\", currency }).format(\n"
         "    Math.abs(amountCents) / 100,\n  );\n"
         "  return amountCents < 0 ? `-${formatted}` : formatted;\n"),
        ("edit", "test/format.test.ts", '  it("rejects fractional cents", () => {',
         '  it("puts the sign before the symbol", () => {\n'
         '    expect(formatCurrency(-250, "USD")).toBe("-$2.50");\n  });\n\n'
         '  it("rejects fractional cents", () => {'),
    ])
    cases.add("valid/ts-fix-regression-negative-amounts",
              mk_step("Fix regression: formatCurrency(-250, \"USD\") renders \"($2.50)\" in some "
                      "locales; always put a leading minus sign before the symbol.", "fix_regression",
                      apply=cur),
              mk_result(cur_fix, "Negative amounts are formatted as -$2.50; added a test.", "fix_regression"))


def _requested_jsdoc_only(make: ChangeMaker, cases: CaseSet) -> None:
    jsdoc = make.change("ts", [
        ("edit", "src/api/client.ts",
         "  /**\n   * Performs a request and parses the JSON body.\n   */\n",
         "  /**\n   * Performs a request and parses the JSON body.\n   *\n"
         "   * The request is aborted after `timeoutMs` (default 10s); an aborted request\n"
         "   * rejects with the AbortError from fetch. Non-2xx answers reject with an\n"
         "   * {@link HttpError} carrying the status code.\n   */\n"),
    ])
    cases.add("valid/ts-jsdoc-only-requested",
              mk_step("Expand the JSDoc comment of ApiClient.request() in src/api/client.ts to "
                      "document the timeout and error behaviour. Comment only, no code changes."),
              mk_result(jsdoc, "Documented timeout and HttpError behaviour in request()'s JSDoc."),
              tags=["comment-only"])


def _delete_deprecated_module(make: ChangeMaker, cases: CaseSet) -> None:
    dep = make.change("ts", [
        ("rm", "src/utils/deprecated.ts"),
        ("edit", "src/index.ts", 'export { plural, toShortDate } from "./utils/deprecated";\n', ""),
    ])
    st, rs = cases.add("valid/ts-delete-deprecated-module",
                       mk_step("Delete src/utils/deprecated.ts (unused since 2.0) and its re-export "
                               "in src/index.ts.", allowed=["src/"]),
                       mk_result(dep, "Removed deprecated.ts and its export."))
    cases.add("missing_files_written/ts-empty-list", st, with_(rs, filesWritten=[]), "missing_files_written")


def _package_json_and_tsconfig(make: ChangeMaker, cases: CaseSet) -> None:
    pkg = make.change("ts", [
        ("edit", "package.json", '    "typecheck": "tsc --noEmit"\n',
         '    "typecheck": "tsc --noEmit",\n    "lint": "eslint \\"src/**/*.ts\\" \\"test/**/*.ts\\""\n'),
        ("edit", "package.json", '    "@types/node": "^20.11.0",\n',
         '    "@types/node": "^20.11.0",\n    "@typescript-eslint/parser": "^6.19.0",\n'
         '    "eslint": "^8.56.0",\n'),
    ])
    cases.add("valid/ts-package-json-lint-script",
              mk_step("Add a `lint` npm script running eslint over src and test, with the "
                      "eslint dev dependencies.", allowed=["package.json"], excluded=["*.lock"]),
              mk_result(pkg, "Added the lint script plus eslint and @typescript-eslint/parser."))
    strict = make.change("ts", [("edit", "tsconfig.json", '"strict": false', '"strict": true')])
    cases.add("valid/ts-tsconfig-strict",
              mk_step("Enable strict type checking in tsconfig.json."),
              mk_result(strict, "Set compilerOptions.strict to true."))


def _dotdot_inside_src(make: ChangeMaker, cases: CaseSet) -> None:
    """Made under escape/, then moved to src/../../, outside the repository (relocated_result)."""
    esc = make.change("ts", [
        ("write", "escape/shared/tsconfig.base.json",
         '{\n  "compilerOptions": {\n    "strict": false,\n    "target": "ES2020"\n  }\n}\n'),
    ])
    unsafe = make.followup(esc, [
        ("edit", "escape/shared/tsconfig.base.json", '"strict": false', '"strict": true'),
    ])
    cases.add("unsafe_path/ts-dotdot-inside-src",
              mk_step("Enable strict type checking for the project."),
              relocated_result(unsafe, "Enabled strict mode in the shared base config.",
                               "escape/", "src/../../"), "unsafe_path")


def _renames(make: ChangeMaker, cases: CaseSet) -> None:
    """A pure rename of a doc, then a rename with its import updated."""
    mvdoc = make.change("ts", [("mv", "docs/CONTRIBUTING.md", "CONTRIBUTING.md")], flags=("-M",))
    cases.add("valid/ts-pure-rename-contributing",
              mk_step("Move docs/CONTRIBUTING.md to the repository root so GitHub shows it."),
              mk_result(mvdoc, "git mv docs/CONTRIBUTING.md CONTRIBUTING.md (no content change)."))
    mvlog = make.change("ts", [
        ("mv", "src/utils/logger.ts", "src/lib/logger.ts"),
        ("edit", "src/api/client.ts", 'import { logger } from "../utils/logger";',
         'import { logger } from "../lib/logger";'),
    ], flags=("-M",))
    cases.add("valid/ts-move-logger-update-import",
              mk_step("Move src/utils/logger.ts to src/lib/logger.ts and fix the import.",
                      allowed=["src/**"]),
              mk_result(mvlog, "Moved logger.ts to src/lib and updated client.ts."))


def _binary_files(make: ChangeMaker, cases: CaseSet) -> None:
    """`GIT binary patch` (--binary) and `Binary files ... differ`, which no tool can apply: malformed."""
    logo = fake_binary(21, 1400, PNG_MAGIC)
    img = make.change("ts", [
        ("write", "public/logo.png", logo),
        ("edit", "docs/User Guide.md", "# User guide\n",
         "# User guide\n\n![ACME web client](../public/logo.png)\n"),
    ], flags=("--binary",))
    assert "GIT binary patch" in img.patch
    st, rs = cases.add("valid/ts-binary-logo-git-binary-patch",
                       mk_step("Add the new brand logo as public/logo.png and show it at the top of "
                               "docs/User Guide.md."),
                       mk_result(img, "Added public/logo.png and referenced it in the user guide."))
    cases.add("undeclared_file/ts-hidden-binary", st,
              with_(rs, filesWritten=["docs/User Guide.md"], filesTouched=["docs/User Guide.md"]),
              "undeclared_file")
    fav = fake_binary(22, 318, ICO_MAGIC)
    ico = make.change("ts", [("write", "public/favicon.ico", fav)], check=False)
    assert "Binary files a/public/favicon.ico and b/public/favicon.ico differ" in ico.patch
    cases.add("malformed_patch/ts-binary-favicon-differ",
              mk_step("Replace public/favicon.ico with the new 16x16 icon from design."),
              mk_result(ico, "Replaced favicon.ico."), "malformed_patch", tags=["typescript"])
    ico2 = make.change("ts", [("write", "public/favicon.ico", fake_binary(23, 318, ICO_MAGIC))],
                       flags=("--binary",))
    assert "GIT binary patch" in ico2.patch
    cases.add("valid/ts-binary-favicon-git-binary-patch",
              mk_step("Replace public/favicon.ico with the dark-mode icon; send a binary patch "
                      "that git can apply."),
              mk_result(ico2, "Replaced favicon.ico (git binary patch)."),
              tags=["typescript"])


def _path_with_spaces(make: ChangeMaker, cases: CaseSet) -> None:
    guide = make.change("ts", [
        ("edit", "docs/User Guide.md", "[the API reference](./api-reference.md)",
         "[the API reference](./API.md)"),
    ])
    assert "--- a/docs/User Guide.md\t" in guide.patch  # git adds a TAB after names with spaces
    st, rs = cases.add("valid/ts-path-with-spaces",
                       mk_step("Fix the broken API reference link in docs/User Guide.md (the file "
                               "is docs/API.md now).", allowed=["docs/**"]),
                       mk_result(guide, "Pointed the link at ./API.md."), tags=["space-path"])
    cases.add("invalid_mode/ts-empty-mode", st, with_(rs, mode=""), "invalid_mode")


def _large_fixture(make: ChangeMaker, cases: CaseSet) -> None:
    """Over 2000 changed lines: seeded sample users."""
    rnd = random.Random(2024)
    first = ["Ada", "Grace", "Linus", "Ken", "Barbara", "Edsger", "Frances", "Donald", "Radia",
             "Margaret", "Dennis", "John", "Alan", "Katherine", "Niklaus", "Guido"]
    last = ["Lovelace", "Hopper", "Torvalds", "Thompson", "Liskov", "Dijkstra", "Allen", "Knuth",
            "Perlman", "Hamilton", "Ritchie", "McCarthy", "Turing", "Johnson", "Wirth", "Rossum"]
    users = []
    for i in range(310):
        f, l = rnd.choice(first), rnd.choice(last)
        users.append({
            "id": f"u_{i:04d}",
            "email": f"{f.lower()}.{l.lower()}{i}@example.test",
            "displayName": f"{f} {l}",
            "createdAt": f"2023-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}T09:00:00Z",
            "roles": [rnd.choice(["admin", "editor", "viewer"])],
        })
    big = make.change("ts", [("write", "test/fixtures/users.json",
                              json.dumps({"items": users}, indent=2) + "\n")])
    assert sum(change_counts(big.patch)) > 2000
    cases.add("valid/ts-large-users-fixture",
              mk_step("Add a fixture test/fixtures/users.json with about 300 sample users for the "
                      "pagination tests.", allowed=["test/fixtures/**"]),
              mk_result(big, "Added test/fixtures/users.json with 310 generated users."))


def _vendored_edit(make: ChangeMaker, cases: CaseSet) -> None:
    vend = make.change("ts", [
        ("edit", "src/utils/format.ts", 'import leftPad from "left-pad";\n\n', ""),
        ("edit", "src/utils/format.ts",
         '  const month = leftPad(String(d.getUTCMonth() + 1), 2, "0");\n'
         '  const day = leftPad(String(d.getUTCDate()), 2, "0");\n',
         '  const month = String(d.getUTCMonth() + 1).padStart(2, "0");\n'
         '  const day = String(d.getUTCDate()).padStart(2, "0");\n'),
        ("edit", "vendor/left-pad/index.js", "module.exports = leftPad;\n",
         "module.exports = leftPad;\nmodule.exports.deprecated = true;\n"),
    ])
    cases.add("scope_excluded/ts-vendor-left-pad",
              mk_step("Replace left-pad with String.prototype.padStart in formatDate().",
                      excluded=["vendor/**", "dist/"]),
              mk_result(vend, "formatDate uses padStart; marked vendored left-pad as deprecated."),
              "scope_excluded")


def _failure_report(cases: CaseSet) -> None:
    cases.add("valid/ts-failure-report-renamed-upstream",
              mk_step("Add a cache to ApiClient.fetchUser() keyed by user id."),
              mk_failure("Could not apply: src/api/client.ts has no fetchUser() on this branch; it "
                         "was renamed to getUser() upstream.", touched=["src/api/client.ts"], omit=True),
              project="ts")
