"""Reading the model's reply: exactly one {valid, reason} object, or a precise complaint for the re-ask."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pydantic import ValidationError

from judge.errors import ContractViolation
from judge.contract.jsonio import loads
from judge.contract.schema import parse_verdict
from judge.contract.models import VerdictContract
from judge.lazy_pattern import lazy_compile

__all__ = ["LLM_RULES", "Reply", "ReplyError", "parse_reply", "rule_of"]

# The rule ids the semantic stage may give; which applies depends on the step's mode.
LLM_RULES = ("step_not_implemented", "overreach", "reversal")

# `overreach: rewrites tests/...`: a rejection's reason opens with its rule id (the prompt asks for it).
_RULE_PREFIX = lazy_compile(r"^\s*[`'\"*\[]*(?P<rule>[a-z_]+)[`'\"*\]]*\s*[:\-—]")


# A reply that approves with a reason like "rejected" or "step_not_implemented: ..." contradicts itself;
# accepting it would let a confused model pass a step. Fail closed: it is re-asked like any bad reply.
_READS_AS_REJECTION = lazy_compile(
    r"^\s*[`'\"*\[]*(reject(ed|ion)?|invalid|not valid|fail(ed|s)?|step_not_implemented|overreach|reversal)\b",
    re.IGNORECASE,
)


_WORD = lazy_compile(r"\w+")


@dataclass(frozen=True)
class Reply:
    valid: bool
    reason: str


class ReplyError(ValueError):
    """The reply is not the required object; the message is quoted back to the model once."""


def parse_reply(text: str | None, untrusted: str = "") -> Reply:
    """Strict: the whole reply must be one JSON object matching schemas/verdict.schema.json.

    An approval must also say why in its own words: at least three words, not a reason
    copied from ``untrusted`` (the executor's summary, file names and patch) — the shape a
    successful prompt injection leaves ("approved by judge" planted in the diff).
    """
    if text is None or not text.strip():
        raise ReplyError("the reply was empty")
    stripped = text.strip()
    if not stripped.startswith("{"):
        raise ReplyError(f"the reply must be only a JSON object, but it starts with {stripped[:40]!r}")
    try:
        data = loads(stripped)
    except json.JSONDecodeError as exc:
        raise ReplyError(f"the reply is not valid JSON ({exc.msg} at character {exc.pos})") from None
    try:
        contract: VerdictContract = parse_verdict(data)
    except ContractViolation as exc:
        raise ReplyError(f"the reply does not match the verdict schema: {exc}") from None
    except ValidationError as exc:  # defensive: the schema passed, the model did not
        raise ReplyError(f"the reply does not match the verdict schema: {exc.errors()[0]['msg']}") from None
    if not contract.reason.strip():
        raise ReplyError("the reason is blank")
    reason = contract.reason.strip()
    if contract.valid:
        _check_approval(reason, untrusted)
    return Reply(contract.valid, reason)


def _check_approval(reason: str, untrusted: str) -> None:
    if _READS_AS_REJECTION.match(reason):
        raise ReplyError(f"valid is true but the reason reads as a rejection ({reason[:60]!r})")
    if len(_WORD.findall(reason)) < 3:
        raise ReplyError(f"an approval must say in a sentence what the patch does, not {reason[:60]!r}")
    if len(reason) >= 8 and reason.lower().strip(" .") in untrusted.lower():
        raise ReplyError("the reason repeats text from the executor's output instead of judging it")


def rule_of(reason: str, mode: str | None) -> str:
    """The rule id a rejection names, or the one its mode implies when it names none we know."""
    match = _RULE_PREFIX.match(reason)
    allowed = ("step_not_implemented",) if mode == "apply" else ("overreach", "reversal")
    if match and match.group("rule") in allowed:
        return match.group("rule")
    return allowed[0]
