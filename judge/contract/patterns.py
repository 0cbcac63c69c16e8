"""Regular expressions written by a step, a gate or a template, compiled and matched by RE2: in time linear in the
text whatever the pattern, where Python's engine backtracks exponentially (``^(\\w+\\s?)*$`` on a long line froze
`judge validate`, and `judge serve` with it). The same for the ``pattern`` and ``patternProperties`` of a
json_schema_valid gate's schema, which jsonschema would hand to Python's ``re``.

RE2 has no lookaround, backreferences or possessive quantifiers, and its ``\\w``, ``\\d`` and ``\\b`` are ASCII;
a pattern RE2 cannot compile is refused with one line that says so. One of Python's habits is kept for outputs:
``$`` also matches before a final newline (a command's stdout ends with one).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

from judge.errors import InputError

__all__ = ["RE2_SYNTAX", "compiled", "regex_problem", "schema_problem", "schema_validator", "search"]

RE2_SYNTAX = ("judge matches patterns in linear time with RE2, which has no lookaround, backreferences or possessive "
              "quantifiers: rewrite it without them")


@lru_cache(maxsize=None)
def _re2() -> tuple[Any, Any]:
    """RE2, and options that keep it from writing parse errors to stderr; imported when a pattern is first used."""
    import re2

    quiet = re2.Options()
    quiet.log_errors = False
    return re2, quiet


@lru_cache(maxsize=256)
def _compile(pattern: str) -> Any:
    re2, quiet = _re2()
    return re2.compile(pattern, quiet)


def regex_problem(pattern: str) -> str | None:
    """Why RE2 cannot compile ``pattern`` (a phrase following the pattern), or None when it can."""
    re2, _ = _re2()
    try:
        _compile(pattern)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        return f"does not compile as RE2 syntax ({reason}); {RE2_SYNTAX}"
    return None


def compiled(pattern: str, field: str) -> Any:
    """``pattern`` compiled by RE2; InputError naming ``field`` when RE2 cannot compile it."""
    problem = regex_problem(pattern)
    if problem is not None:
        raise InputError(f"the regular expression {pattern[:80]!r} {problem}", field=field)
    return _compile(pattern)


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``, as ``re.search`` would for the patterns RE2 reads alike:
    ``$`` also matches just before a final newline."""
    regex = compiled(pattern, "pattern")
    return regex.search(text) is not None or (text.endswith("\n") and regex.search(text[:-1]) is not None)


# --- JSON Schema: jsonschema's validator with the keywords that run patterns replaced by RE2 ones ------------------

def schema_problem(schema: dict) -> str | None:
    """Why ``schema`` cannot be used as a json_schema_valid gate's schema (draft 2020-12, patterns in RE2 syntax),
    or None when it can."""
    from jsonschema import Draft202012Validator, FormatChecker
    from jsonschema.exceptions import SchemaError

    checker = FormatChecker(())
    checker.checks("regex", raises=ValueError)(_re2_compilable)  # the metaschema knows where the patterns are
    try:
        Draft202012Validator.check_schema(schema, format_checker=checker)
    except SchemaError as exc:
        if exc.validator == "format" and exc.validator_value == "regex":
            where = exc.json_path.replace("$", "schema", 1)
            return f"{where}: the regular expression {str(exc.instance)[:80]!r} {regex_problem(str(exc.instance))}"
        return f"is not a valid JSON Schema (draft 2020-12): {exc.message[:200]}"
    if _holds(schema, "unevaluatedProperties") and _holds(schema, "patternProperties"):
        return ("uses unevaluatedProperties beside patternProperties, which judge cannot check with RE2: use "
                "additionalProperties next to the patternProperties instead")
    return None


def _re2_compilable(pattern: object) -> bool:
    if isinstance(pattern, str) and regex_problem(pattern) is not None:
        raise ValueError(pattern)
    return True


def _holds(value: Any, keyword: str) -> bool:
    """Whether ``keyword`` is a key anywhere in ``value`` (over-eager: a property of that name counts too)."""
    if isinstance(value, dict):
        return keyword in value or any(_holds(child, keyword) for child in value.values())
    if isinstance(value, list):
        return any(_holds(child, keyword) for child in value)
    return False


def schema_validator(schema: dict) -> Any:
    """A draft 2020-12 validator of ``schema`` whose every pattern is matched by RE2, metaschemas its only other
    resources (a remote $ref is never fetched).

    jsonschema picks a validator class by the ``$schema`` of each (sub)schema it enters, and a class of its own
    would match with Python's ``re``: so no schema it can enter keeps a ``$schema`` (the whole schema is read as
    draft 2020-12, as its top level always was)."""
    return _validator_class()(_without_dialect(schema), registry=_metaschemas())


@lru_cache(maxsize=None)
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator
    from jsonschema.validators import extend

    keywords = {"pattern": _pattern, "patternProperties": _pattern_properties,
                "additionalProperties": _additional_properties}
    return extend(Draft202012Validator, keywords)


@lru_cache(maxsize=None)
def _metaschemas() -> Any:
    from jsonschema_specifications import REGISTRY
    from referencing import Registry, Resource
    from referencing.jsonschema import specification_with

    resources = [(uri, Resource(_without_dialect(contents), specification_with(contents.get("$schema", ""))))
                 for uri, contents in ((uri, REGISTRY[uri].contents) for uri in REGISTRY)]
    return Registry().with_resources(resources)


# The keywords whose values are data, not schemas: a "$schema" inside them is the data's own.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})


def _without_dialect(value: Any) -> Any:
    """``value`` with every ``$schema`` that names a dialect (a string) removed, data keywords left alone."""
    if isinstance(value, dict):
        return {key: child if key in _DATA_KEYWORDS else _without_dialect(child) for key, child in value.items()
                if not (key == "$schema" and isinstance(child, str))}
    if isinstance(value, list):
        return [_without_dialect(child) for child in value]
    return value


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and _compile(pattern).search(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: dict, instance: Any, schema: dict) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        regex = _compile(pattern)
        for key, value in instance.items():
            if regex.search(key) is not None:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: dict) -> Iterator[Any]:
    """jsonschema's additionalProperties, with the properties its patternProperties cover found by RE2."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    known, patterns = schema.get("properties", {}), [_compile(p) for p in schema.get("patternProperties", {})]
    extras = [key for key in instance
              if key not in known and not any(regex.search(key) is not None for regex in patterns)]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        shown = ", ".join(repr(extra) for extra in sorted(extras))
        if patterns:
            verb = "does" if len(extras) == 1 else "do"
            listed = ", ".join(repr(p) for p in sorted(schema["patternProperties"]))
            yield ValidationError(f"{shown} {verb} not match any of the regexes: {listed}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({shown} {verb} unexpected)")
