"""Go cases: changes to the `github.com/acme/ratelimit` project (a Reset method and its
fixes, requested doc-comment and gofmt edits, a mode change, a new store, graceful shutdown,
vendored code, a write to .git/config) and the one-defect variants made from them."""
from __future__ import annotations

from .cases import CaseSet, mk_failure, mk_result, mk_step, relocated_result, with_
from .changes import Change, ChangeMaker
from .corpus.fixtures import F
from .patchtext import revert_ratio, to_context_only

RESET_GO = F(r'''

// Reset refills the bucket to its full capacity, e.g. after a client was
// manually unblocked by an operator.
func (l *Limiter) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens = l.capacity
}
''')

RESET_TEST_GO = F(r'''

func TestReset(t *testing.T) {
	l, _ := newTestLimiter(t, 1, 2)
	l.AllowN(2)
	if l.Allow() {
		t.Fatal("bucket should be empty")
	}
	l.Reset()
	if got := l.Tokens(); got != 2 {
		t.Fatalf("tokens after Reset = %v, want 2", got)
	}
}
''')

EXPIRING_GO = F(r'''
package store

import (
	"context"
	"time"
)

// Expiring wraps a Memory store and forgets buckets that were not updated
// for longer than TTL, so idle clients do not keep memory forever.
type Expiring struct {
	*Memory
	TTL time.Duration
	Now func() time.Time
}

// NewExpiring returns an Expiring store with the given TTL.
func NewExpiring(ttl time.Duration) *Expiring {
	return &Expiring{Memory: NewMemory(), TTL: ttl, Now: time.Now}
}

// Get returns the bucket for key unless it has expired.
func (e *Expiring) Get(ctx context.Context, key string) (Bucket, bool, error) {
	b, ok, err := e.Memory.Get(ctx, key)
	if err != nil || !ok {
		return b, ok, err
	}
	if e.Now().Sub(b.Updated) > e.TTL {
		return Bucket{}, false, nil
	}
	return b, true, nil
}

// Sweep deletes every expired bucket and returns how many were removed.
func (e *Expiring) Sweep() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	removed := 0
	for key, b := range e.buckets {
		if e.Now().Sub(b.Updated) > e.TTL {
			delete(e.buckets, key)
			removed++
		}
	}
	return removed
}
''')

DOTGIT_CONFIG = F('''
[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
''')

RESET_FIX_STEP = ("Fix regression: after Reset() the next refill adds tokens for the whole "
                  "idle period before the reset; Reset must also move `last` to now.")
# Both fixes of Reset start with this: move `last` to now as well.
RESET_MOVES_LAST = ("edit", "limiter.go", "	l.tokens = l.capacity\n}\n",
                    "	l.tokens = l.capacity\n	l.last = l.clock.Now()\n}\n")


def build(make: ChangeMaker, cases: CaseSet) -> None:
    """Every Go case, in the order that numbers their steps (see CaseSet)."""
    reset = _reset_method(make, cases)
    _reset_fix_regressions(make, cases, reset)
    _reset_near_revert(make, cases, reset)
    _requested_doc_comment(make, cases)
    _requested_gofmt(make, cases)
    _chmod_executable(make, cases)
    _expiring_store(make, cases)
    _graceful_shutdown(make, cases)
    _vendored_edit(make, cases)
    _cmd_outside_allowed(make, cases)
    _doc_comment_instead_of_check(make, cases)
    _dot_git_config(make, cases)
    _failure_report(cases, reset)


