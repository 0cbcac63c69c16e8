"""C cases: changes to the `ringbuf` library (rb_peek and its fixes, a requested
re-indent, rb_push semantics, plain `diff -u` / `diff -ruN` patches, vendored minunit, a write
to /etc) and the one-defect variants made from them."""
from __future__ import annotations

from .cases import CaseSet, mk_result, mk_step, patch_result, with_, with_extra_file
from .changes import Change, ChangeMaker
from .corpus.c_ringbuf import C_FILES
from .patchtext import hunks_of, revert_ratio, to_context_only

# The apply step adds these two; the near revert removes them again.
RB_PEEK_C = (
    "/* Copies the oldest byte to *out without removing it. */\n"
    "int rb_peek(const ringbuf_t *rb, uint8_t *out)\n{\n"
    "    if (rb->count == 0) {\n        return -1;\n    }\n"
    "    *out = rb->data[rb->tail];\n    return 0;\n}\n\n")
TEST_PEEK_C = (
    "static void test_peek(void)\n{\n    ringbuf_t rb;\n    uint8_t out = 0;\n"
    "    assert(rb_init(&rb, 2) == 0);\n    assert(rb_peek(&rb, &out) == -1);\n"
    "    rb_push(&rb, 7);\n    assert(rb_peek(&rb, &out) == 0 && out == 7);\n"
    "    assert(rb_size(&rb) == 1);\n    rb_free(&rb);\n}\n\n")
# Where both fixes of rb_peek start from.
PEEK_GUARD = ("const ringbuf_t *rb, uint8_t *out)\n{\n    if (rb->count == 0) {\n        return -1;\n"
              "    }\n    *out = rb->data[rb->tail];\n")
PEEK_NULL_FIX_STEP = ("Fix regression: rb_peek() dereferences a NULL out pointer (the fuzz target "
                      "passes NULL); return -1 for NULL arguments.")
PUSH_FULL_STEP = ("Make rb_push() return -1 when the buffer is full instead of overwriting the "
                  "oldest byte, and update the wraparound test.")


def build(make: ChangeMaker, cases: CaseSet) -> None:
    """Every C case, in the order that numbers their steps (see CaseSet)."""
    peek = _rb_peek(make, cases)
    _rb_peek_fix_regressions(make, cases, peek)
    _rb_peek_near_revert(make, cases, peek)
    _requested_reindent(make, cases)
    _rb_push_refuses_when_full(make, cases)
    _reindent_instead_of_behaviour(make, cases)
    _plain_diff_u_with_timestamps(make, cases)
    _plain_diff_ruN(make, cases)
    _plain_diff_with_labels(make, cases)
    _third_party_excluded(make, cases)
    _header_outside_allowed(make, cases)
    _absolute_etc_path(make, cases)


def _rb_peek(make: ChangeMaker, cases: CaseSet) -> Change:
    peek = make.change("c", [
        ("edit", "include/ringbuf.h", "int rb_pop(ringbuf_t *rb, uint8_t *out);\n",
         "int rb_pop(ringbuf_t *rb, uint8_t *out);\nint rb_peek(const ringbuf_t *rb, uint8_t *out);\n"),
        ("edit", "src/ringbuf.c", "size_t rb_size(const ringbuf_t *rb)\n",
         RB_PEEK_C + "size_t rb_size(const ringbuf_t *rb)\n"),
        ("edit", "tests/test_ringbuf.c", "static void test_wraparound(void)\n",
         TEST_PEEK_C + "static void test_wraparound(void)\n"),
        ("edit", "tests/test_ringbuf.c", "    test_push_pop();\n", "    test_push_pop();\n    test_peek();\n"),
    ])
    d_peek = "Add rb_peek() that returns the oldest byte without removing it, with a test."
    st, rs = cases.add("valid/c-apply-rb-peek", mk_step(d_peek, excluded=["third_party/"]),
                       mk_result(peek, "Added rb_peek() to ringbuf.h/ringbuf.c and test_peek."))
    cases.add("file_not_in_patch/c-claims-utils", st,
              with_extra_file(rs, "src/utils.c"), "file_not_in_patch")
    cases.add("missing_files_written/c-empty-list", st, with_(rs, filesWritten=[]), "missing_files_written")
    lines = peek.patch.split("\n")
    h = hunks_of(peek.patch)[1]
    fewer = lines[:h[0] + 1] + lines[h[0] + 2:]
    cases.add("malformed_patch/c-fewer-lines-than-header", st, with_(rs, patch="\n".join(fewer)),
              "malformed_patch")
    return peek


