"""judge/code/jstokens.py: JavaScript/TypeScript read as tokens without a parser — strings, templates and comments
as any parser reads them, bracket groups matched — and text only a parser can read refused."""

from __future__ import annotations

import pytest

from judge.code.jstokens import Reader, Unreadable


def _words(text: str, jsx: bool = False) -> list[tuple[str, bool]]:
    found, at, reader = [], 0, Reader(text, jsx)
    while (token := reader.token_at(at)) is not None:
        found.append((token[0], token[3]))
        at = token[2]
    return found


def test_strings_templates_and_numbers_are_one_token_each_and_comments_are_skipped():
    text = 'return `a ${f("}")} b` + "x\\"y" + 1.5e3; // done\n'
    assert _words(text) == [("return", False), ("`", False), ("+", False), ('"', False), ("+", False),
                            ("0", False), (";", False)]


def test_a_line_end_before_a_token_is_seen_also_inside_a_block_comment():
    assert _words("a /* one\n two */ b // c\n c") == [("a", False), ("b", True), ("c", True)]
    assert _words("a /* one two */ b") == [("a", False), ("b", False)]


def test_a_group_ends_at_its_matching_bracket_past_strings_templates_and_comments():
    text = 'f({ a: "}", b: `${ {c: 1} }`, /* ) */ d: [1, 2] }) + rest'
    reader = Reader(text, jsx=False)
    assert text[reader.after_group(2):] == ") + rest"
    assert text[reader.after_group(1):] == " + rest"  # the inner group's end, kept, is read past


@pytest.mark.parametrize("text, jsx", [
    ("return /x+/.test(s);", False),  # a regular expression
    ("return a / b;", False),  # a division: the same character
    ("return <div>{x}</div>;", True),  # JSX, in the grammars that have it
    ("return é;", False),  # code outside ASCII
    ('return "open', False),  # a string left open
    ("return `open ${x}", False),  # a template left open
    ("return a /* open", False),  # a comment left open
    ("return a\\u0062;", False),  # an escape in a name
])
def test_what_only_a_parser_can_read_is_refused(text, jsx):
    with pytest.raises(Unreadable):
        _words(text, jsx)


def test_a_less_than_is_read_in_typescript_and_where_it_cannot_open_jsx():
    assert [w for w, _ in _words("return f<T>(x) < y;")] == ["return", "f", "<", "T", ">", "(", "x", ")", "<", "y", ";"]
    assert [w for w, _ in _words("return x < y;", jsx=True)] == ["return", "x", "<", "y", ";"]


@pytest.mark.parametrize("text", ["f(a]", "f(`${a)}`)", "f(a", "f(/re/)"])
def test_a_group_with_mismatched_brackets_an_open_end_or_a_slash_is_refused(text):
    with pytest.raises(Unreadable):
        Reader(text, jsx=False).after_group(1)