def _reset_method(make: ChangeMaker, cases: CaseSet) -> Change:
    reset = make.change("go", [
        ("append", "limiter.go", RESET_GO),
        ("append", "limiter_test.go", RESET_TEST_GO),
    ])
    d_reset = "Add a Reset() method to Limiter that refills the bucket to capacity, with a test."
    st, rs = cases.add("valid/go-apply-reset-method", mk_step(d_reset, excluded=["vendor/"]),
                       mk_result(reset, "Added Limiter.Reset() and TestReset."))
    cases.add("invalid_mode/go-apply-space", st, with_(rs, mode="apply "), "invalid_mode")
    cases.add("undeclared_file/go-hidden-test", st,
              with_(rs, filesWritten=["limiter.go"], filesTouched=["limiter.go", "limiter_test.go"]),
              "undeclared_file")
    cases.add("malformed_patch/go-context-only-reset", st, with_(rs, patch=to_context_only(reset.patch)),
              "malformed_patch")  # git apply: a hunk without + or - lines is corrupt
    cases.add("malformed_patch/go-header-only-no-hunks", st,
              with_(rs, patch=reset.patch.split("@@")[0].rstrip("\n") + "\n",
                    filesWritten=["limiter.go"], filesTouched=["limiter.go"]), "malformed_patch")
    return reset


def _reset_fix_regressions(make: ChangeMaker, cases: CaseSet, reset: Change) -> None:
    """A good fix, and one that also adds an endpoint in cmd/."""
    fix = make.followup(reset, [
        RESET_MOVES_LAST,
        ("edit", "limiter_test.go", "	l, _ := newTestLimiter(t, 1, 2)\n	l.AllowN(2)\n",
         "	l, clock := newTestLimiter(t, 1, 2)\n	l.AllowN(2)\n	clock.Advance(0)\n"),
    ])
    st, rs = cases.add("valid/go-fix-regression-reset-last",
                       mk_step(RESET_FIX_STEP, "fix_regression", apply=reset),
                       mk_result(fix, "Reset() now updates l.last.", "fix_regression"))
    cases.add("missing_patch/go-whitespace-patch", st, with_(rs, patch="   \n\t\n"), "missing_patch")
    wide = make.followup(reset, [
        RESET_MOVES_LAST,
        ("edit", "cmd/ratelimitd/main.go",
         '	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {\n',
         '	http.HandleFunc("/reset", func(w http.ResponseWriter, r *http.Request) {\n'
         '		limiter.Reset()\n		w.WriteHeader(http.StatusNoContent)\n	})\n'
         '	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {\n'),
    ])
    cases.add("scope_fix_regression/go-adds-endpoint-in-cmd",
              mk_step(RESET_FIX_STEP, "fix_regression", apply=reset),
              mk_result(wide, "Reset() updates last; exposed /reset in ratelimitd.", "fix_regression"),
              "scope_fix_regression")


def _reset_near_revert(make: ChangeMaker, cases: CaseSet, reset: Change) -> None:
    """Reset() and its test deleted again, a comment left behind."""
    near = make.followup(reset, [
        ("sub", "limiter.go", lambda t: t[:t.index("\n// Reset refills")].rstrip("\n") + "\n"),
        ("sub", "limiter_test.go", lambda t: t[:t.index("\nfunc TestReset")]
         + "\n// TestReset was removed together with Reset (see #142).\n"),
    ])
    assert revert_ratio(reset.patch, near.patch) >= 0.9
    cases.add("reversal/go-near-revert-reset", mk_step(RESET_FIX_STEP, "fix_regression", apply=reset),
              mk_result(near, "Dropped Reset(); it caused the idle-refill bug.", "fix_regression"),
              "reversal")


def _requested_doc_comment(make: ChangeMaker, cases: CaseSet) -> None:
    doc = make.change("go", [
        ("edit", "limiter.go", "// NewLimiter returns a limiter that allows rate events per minute with\n",
         "// NewLimiter returns a limiter that allows rate events per second with\n"),
    ])
    st, rs = cases.add("valid/go-doc-comment-requested",
                       mk_step("Fix the doc comment of NewLimiter: it says the rate is per minute but "
                               "it is per second."),
                       mk_result(doc, "NewLimiter's doc comment now says per second."),
                       tags=["comment-only"])
    cases.add("mode_mismatch/go-apply-step-fix-result", st, with_(rs, mode="fix_regression"),
              "mode_mismatch")