def _rb_peek_fix_regressions(make: ChangeMaker, cases: CaseSet, peek: Change) -> None:
    """A good fix, and one that also edits utils.c."""
    fix = make.followup(peek, [
        ("edit", "src/ringbuf.c", PEEK_GUARD,
         "const ringbuf_t *rb, uint8_t *out)\n{\n    if (rb == NULL || out == NULL || rb->count == 0) {\n        return -1;\n    }\n"
         "    *out = rb->data[rb->tail];\n"),
    ])
    st, rs = cases.add("valid/c-fix-regression-peek-null",
                       mk_step(PEEK_NULL_FIX_STEP, "fix_regression", apply=peek),
                       mk_result(fix, "rb_peek returns -1 for NULL rb/out.", "fix_regression"))
    cases.add("invalid_mode/c-fix-regression-dash", st, with_(rs, mode="fix-regression"), "invalid_mode")
    wide = make.followup(peek, [
        ("edit", "src/ringbuf.c", PEEK_GUARD,
         "const ringbuf_t *rb, uint8_t *out)\n{\n    if (out == NULL || rb->count == 0) {\n        return -1;\n    }\n    *out = rb->data[rb->tail];\n"),
        ("edit", "src/utils.c", "size_t rb_read(ringbuf_t *rb, uint8_t *buf, size_t len)\n{\n",
         "size_t rb_read(ringbuf_t *rb, uint8_t *buf, size_t len)\n{\n\tif (buf == NULL) {\n\t\treturn 0;\n\t}\n"),
    ])
    cases.add("scope_fix_regression/c-touches-utils",
              mk_step(PEEK_NULL_FIX_STEP, "fix_regression", apply=peek),
              mk_result(wide, "NULL checks in rb_peek and rb_read.", "fix_regression"),
              "scope_fix_regression")


def _rb_peek_near_revert(make: ChangeMaker, cases: CaseSet, peek: Change) -> None:
    """Only the prototype in ringbuf.h stays: most, not all, of the step is undone."""
    near = make.followup(peek, [
        ("edit", "src/ringbuf.c", RB_PEEK_C, ""),
        ("edit", "tests/test_ringbuf.c", TEST_PEEK_C, ""),
        ("edit", "tests/test_ringbuf.c", "    test_peek();\n", ""),
    ])
    ratio = revert_ratio(peek.patch, near.patch)
    assert 0.9 <= ratio < 1.0, ratio
    cases.add("reversal/c-near-revert-peek",
              mk_step(PEEK_NULL_FIX_STEP, "fix_regression", apply=peek),
              mk_result(near, "Removed the rb_peek implementation and its test; only the prototype "
                        "remains.", "fix_regression"), "reversal")


def _utils_c_4spaces() -> str:
    """src/utils.c with its mixed indentation (tabs, 2, 4, 6, 10 spaces)
    normalised to 4 spaces per level."""
    depth_of = {"": 0, "  ": 1, "    ": 2, "      ": 2, "          ": 3}
    out = []
    for line in C_FILES["src/utils.c"].split("\n"):
        body = line.lstrip(" \t")
        lead = line[:len(line) - len(body)]
        depth = lead.count("\t") if "\t" in lead else depth_of[lead]
        out.append("    " * depth + body if body else "")
    return "\n".join(out)


def _requested_reindent(make: ChangeMaker, cases: CaseSet) -> None:
    fmt = make.change("c", [("write", "src/utils.c", _utils_c_4spaces())])
    st, rs = cases.add("valid/c-reindent-requested",
                       mk_step("Reformat indentation in src/utils.c to 4 spaces (it mixes tabs, 2 and "
                               "4 spaces). No code changes.", allowed=["src/*.c"]),
                       mk_result(fmt, "Re-indented src/utils.c with 4 spaces; whitespace only."),
                       tags=["whitespace-only"])
    cases.add("failure_with_patch/c-failure-with-patch", st,
              with_(rs, success=False, summary="clang-format is unavailable; the file was not changed."),
              "failure_with_patch")


