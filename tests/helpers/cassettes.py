"""Replaying real LLM traffic: the cassettes in cassettes/ and how pytest-recording plays them.

A test marks itself ``@pytest.mark.vcr`` with ``@pytest.mark.default_cassette("NAME.yaml")``; tests/conftest.py
hands pytest-recording this directory and ``VCR_CONFIG`` (match on method + URL + body, secrets never
written). The record mode is pytest-recording's ``--record-mode``: "none" unless asked (pyproject's addopts,
so CI), where a request that is not in the cassette is an error and the network stays blocked. To re-record
against a real model, see cassettes/README.md.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import judge

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"
RECORDING_FILE = CASSETTES / "recording.json"
FENCE_SEED = 20261122  # recorded prompts must be byte-identical on replay

# pytest-recording's --record-mode, set by tests/conftest.py when pytest starts.
RECORD_MODE = "none"

_SECRET_HEADERS = ["authorization", "api-key", "x-api-key", "openai-organization", "openai-project", "cookie"]


def _scrub_response(response: dict) -> dict:
    headers = response.get("headers", {})
    for name in list(headers):
        if name.lower() in ("set-cookie", "openai-organization", "x-request-id", "cf-ray"):
            del headers[name]
    return response


VCR_CONFIG = {
    "match_on": ["method", "uri", "body"],
    "filter_headers": _SECRET_HEADERS,
    "before_record_response": _scrub_response,
    "decode_compressed_response": True,
}


def recorded_setup() -> dict:
    """The model and server the cassettes were recorded with (written when recording)."""
    if RECORD_MODE != "none":
        setup = {
            "model": os.environ["JUDGE_RECORD_MODEL"],
            "api_base": os.environ.get("JUDGE_RECORD_API_BASE") or None,
            "output_mode": os.environ.get("JUDGE_RECORD_OUTPUT_MODE", "auto"),
        }
        CASSETTES.mkdir(exist_ok=True)
        RECORDING_FILE.write_text(json.dumps(setup, indent=2) + "\n", encoding="utf-8")
        return setup
    return json.loads(RECORDING_FILE.read_text(encoding="utf-8"))


def recorded_config(**overrides: object) -> judge.JudgeConfig:
    setup = recorded_setup()
    values = {
        "model": setup["model"],
        "api_base": setup["api_base"],
        "output_mode": setup["output_mode"],
        "fence_seed": FENCE_SEED,
        "retries": 0,  # on replay a miss is final; on recording a flaky server should fail loudly
        "timeout": 120,
        "max_tokens": 120,
        **overrides,
    }
    return judge.JudgeConfig(**values)


def recorded_replies(cassette: Any) -> list[dict]:
    """The model's answers in a cassette: pytest-recording's ``vcr`` fixture, its interactions as read from the
    YAML (or, re-recording, as just recorded: the file is written only when the test ends)."""
    replies = []
    for response in cassette.responses:
        body = json.loads(response["body"]["string"])
        replies.append({"content": body["choices"][0]["message"]["content"], "usage": body.get("usage", {})})
    return replies


def recorded_review(cassette: Any, samples: int = 1, untrusted: str = "") -> tuple[bool, int]:
    """(valid?, calls) that the recorded replies must lead to, by the documented protocol:
    each sample is asked once and re-asked once if its reply is unusable (judge.llm.reply, unit-tested
    on its own); valid needs a strict majority of samples that approved."""
    from judge.llm.reply import ReplyError, parse_reply

    replies = [reply["content"] for reply in recorded_replies(cassette)]
    approvals = calls = 0
    for _ in range(samples):
        for attempt in range(2):
            text = replies[calls]
            calls += 1
            try:
                approvals += parse_reply(text, untrusted).valid
                break
            except ReplyError:
                continue
    return approvals * 2 > samples, calls