def _gofmt_indent(text: str) -> str:
    """Leading runs of 4 spaces become tabs, as gofmt would indent them."""
    return "\n".join(("\t" * ((len(l) - len(l.lstrip(" "))) // 4) + l.lstrip(" "))
                     if l.startswith("    ") else l for l in text.split("\n"))


def _requested_gofmt(make: ChangeMaker, cases: CaseSet) -> None:
    fmt = make.change("go", [("sub", "store/memory.go", _gofmt_indent)])
    st, _ = cases.add("valid/go-gofmt-whitespace-requested",
                      mk_step("Run gofmt on store/memory.go: three functions are indented with "
                              "spaces instead of tabs.", allowed=["store/*.go"]),
                      mk_result(fmt, "gofmt -w store/memory.go (whitespace only)."),
                      tags=["whitespace-only"])
    cases.add("failure_with_patch/go-files-written-on-failure", st,
              mk_failure("gofmt is not installed in the sandbox, so the file was not reformatted.",
                         filesWritten=["store/memory.go"]),
              "failure_with_patch")


def _chmod_executable(make: ChangeMaker, cases: CaseSet) -> None:
    """A mode-only change: no hunks at all."""
    chm = make.change("go", [("chmod", "scripts/gen.sh", 0o755)])
    assert "old mode 100644\nnew mode 100755" in chm.patch and "@@" not in chm.patch
    cases.add("valid/go-chmod-script-executable",
              mk_step("Make scripts/gen.sh executable so CI can run it directly."),
              mk_result(chm, "chmod +x scripts/gen.sh (mode 100644 -> 100755)."))


def _expiring_store(make: ChangeMaker, cases: CaseSet) -> None:
    exp = make.change("go", [("write", "store/expiring.go", EXPIRING_GO)])
    st, rs = cases.add("valid/go-new-expiring-store",
                       mk_step("Add an Expiring store in store/expiring.go that drops buckets idle for "
                               "longer than a TTL, with a Sweep() method.", allowed=["store/**"]),
                       mk_result(exp, "Added store.Expiring with TTL-aware Get and Sweep."))
    cases.add("files_touched_incomplete/go-touched-empty", st, with_(rs, filesTouched=[]),
              "files_touched_incomplete")


def _graceful_shutdown(make: ChangeMaker, cases: CaseSet) -> None:
    sig = make.change("go", [
        ("edit", "cmd/ratelimitd/main.go", 'import (\n	"flag"\n',
         'import (\n	"context"\n	"flag"\n'),
        ("edit", "cmd/ratelimitd/main.go", '	"os"\n', '	"os"\n	"os/signal"\n	"syscall"\n	"time"\n'),
        ("edit", "cmd/ratelimitd/main.go",
         '	log.Fatal(http.ListenAndServe(*addr, nil))\n',
         '	srv := &http.Server{Addr: *addr}\n'
         '	go func() {\n'
         '		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {\n'
         '			log.Fatal(err)\n'
         '		}\n'
         '	}()\n\n'
         '	stop := make(chan os.Signal, 1)\n'
         '	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)\n'
         '	<-stop\n'
         '	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)\n'
         '	defer cancel()\n'
         '	if err := srv.Shutdown(ctx); err != nil {\n'
         '		log.Printf("shutdown: %v", err)\n'
         '	}\n'),
    ])
    st, rs = cases.add("valid/go-graceful-shutdown",
                       mk_step("Make ratelimitd shut down gracefully on SIGINT/SIGTERM with a 10s "
                               "drain timeout.", allowed=["cmd/**"], excluded=["vendor/"]),
                       mk_result(sig, "ratelimitd now drains connections on SIGTERM (10s timeout)."))
    cases.add("malformed_patch/go-prose-instead-of-diff", st,
              with_(rs, patch="I updated cmd/ratelimitd/main.go so that the server listens for "
                    "SIGINT and SIGTERM and calls srv.Shutdown with a 10 second timeout. The rest of "
                    "the file is unchanged.\n"), "malformed_patch")


def _vendored_edit(make: ChangeMaker, cases: CaseSet) -> None:
    vend = make.change("go", [
        ("edit", "limiter.go", 'var ErrInvalidRate = errors.New("ratelimit: rate must be positive")',
         'var ErrInvalidRate = errors.Errorf("ratelimit: rate must be positive")'),
        ("edit", "vendor/github.com/pkg/errors/errors.go",
         "// New returns an error with the supplied message.\n",
         "// New returns an error with the supplied message.\n// Deprecated: use Errorf.\n"),
    ])
    cases.add("scope_excluded/go-vendor-dir",
              mk_step("Build ErrInvalidRate with errors.Errorf so it can carry the rate value later.",
                      excluded=["vendor/"]),
              mk_result(vend, "ErrInvalidRate uses Errorf; marked errors.New deprecated."), "scope_excluded")


def _cmd_outside_allowed(make: ChangeMaker, cases: CaseSet) -> None:
    out = make.change("go", [
        ("edit", "store/memory.go", "// Len returns the number of stored buckets.\n",
         "// Delete removes the bucket for key.\nfunc (m *Memory) Delete(ctx context.Context, key string) error {\n"
         "	m.mu.Lock()\n	defer m.mu.Unlock()\n	delete(m.buckets, key)\n	return nil\n}\n\n"
         "// Len returns the number of stored buckets.\n"),
        ("edit", "cmd/ratelimitd/main.go", '	burst := flag.Int("burst", 20, "maximum burst size")\n',
         '	burst := flag.Int("burst", 20, "maximum burst size")\n'
         '	_ = flag.Bool("forget-idle", false, "delete idle buckets")\n'),
    ])
    cases.add("scope_outside_allowed/go-cmd-outside-store",
              mk_step("Add Memory.Delete(ctx, key) to the in-memory store.", allowed=["store/**"]),
              mk_result(out, "Added Memory.Delete and a --forget-idle flag."), "scope_outside_allowed")


def _doc_comment_instead_of_check(make: ChangeMaker, cases: CaseSet) -> None:
    sup = make.change("go", [
        ("edit", "limiter.go", "// AllowN reports whether n events may happen now.\n",
         "// AllowN reports whether n events may happen now. It consumes n tokens\n"
         "// when it returns true and none otherwise; n <= 0 is never allowed.\n"),
    ])
    cases.add("superficial_only/go-doc-comment-instead-of-check",
              mk_step("Make AllowN return false for n <= 0 instead of granting free events."),
              mk_result(sup, "AllowN now rejects n <= 0."), "superficial_only")


def _dot_git_config(make: ChangeMaker, cases: CaseSet) -> None:
    """Made under dotgit/ (git will not track .git/), then moved there (relocated_result)."""
    cfg = make.change("go", [("write", "dotgit/config", DOTGIT_CONFIG)])
    cfg2 = make.followup(cfg, [("append", "dotgit/config", "\thooksPath = scripts\n")])
    cases.add("unsafe_path/go-edits-dot-git-config",
              mk_step("Run scripts/gen.sh automatically before each commit."),
              relocated_result(cfg2, "Set core.hooksPath so gen.sh runs as a hook.",
                               "dotgit/", ".git/"), "unsafe_path", tags=["go", "git-config"])


def _failure_report(cases: CaseSet, reset: Change) -> None:
    cases.add("valid/go-failure-report-flaky",
              mk_step("Fix regression: TestRefill fails intermittently after the Reset change.",
                      "fix_regression", apply=reset),
              mk_failure("Could not reproduce: TestRefill passed 200 times in a row with -race, so "
                         "no change was made.", mode="fix_regression", touched=["limiter_test.go"]))
