"""The Go project: `github.com/acme/ratelimit`, a token-bucket limiter with a store,
a daemon under cmd/, a generator script and a vendored pkg/errors.
"""
from __future__ import annotations

from .fixtures import F


GO_FILES = {
    "go.mod": F(r'''
module github.com/acme/ratelimit

go 1.21

require github.com/pkg/errors v0.9.1
'''),
    "limiter.go": F(r'''
// Package ratelimit implements a token bucket rate limiter with pluggable
// storage, used by the API gateway to throttle clients.
package ratelimit

import (
	"sync"
	"time"

	"github.com/pkg/errors"
)

// ErrInvalidRate is returned when a limiter is configured with a rate <= 0.
var ErrInvalidRate = errors.New("ratelimit: rate must be positive")

// Clock abstracts time so tests can control it.
type Clock interface {
	Now() time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Limiter is a token bucket. It is safe for concurrent use.
type Limiter struct {
	mu       sync.Mutex
	rate     float64 // tokens per second
	capacity float64
	tokens   float64
	last     time.Time
	clock    Clock
}

// NewLimiter returns a limiter that allows rate events per minute with
// bursts of up to capacity events.
func NewLimiter(rate float64, capacity int) (*Limiter, error) {
	if rate <= 0 {
		return nil, ErrInvalidRate
	}
	clock := realClock{}
	return &Limiter{
		rate:     rate,
		capacity: float64(capacity),
		tokens:   float64(capacity),
		last:     clock.Now(),
		clock:    clock,
	}, nil
}

func (l *Limiter) refill(now time.Time) {
	elapsed := now.Sub(l.last).Seconds()
	if elapsed <= 0 {
		return
	}
	l.tokens += elapsed * l.rate
	if l.tokens > l.capacity {
		l.tokens = l.capacity
	}
	l.last = now
}

// Allow reports whether one event may happen now and consumes a token if so.
func (l *Limiter) Allow() bool {
	return l.AllowN(1)
}

// AllowN reports whether n events may happen now.
func (l *Limiter) AllowN(n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill(l.clock.Now())
	if l.tokens < float64(n) {
		return false
	}
	l.tokens -= float64(n)
	return true
}

// Tokens returns the number of tokens currently available.
func (l *Limiter) Tokens() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill(l.clock.Now())
	return l.tokens
}
'''),
    "limiter_test.go": F(r'''
package ratelimit

import (
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (f *fakeClock) Now() time.Time { return f.t }

func (f *fakeClock) Advance(d time.Duration) { f.t = f.t.Add(d) }

func newTestLimiter(t *testing.T, rate float64, capacity int) (*Limiter, *fakeClock) {
	t.Helper()
	l, err := NewLimiter(rate, capacity)
	if err != nil {
		t.Fatalf("NewLimiter: %v", err)
	}
	clock := &fakeClock{t: time.Unix(1700000000, 0)}
	l.clock = clock
	l.last = clock.t
	return l, clock
}

func TestInvalidRate(t *testing.T) {
	if _, err := NewLimiter(0, 1); err != ErrInvalidRate {
		t.Fatalf("want ErrInvalidRate, got %v", err)
	}
}

func TestBurstThenDeny(t *testing.T) {
	l, _ := newTestLimiter(t, 1, 3)
	for i := 0; i < 3; i++ {
		if !l.Allow() {
			t.Fatalf("event %d denied", i)
		}
	}
	if l.Allow() {
		t.Fatal("fourth event allowed")
	}
}

func TestRefill(t *testing.T) {
	l, clock := newTestLimiter(t, 2, 2)
	l.AllowN(2)
	clock.Advance(500 * time.Millisecond)
	if got := l.Tokens(); got != 1 {
		t.Fatalf("tokens = %v, want 1", got)
	}
}
'''),
    "store/memory.go": F(r'''
package store

import (
	"context"
	"sync"
	"time"
)

// Bucket is the persisted state of one client's token bucket.
type Bucket struct {
	Tokens  float64
	Updated time.Time
}

// Memory is an in-process Store. Entries never expire.
type Memory struct {
	mu      sync.RWMutex
	buckets map[string]Bucket
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
    return &Memory{buckets: make(map[string]Bucket)}
}

// Get returns the bucket for key and whether it exists.
func (m *Memory) Get(ctx context.Context, key string) (Bucket, bool, error) {
    m.mu.RLock()
    defer m.mu.RUnlock()
    b, ok := m.buckets[key]
    return b, ok, nil
}

// Put stores the bucket for key.
func (m *Memory) Put(ctx context.Context, key string, b Bucket) error {
    m.mu.Lock()
    defer m.mu.Unlock()
    m.buckets[key] = b
    return nil
}

// Len returns the number of stored buckets.
func (m *Memory) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.buckets)
}
'''),
    "cmd/ratelimitd/main.go": F(r'''
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/acme/ratelimit"
)

func main() {
	addr := flag.String("addr", ":8089", "listen address")
	rate := flag.Float64("rate", 10, "events per second per client")
	burst := flag.Int("burst", 20, "maximum burst size")
	flag.Parse()

	limiter, err := ratelimit.NewLimiter(*rate, *burst)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	http.HandleFunc("/check", func(w http.ResponseWriter, r *http.Request) {
		if !limiter.Allow() {
			http.Error(w, "rate limited", http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})

	log.Printf("ratelimitd listening on %s (rate=%.1f burst=%d)", *addr, *rate, *burst)
	log.Fatal(http.ListenAndServe(*addr, nil))
}
'''),
    "scripts/gen.sh": F(r'''
#!/usr/bin/env bash
# Regenerates mocks and the API docs. Run from the repository root.
set -euo pipefail

if ! command -v mockgen >/dev/null 2>&1; then
  echo "mockgen not found: go install go.uber.org/mock/mockgen@latest" >&2
  exit 1
fi

echo "generating mocks"
mockgen -source=store/memory.go -destination=store/mock_store.go -package=store

echo "generating docs"
go doc -all . > docs/API.txt

echo "formatting"
gofmt -w store/ cmd/
go vet ./...

echo "done"
'''),
    "vendor/github.com/pkg/errors/errors.go": F(r'''
// Package errors provides simple error handling primitives.
package errors

import (
	"fmt"
	"io"
)

// New returns an error with the supplied message.
func New(message string) error {
	return &fundamental{msg: message}
}

// Errorf formats according to a format specifier and returns the string
// as a value that satisfies error.
func Errorf(format string, args ...interface{}) error {
	return &fundamental{msg: fmt.Sprintf(format, args...)}
}

// fundamental is an error that has a message.
type fundamental struct {
	msg string
}

func (f *fundamental) Error() string { return f.msg }

func (f *fundamental) Format(s fmt.State, verb rune) {
	switch verb {
	case 'v', 's':
		io.WriteString(s, f.msg)
	case 'q':
		fmt.Fprintf(s, "%q", f.msg)
	}
}
'''),
}
