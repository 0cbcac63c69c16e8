"""Helpers for writing fixture contents: triple-quoted text and deterministic binary blobs."""
from __future__ import annotations

import random

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ICO_MAGIC = b"\x00\x00\x01\x00\x01\x00\x10\x10"


def F(text: str) -> str:
    """Corpus helper: drop the newline right after the opening quotes."""
    return text[1:] if text.startswith("\n") else text


def fake_binary(seed: int, size: int, magic: bytes) -> bytes:
    """size bytes that start with a real file magic and continue with seeded noise, so
    git treats them as binary and every run writes the same bytes."""
    rnd = random.Random(seed)
    return magic + bytes(rnd.randrange(256) for _ in range(size - len(magic)))