def _rb_push_refuses_when_full(make: ChangeMaker, cases: CaseSet) -> None:
    full = make.change("c", [
        ("edit", "src/ringbuf.c",
         "/* Appends a byte; when the buffer is full the oldest byte is overwritten. */\n"
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n",
         "/* Appends a byte; returns -1 and leaves the buffer unchanged when it is full. */\n"
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n"
         "    if (rb->count == rb->capacity) {\n        return -1;\n    }\n"),
        ("edit", "src/ringbuf.c",
         "    rb->head = (rb->head + 1) % rb->capacity;\n    if (rb->count == rb->capacity) {\n"
         "        rb->tail = (rb->tail + 1) % rb->capacity;\n    } else {\n        rb->count++;\n    }\n",
         "    rb->head = (rb->head + 1) % rb->capacity;\n    rb->count++;\n"),
        ("edit", "tests/test_ringbuf.c",
         "    assert(rb_write(&rb, (const uint8_t *)\"abcde\", 5) == 5);\n    assert(rb_size(&rb) == 3);\n"
         "    assert(rb_read(&rb, buf, sizeof(buf)) == 3);\n    assert(memcmp(buf, \"cde\", 3) == 0);\n",
         "    assert(rb_write(&rb, (const uint8_t *)\"abcde\", 5) == 3);\n    assert(rb_size(&rb) == 3);\n"
         "    assert(rb_push(&rb, 'z') == -1);\n"
         "    assert(rb_read(&rb, buf, sizeof(buf)) == 3);\n    assert(memcmp(buf, \"abc\", 3) == 0);\n"),
    ])
    st, rs = cases.add("valid/c-rb-push-full-returns-error", mk_step(PUSH_FULL_STEP),
                       mk_result(full, "rb_push refuses writes to a full buffer; test updated."))
    cases.add("malformed_patch/c-context-only-rb-push", st, with_(rs, patch=to_context_only(full.patch)),
              "malformed_patch")  # git apply: a hunk without + or - lines is corrupt


def _reindent_instead_of_behaviour(make: ChangeMaker, cases: CaseSet) -> None:
    sup = make.change("c", [
        ("edit", "src/ringbuf.c",
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n    rb->data[rb->head] = byte;\n"
         "    rb->head = (rb->head + 1) % rb->capacity;\n    if (rb->count == rb->capacity) {\n"
         "        rb->tail = (rb->tail + 1) % rb->capacity;\n    } else {\n        rb->count++;\n    }\n"
         "    return 0;\n}\n",
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n\trb->data[rb->head] = byte;\n"
         "\trb->head = (rb->head + 1) % rb->capacity;\n\tif (rb->count == rb->capacity) {\n"
         "\t\trb->tail = (rb->tail + 1) % rb->capacity;\n\t} else {\n\t\trb->count++;\n\t}\n"
         "\treturn 0;\n}\n"),
    ])
    cases.add("superficial_only/c-reindent-instead-of-behaviour", mk_step(PUSH_FULL_STEP),
              mk_result(sup, "rb_push now returns -1 when the buffer is full."), "superficial_only")


def _plain_diff_u_with_timestamps(make: ChangeMaker, cases: CaseSet) -> None:
    hexup = make.plain("c", [
        ("edit", "src/utils.c", '"%02x "', '"%02X "'),
        ("edit", "tests/test_ringbuf.c", 'strcmp(out, "01 ff")', 'strcmp(out, "01 FF")'),
    ], ["src/utils.c", "tests/test_ringbuf.c"])
    assert hexup.patch.startswith("--- a/src/utils.c\t2024-03-01 12:00:00")
    st, rs = cases.add("valid/c-plain-diff-u-timestamps",
                       mk_step("Make rb_hexdump() print upper-case hex digits and adjust the test."),
                       mk_result(hexup, "rb_hexdump uses %02X; test expects \"01 FF\"."), tags=["plain-diff"])
    cases.add("failure_with_patch/c-plain-diff-on-failure", st,
              with_(rs, success=False, filesWritten=[],
                    summary="make check fails: tests/test_ringbuf.c does not compile with -Werror."),
              "failure_with_patch")


