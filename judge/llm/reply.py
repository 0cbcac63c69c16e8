"""Reading the model's reply: exactly one {valid, reason} object, or a precise complaint for the re-ask."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pydantic import ValidationError

from judge.contract import ContractViolation, parse_verdict
from judge.models import VerdictContract

__all__ = ["LLM_RULES", "Reply", "ReplyError", "parse_reply", "rule_of"]

# The rule ids the semantic stage may give; which applies depends on the step's mode.
LLM_RULES = ("step_not_implemented", "overreach", "reversal")

# `overreach: rewrites tests/...`: a rejection's reason opens with its rule id (the prompt asks for it).
_RULE_PREFIX = re.compile(r"^\s*[`'\"*\[]*(?P<rule>[a-z_]+)[`'\"*\]]*\s*[:\-—]")


@dataclass(frozen=True)
class Reply:
    valid: bool
    reason: str


class ReplyError(ValueError):
    """The reply is not the required object; the message is quoted back to the model once."""


def parse_reply(text: str | None) -> Reply:
    """Strict: the whole reply must be one JSON object matching schemas/verdict.schema.json."""
    if text is None or not text.strip():
        raise ReplyError("the reply was empty")
    stripped = text.strip()
    if not stripped.startswith("{"):
        raise ReplyError(f"the reply must be only a JSON object, but it starts with {stripped[:40]!r}")
    try:
        data = json.loads(stripped)
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
    return Reply(contract.valid, contract.reason.strip())


def rule_of(reason: str, mode: str | None) -> str:
    """The rule id a rejection names, or the one its mode implies when it names none we know."""
    match = _RULE_PREFIX.match(reason)
    allowed = ("step_not_implemented",) if mode == "apply" else ("overreach", "reversal")
    if match and match.group("rule") in allowed:
        return match.group("rule")
    return allowed[0]
