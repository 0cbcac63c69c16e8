"""A file's text as numbered lines to edit in place, each edit keeping the file's own line ending."""
from __future__ import annotations


class Lines:
    """1-based lines without their endings; text() joins them back with the file's ending (CRLF stays CRLF)."""

    def __init__(self, text: str) -> None:
        self.newline = "\r\n" if "\r\n" in text.split("\n", 1)[0] + "\n" else "\n"
        self.final = text.endswith("\n")
        self.lines = text.splitlines()

    def __len__(self) -> int:
        return len(self.lines)

    def get(self, first: int, last: int) -> list[str]:
        return self.lines[first - 1:last]

    def indent(self, line: int) -> str:
        text = self.lines[line - 1]
        return text[: len(text) - len(text.lstrip())]

    def replace(self, first: int, last: int, new: list[str]) -> None:
        self.lines[first - 1:last] = new

    def insert(self, before: int, new: list[str]) -> None:
        self.lines[before - 1:before - 1] = new

    def text(self) -> str:
        return self.newline.join(self.lines) + (self.newline if self.final else "")