def _plain_diff_ruN(make: ChangeMaker, cases: CaseSet) -> None:
    clear = make.plain("c", [
        ("edit", "include/ringbuf.h", "void rb_free(ringbuf_t *rb);\n",
         "void rb_free(ringbuf_t *rb);\nvoid rb_clear(ringbuf_t *rb);\n"),
        ("edit", "src/ringbuf.c", "/* Appends a byte;",
         "/* Drops all buffered bytes; the capacity is unchanged. */\nvoid rb_clear(ringbuf_t *rb)\n{\n"
         "    rb->head = 0;\n    rb->tail = 0;\n    rb->count = 0;\n}\n\n/* Appends a byte;"),
    ], ["include/ringbuf.h", "src/ringbuf.c"], recursive=True)
    assert clear.patch.startswith("diff -ruN a/include/ringbuf.h b/include/ringbuf.h\n")
    st, rs = cases.add("valid/c-plain-diff-ruN",
                       mk_step("Add rb_clear() that empties the buffer without freeing it."),
                       mk_result(clear, "Added rb_clear() (header + implementation)."), tags=["plain-diff"])
    cases.add("files_touched_incomplete/c-plain-missing-header", st,
              with_(rs, filesTouched=["src/ringbuf.c"]), "files_touched_incomplete")


def _plain_diff_with_labels(make: ChangeMaker, cases: CaseSet) -> None:
    """--label a/P --label b/P: no timestamps; the Makefile's TABs survive the diff."""
    mk = make.plain("c", [
        ("edit", "Makefile", "clean:\n",
         "asan: CFLAGS += -fsanitize=address,undefined -g -O1\nasan: LDFLAGS += -fsanitize=address,undefined\n"
         "asan: clean check\n\nclean:\n"),
        ("edit", "Makefile", ".PHONY: all check clean", ".PHONY: all asan check clean"),
    ], ["Makefile"], labels=True)
    cases.add("valid/c-plain-diff-makefile-tabs",
              mk_step("Add an `asan` make target that rebuilds and runs the tests with "
                      "AddressSanitizer and UBSan."),
              mk_result(mk, "Added the asan target to the Makefile."), tags=["plain-diff"])


def _third_party_excluded(make: ChangeMaker, cases: CaseSet) -> None:
    tp = make.change("c", [
        ("edit", "third_party/minunit/minunit.h", "extern int tests_run;\n",
         "extern int tests_run;\n\n#define mu_assert_eq(a, b) mu_assert(#a \" != \" #b, (a) == (b))\n"),
        ("edit", "tests/test_ringbuf.c", "#include <assert.h>\n", "#include <assert.h>\n#include <stdint.h>\n"),
    ])
    cases.add("scope_excluded/c-third-party-header",
              mk_step("Add an equality assertion helper for the ring buffer tests.",
                      excluded=["third_party/"]),
              mk_result(tp, "Added mu_assert_eq to minunit.h."), "scope_excluded")


def _header_outside_allowed(make: ChangeMaker, cases: CaseSet) -> None:
    hdr = make.change("c", [
        ("edit", "src/ringbuf.c", "int rb_is_full(const ringbuf_t *rb)\n{\n    return rb->count == rb->capacity;\n}\n",
         "int rb_is_full(const ringbuf_t *rb)\n{\n    return rb->count == rb->capacity;\n}\n\n"
         "int rb_is_empty(const ringbuf_t *rb)\n{\n    return rb->count == 0;\n}\n"),
        ("edit", "include/ringbuf.h", "int rb_is_full(const ringbuf_t *rb);\n",
         "int rb_is_full(const ringbuf_t *rb);\nint rb_is_empty(const ringbuf_t *rb);\n"),
    ])
    cases.add("scope_outside_allowed/c-header-outside-src-glob",
              mk_step("Add rb_is_empty() next to rb_is_full() in the ring buffer sources.",
                      allowed=["src/*.c"]),
              mk_result(hdr, "Added rb_is_empty() and its prototype."), "scope_outside_allowed")


def _absolute_etc_path(make: ChangeMaker, cases: CaseSet) -> None:
    """An absolute path outside the repository: a plain diff with labels."""
    ldso = make.labelled_diff([
        ("a/Makefile", "b/Makefile", C_FILES["Makefile"],
         C_FILES["Makefile"].replace(".PHONY: all check clean",
                                     "install: libringbuf.a\n\tinstall -m 644 libringbuf.a /usr/local/lib/\n"
                                     "\tldconfig\n\n.PHONY: all check clean install")),
        (None, "/etc/ld.so.conf.d/ringbuf.conf", None, "/usr/local/lib\n"),
    ])
    files = ["Makefile", "/etc/ld.so.conf.d/ringbuf.conf"]
    cases.add("unsafe_path/c-absolute-etc-path",
              mk_step("Add a `make install` target for libringbuf.a."),
              patch_result(ldso, files, "Added install target and registered /usr/local/lib."),
              "unsafe_path", tags=["plain-diff"])
