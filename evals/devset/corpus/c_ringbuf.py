"""The C project: `ringbuf`, a byte ring buffer with a Makefile (tabs), utils in
mixed indentation, a test and a vendored minunit header.
"""
from __future__ import annotations

from .fixtures import F


C_FILES = {
    "Makefile": F('''
CC ?= cc
CFLAGS ?= -std=c11 -Wall -Wextra -Werror -O2 -Iinclude
SRC = src/ringbuf.c src/utils.c
OBJ = $(SRC:.c=.o)

all: libringbuf.a

libringbuf.a: $(OBJ)
\t$(AR) rcs $@ $^

tests/test_ringbuf: tests/test_ringbuf.c libringbuf.a
\t$(CC) $(CFLAGS) -o $@ $< -L. -lringbuf

check: tests/test_ringbuf
\t./tests/test_ringbuf

clean:
\trm -f $(OBJ) libringbuf.a tests/test_ringbuf

.PHONY: all check clean
'''),
    "include/ringbuf.h": F(r'''
#ifndef RINGBUF_H
#define RINGBUF_H

#include <stddef.h>
#include <stdint.h>

/* A fixed size ring buffer of bytes. Not thread safe. */
typedef struct {
    uint8_t *data;
    size_t capacity;
    size_t head; /* next write position */
    size_t tail; /* next read position */
    size_t count;
} ringbuf_t;

int rb_init(ringbuf_t *rb, size_t capacity);
void rb_free(ringbuf_t *rb);
int rb_push(ringbuf_t *rb, uint8_t byte);
int rb_pop(ringbuf_t *rb, uint8_t *out);
size_t rb_size(const ringbuf_t *rb);
int rb_is_full(const ringbuf_t *rb);

/* utils.c */
size_t rb_write(ringbuf_t *rb, const uint8_t *buf, size_t len);
size_t rb_read(ringbuf_t *rb, uint8_t *buf, size_t len);
void rb_hexdump(const ringbuf_t *rb, char *out, size_t outlen);

#endif /* RINGBUF_H */
'''),
    "src/ringbuf.c": F(r'''
#include <stdlib.h>
#include <string.h>

#include "ringbuf.h"

int rb_init(ringbuf_t *rb, size_t capacity)
{
    if (rb == NULL || capacity == 0) {
        return -1;
    }
    rb->data = malloc(capacity);
    if (rb->data == NULL) {
        return -1;
    }
    rb->capacity = capacity;
    rb->head = 0;
    rb->tail = 0;
    rb->count = 0;
    return 0;
}

void rb_free(ringbuf_t *rb)
{
    free(rb->data);
    memset(rb, 0, sizeof(*rb));
}

/* Appends a byte; when the buffer is full the oldest byte is overwritten. */
int rb_push(ringbuf_t *rb, uint8_t byte)
{
    rb->data[rb->head] = byte;
    rb->head = (rb->head + 1) % rb->capacity;
    if (rb->count == rb->capacity) {
        rb->tail = (rb->tail + 1) % rb->capacity;
    } else {
        rb->count++;
    }
    return 0;
}

int rb_pop(ringbuf_t *rb, uint8_t *out)
{
    if (rb->count == 0) {
        return -1;
    }
    *out = rb->data[rb->tail];
    rb->tail = (rb->tail + 1) % rb->capacity;
    rb->count--;
    return 0;
}

size_t rb_size(const ringbuf_t *rb)
{
    return rb->count;
}

int rb_is_full(const ringbuf_t *rb)
{
    return rb->count == rb->capacity;
}
'''),
    "src/utils.c": F(r'''
#include <stdio.h>

#include "ringbuf.h"

size_t rb_write(ringbuf_t *rb, const uint8_t *buf, size_t len)
{
  size_t i;
  for (i = 0; i < len; i++) {
      if (rb_push(rb, buf[i]) != 0) {
          break;
      }
  }
  return i;
}

size_t rb_read(ringbuf_t *rb, uint8_t *buf, size_t len)
{
	size_t n = 0;
	while (n < len && rb_pop(rb, &buf[n]) == 0) {
		n++;
	}
	return n;
}

void rb_hexdump(const ringbuf_t *rb, char *out, size_t outlen)
{
  size_t i, pos = 0;
  for (i = 0; i < rb->count && pos + 3 < outlen; i++) {
    size_t idx = (rb->tail + i) % rb->capacity;
    pos += (size_t)snprintf(out + pos, outlen - pos, "%02x ", rb->data[idx]);
  }
  if (pos > 0) {
    out[pos - 1] = '\0';
  } else if (outlen > 0) {
    out[0] = '\0';
  }
}
'''),
    "tests/test_ringbuf.c": F(r'''
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "ringbuf.h"

static void test_push_pop(void)
{
    ringbuf_t rb;
    uint8_t out;
    assert(rb_init(&rb, 4) == 0);
    assert(rb_push(&rb, 1) == 0);
    assert(rb_push(&rb, 2) == 0);
    assert(rb_pop(&rb, &out) == 0 && out == 1);
    assert(rb_pop(&rb, &out) == 0 && out == 2);
    assert(rb_pop(&rb, &out) == -1);
    rb_free(&rb);
}

static void test_wraparound(void)
{
    ringbuf_t rb;
    uint8_t buf[8];
    assert(rb_init(&rb, 3) == 0);
    assert(rb_write(&rb, (const uint8_t *)"abcde", 5) == 5);
    assert(rb_size(&rb) == 3);
    assert(rb_read(&rb, buf, sizeof(buf)) == 3);
    assert(memcmp(buf, "cde", 3) == 0);
    rb_free(&rb);
}

static void test_hexdump(void)
{
    ringbuf_t rb;
    char out[32];
    assert(rb_init(&rb, 4) == 0);
    rb_write(&rb, (const uint8_t *)"\x01\xff", 2);
    rb_hexdump(&rb, out, sizeof(out));
    assert(strcmp(out, "01 ff") == 0);
    rb_free(&rb);
}

int main(void)
{
    test_push_pop();
    test_wraparound();
    test_hexdump();
    puts("all tests passed");
    return 0;
}
'''),
    "third_party/minunit/minunit.h": F(r'''
/* file: minunit.h -- a minimal unit testing framework for C */
#ifndef MINUNIT_H
#define MINUNIT_H

#define mu_assert(message, test) do { if (!(test)) return message; } while (0)
#define mu_run_test(test) do { char *message = test(); tests_run++; \
                               if (message) return message; } while (0)

extern int tests_run;

#endif /* MINUNIT_H */
'''),
}
