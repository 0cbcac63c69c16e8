"""The LLM stage against a SYNTHETIC loopback server that fails in every way it can: always fail closed.

Every server reply here is scripted (tests/helpers/loopback.py); the transport is real.
"""

import json
import socket
import time

import pytest

import judge
from helpers.builders import make_case
from judge.config import JudgeConfig
from helpers.loopback import Hang, Reply, Reset, chat, content, scripted_server  # noqa: F401 - scripted_server is a fixture

pytestmark = pytest.mark.loopback

RETRIES = 2


def _config(server, **overrides):
    values = dict(model="openai/judge-test", api_base=server.api_base, retries=RETRIES, timeout=2, deadline=15,
                  output_mode="none")
    values.update(overrides)
    return JudgeConfig(**values)


def _judge(server, case=None, **overrides):
    step, result = case or make_case()
    return judge.validate(step, result, config=_config(server, **overrides))


def _assert_unavailable(verdict, *why):
    assert verdict.valid is False
    assert verdict.rule == "llm_unavailable", verdict.reason
    assert verdict.contract()["valid"] is False
    assert "could not decide" in verdict.reason
    lowered = verdict.reason.lower()
    assert any(w.lower() in lowered for w in why), f"reason does not say why ({why}): {verdict.reason}"
    report = verdict.semantic_review
    assert report is not None and report.calls
    assert all(call.attempts >= 1 for call in report.calls)


# --- transport failures: retried, bounded, then llm_unavailable --------------------------------------------------

def test_http_500_every_time(scripted_server):
    server = scripted_server([Reply(500, {"error": {"message": "boom"}})])
    verdict = _judge(server)
    _assert_unavailable(verdict, "HTTP 500")
    assert server.count == RETRIES + 1
    assert verdict.semantic_review.calls[0].attempts == RETRIES + 1


def test_http_500_reason_names_the_server_error_not_an_unrelated_exception(scripted_server):
    server = scripted_server([Reply(500, {"error": {"message": "boom"}})])
    verdict = _judge(server, retries=0)
    assert verdict.rule == "llm_unavailable"
    assert "500 Internal Server Error" in verdict.reason or "boom" in verdict.reason, verdict.reason
    assert "no running event loop" not in verdict.reason


def test_429_honours_retry_after_then_uses_the_good_reply(scripted_server):
    server = scripted_server([
        Reply(429, {"error": {"message": "slow down"}}, (("Retry-After", "1"),)),
        content(True, "implements the range check in parse_port()"),
    ])
    verdict = _judge(server)
    assert server.count == 2
    assert server.requests[1].at - server.requests[0].at >= 0.9
    assert verdict.valid is True, verdict.reason
    assert "implements the range check" in verdict.reason
    assert verdict.semantic_review.calls[0].attempts == 2


def test_429_forever(scripted_server):
    server = scripted_server([Reply(429, {"error": {"message": "slow down"}}, (("Retry-After", "0"),))])
    verdict = _judge(server)
    _assert_unavailable(verdict, "HTTP 429")
    assert server.count == RETRIES + 1


def test_retry_after_beyond_the_deadline_is_not_waited_for(scripted_server):
    server = scripted_server([Reply(429, {"error": {"message": "come back tomorrow"}}, (("Retry-After", "3600"),))])
    started = time.monotonic()
    verdict = _judge(server, deadline=2)
    assert time.monotonic() - started < 120  # not the hour asked for (a wide margin: a loaded machine is slow)
    _assert_unavailable(verdict, "HTTP 429")
    assert server.count <= RETRIES + 1


def test_connection_reset(scripted_server):
    server = scripted_server([Reset()])
    verdict = _judge(server, retries=1)
    _assert_unavailable(verdict, "reset", "disconnect", "connection")
    assert 1 <= server.count <= 1 + 1


def test_connection_reset_is_not_reported_as_an_http_status(scripted_server):
    server = scripted_server([Reset()])
    verdict = _judge(server, retries=0)
    assert verdict.rule == "llm_unavailable"
    assert "HTTP 500" not in verdict.reason, verdict.reason  # the server never answered


def test_close_without_response(scripted_server):
    server = scripted_server([Reset(rst=False)])
    verdict = _judge(server, retries=1)
    _assert_unavailable(verdict, "disconnect", "connection", "closed", "reset")
    assert 1 <= server.count <= 1 + 1


def test_hang_past_the_timeout(scripted_server):
    # The server hangs for a minute (cut short when it closes); judge gives up by its deadline of 5 s. The bound
    # tells the two apart with a margin a loaded machine cannot use up.
    server = scripted_server([Hang(60)])
    started = time.monotonic()
    verdict = _judge(server, timeout=1, retries=1, deadline=5)
    elapsed = time.monotonic() - started
    _assert_unavailable(verdict, "timed out", "timeout")
    assert 1 <= server.count <= 1 + 1
    assert elapsed < 5 + 25, elapsed


def test_deadline_bounds_the_whole_call(scripted_server):
    # Without the deadline, 11 attempts of 1 s each would take over 11 s; with it, 2 s and what a loaded machine adds.
    server = scripted_server([Hang(60)])
    started = time.monotonic()
    verdict = _judge(server, timeout=1, retries=10, deadline=2)
    assert time.monotonic() - started < 2 + 7
    assert verdict.rule == "llm_unavailable"
    assert server.count <= 3


@pytest.mark.parametrize("content_type", ["text/html", "application/json"])
def test_200_with_a_body_that_is_not_json(scripted_server, content_type):
    server = scripted_server([Reply(200, "<html>bad gateway</html>", (("Content-Type", content_type),))])
    verdict = _judge(server, retries=1)
    _assert_unavailable(verdict, "json", "expecting value", "unreadable", "could not be parsed", "invalid response")
    assert 1 <= server.count <= 1 + 1


@pytest.mark.parametrize("content_type", ["text/html", "application/json"])
def test_non_json_body_reason_is_not_an_unrelated_exception(scripted_server, content_type):
    server = scripted_server([Reply(200, "<html>bad gateway</html>", (("Content-Type", content_type),))])
    verdict = _judge(server, retries=0)
    assert verdict.rule == "llm_unavailable"
    assert "no running event loop" not in verdict.reason and "StopIteration" not in verdict.reason, verdict.reason


def test_a_200_that_is_not_json_is_not_reported_as_http_500(scripted_server):
    server = scripted_server([Reply(200, "<html>bad gateway</html>", (("Content-Type", "text/html"),))])
    verdict = _judge(server, retries=0)
    assert verdict.rule == "llm_unavailable"
    assert "HTTP 500" not in verdict.reason, verdict.reason  # the server said 200


def test_400_is_not_retried(scripted_server):
    server = scripted_server([Reply(400, {"error": {"message": "bad request: unknown parameter"}})])
    verdict = _judge(server)
    _assert_unavailable(verdict, "HTTP 400", "400")
    assert server.count == 1


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_is_one_plain_line_and_never_retried(scripted_server, status):
    server = scripted_server([Reply(status, {"error": {"message": "Incorrect API key provided: sk-wrong"}})])
    verdict = _judge(server)
    _assert_unavailable(verdict, f"authentication failed: openai refused the API key (HTTP {status})")
    assert server.count == 1  # no retry storm: a refused key stays refused
    assert "litellm." not in verdict.reason and "Exception" not in verdict.reason


def test_a_missing_key_is_one_plain_line_and_never_retried(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    step, result = make_case()
    verdict = judge.validate(step, result, config=JudgeConfig(model="openai/gpt-4o-mini", retries=3, timeout=2,
                                                              deadline=15, output_mode="none"))
    _assert_unavailable(verdict, "authentication failed: no API key for openai")
    assert verdict.semantic_review.calls[0].attempts == 1


def test_an_unreachable_model_names_its_address_once_plainly():
    with socket.socket() as probe:  # a port nothing listens on: bound, never listening
        probe.bind(("127.0.0.1", 0))
        api_base = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
        step, result = make_case()
        verdict = judge.validate(step, result, config=JudgeConfig(model="openai/judge-test", api_base=api_base,
                                                                  retries=0, timeout=2, deadline=15))
    _assert_unavailable(verdict, f"connection refused at {api_base}", f"cannot connect to {api_base}")
    assert verdict.reason.count(api_base) == 1
    assert "InternalServerError" not in verdict.reason and "litellm." not in verdict.reason


# --- replies that are not the verdict object: one re-ask that quotes the error, then llm_unavailable ------------

BAD_REPLIES = {
    "prose": "The patch looks correct and complete.",
    "fenced": '```json\n{"valid": true, "reason": "ok"}\n```',
    "extra_key": '{"valid": true, "reason": "ok", "confidence": 0.9}',
    "truncated": '{"valid": true, "reason": "the patch adds',
    "valid_as_string": '{"valid": "true", "reason": "x"}',
    "no_reason": '{"valid": true}',
    "array": '[{"valid": true, "reason": "ok"}]',
    "empty": "",
    "null": None,
}


@pytest.mark.parametrize("name", list(BAD_REPLIES))
def test_a_bad_reply_is_reasked_once_then_fails_closed(scripted_server, name):
    server = scripted_server([chat(BAD_REPLIES[name])])
    verdict = _judge(server)
    _assert_unavailable(verdict, "unusable reply")
    assert server.count == 2
    assert [c.purpose for c in verdict.semantic_review.calls] == ["ask", "reask"]


@pytest.mark.parametrize(("name", "quoted"), [
    ("prose", "must be only a JSON object"),
    ("extra_key", "confidence"),
    ("truncated", "not valid JSON"),
    ("valid_as_string", "boolean"),
    ("no_reason", "reason"),
])
def test_the_reask_quotes_the_validation_error(scripted_server, name, quoted):
    server = scripted_server([chat(BAD_REPLIES[name])])
    _judge(server)
    first, second = (r.body["messages"] for r in server.requests)
    assert second[: len(first)] == first
    assert second[len(first)] == {"role": "assistant", "content": BAD_REPLIES[name] or ""}
    assert second[-1]["role"] == "user"
    assert "not accepted" in second[-1]["content"] and quoted in second[-1]["content"]


def test_a_bad_first_reply_then_a_good_one_uses_the_good_one(scripted_server):
    server = scripted_server([chat("Looks fine to me."), content(True, "adds the port range check")])
    verdict = _judge(server)
    assert verdict.valid is True, verdict.reason
    assert verdict.rule is None
    assert "adds the port range check" in verdict.reason
    assert len(verdict.semantic_review.calls) == 2
    assert verdict.semantic_review.samples[0].raw_replies == ("Looks fine to me.",
                                                              json.dumps({"valid": True, "reason": "adds the port range check"}))


def test_a_transport_failure_on_the_reask_fails_closed(scripted_server):
    server = scripted_server([chat("Looks fine to me."), Reply(500, {"error": {"message": "boom"}})])
    verdict = _judge(server, retries=1)
    _assert_unavailable(verdict, "HTTP 500")
    assert server.count == 1 + 2
    assert [c.purpose for c in verdict.semantic_review.calls] == ["ask", "reask"]


def test_token_budget_reached_means_no_reask(scripted_server):
    server = scripted_server([chat("Looks fine to me.")])
    verdict = _judge(server, token_budget=1)
    _assert_unavailable(verdict, "unusable reply")
    assert server.count == 1


# --- the model's own decisions -------------------------------------------------------------------------------

def test_a_rejecting_reply_in_apply_mode(scripted_server):
    server = scripted_server([content(False, "step_not_implemented: parse_port() still accepts port 0")])
    verdict = _judge(server)
    assert verdict.valid is False
    assert verdict.rule == "step_not_implemented"
    assert "parse_port() still accepts port 0" in verdict.reason
    assert server.count == 1


def _fix_regression_case():
    return make_case(step={"mode": "fix_regression", "applyFiles": ["src/app.py"],
                           "description": "Fix the regression in parse_port() found by tests/test_app.py"},
                     mode="fix_regression")


def test_an_overreach_reply_in_fix_regression_mode(scripted_server):
    server = scripted_server([content(False, "overreach: rewrites main() as well, beyond the fix")])
    verdict = _judge(server, case=_fix_regression_case())
    assert verdict.valid is False
    assert verdict.rule == "overreach", verdict.reason
    assert "rewrites main()" in verdict.reason


def test_a_rejection_without_a_known_prefix_gets_the_mode_default(scripted_server):
    server = scripted_server([content(False, "this does not fix anything")])
    verdict = _judge(server, case=_fix_regression_case())
    assert verdict.valid is False and verdict.rule == "overreach"


def test_three_samples_majority_valid(scripted_server):
    server = scripted_server([content(True, "adds the range check"), content(False, "step_not_implemented: no"),
                              content(True, "checks the port range as asked")])
    verdict = _judge(server, samples=3)
    assert server.count == 3
    assert verdict.valid is True, verdict.reason
    assert verdict.semantic_review.agreement == pytest.approx(2 / 3, abs=1e-3)
    assert sorted(s.valid for s in verdict.semantic_review.samples) == [False, True, True]


def test_two_samples_tied_fail_closed(scripted_server):
    server = scripted_server([content(True, "adds the range check"), content(False, "step_not_implemented: half of it is missing")])
    verdict = _judge(server, samples=2)
    assert server.count == 2
    assert verdict.valid is False
    assert verdict.rule == "step_not_implemented"
    assert verdict.semantic_review.agreement == pytest.approx(0.5)


def test_samples_that_all_fail_are_llm_unavailable(scripted_server):
    server = scripted_server([Reply(503, {"error": {"message": "overloaded"}})])
    verdict = _judge(server, samples=3, retries=0)
    _assert_unavailable(verdict, "HTTP 503")
    assert server.count == 3


def test_one_good_sample_among_failures_is_not_a_majority(scripted_server):
    server = scripted_server([content(True, "ok"), Reply(500, {"error": {"message": "boom"}})])
    verdict = _judge(server, samples=3, retries=0)
    assert verdict.valid is False


def test_semantic_required_without_a_model_makes_no_request(scripted_server):
    server = scripted_server([content(True, "ok")])
    verdict = judge.validate(*make_case(), config=JudgeConfig(semantic="required", api_base=server.api_base))
    assert verdict.valid is False
    assert verdict.rule == "llm_unavailable"
    assert server.count == 0


def test_semantic_off_makes_no_request(scripted_server):
    server = scripted_server([content(False, "step_not_implemented: no")])
    verdict = _judge(server, semantic="off")
    assert verdict.valid is True and server.count == 0


def test_a_deterministic_rejection_makes_no_request(scripted_server):
    server = scripted_server([content(True, "ok")])
    verdict = _judge(server, case=make_case(filesWritten=["src/other.py"]))
    assert verdict.valid is False and verdict.rule != "llm_unavailable"
    assert server.count == 0


# --- what the verdict records --------------------------------------------------------------------------------

def test_tokens_are_the_sum_of_the_reported_usage(scripted_server):
    server = scripted_server([chat("not json", prompt_tokens=120, completion_tokens=7),
                              chat('{"valid": true, "reason": "adds the range check"}', prompt_tokens=150, completion_tokens=9)])
    verdict = _judge(server)
    assert verdict.valid is True
    assert verdict.semantic_review.prompt_tokens == 270
    assert verdict.semantic_review.completion_tokens == 16


def test_tokens_sum_over_samples(scripted_server):
    server = scripted_server([chat('{"valid": true, "reason": "adds the range check"}', prompt_tokens=100, completion_tokens=3)])
    verdict = _judge(server, samples=3)
    assert verdict.semantic_review.prompt_tokens == 300
    assert verdict.semantic_review.completion_tokens == 9


def test_the_request_carries_the_model_and_no_sdk_retries(scripted_server):
    server = scripted_server([content(True, "ok")])
    _judge(server, temperature=0.0, max_tokens=123)
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/chat/completions"
    assert body["model"] == "judge-test"
    assert body["temperature"] == 0 and body["max_tokens"] == 123
    assert "response_format" not in body  # output_mode none


def test_output_mode_json_schema_asks_for_the_verdict_schema(scripted_server):
    server = scripted_server([content(True, "ok")])
    _judge(server, output_mode="json_schema")
    schema = server.requests[0].body["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["valid", "reason"] and schema["additionalProperties"] is False


def test_output_mode_grammar_sends_a_grammar(scripted_server):
    server = scripted_server([content(True, "ok")])
    _judge(server, output_mode="grammar")
    grammar = server.requests[0].body["grammar"]
    assert grammar.startswith("root ::=") and "valid" in grammar and "reason" in grammar


def test_no_exception_escapes_and_no_failure_reads_valid(scripted_server):
    """Every scripted failure in one sweep: zero valid verdicts."""
    failures = [Reply(500, "x"), Reply(502, "x"), Reply(404, "x"), Reply(401, {"error": {"message": "bad key"}}),
                Reply(200, "{"), Reply(200, {"choices": []}), Reply(200, {"unexpected": True}), Reset(),
                chat('{"valid": "yes", "reason": "ok"}'), chat('{"valid": true, "reason": ""}')]
    for failure in failures:
        server = scripted_server([failure])
        verdict = _judge(server, retries=0, timeout=1)
        assert verdict.valid is False, (failure, verdict.reason)
        assert verdict.rule in {"llm_unavailable", "judge_error"}, (failure, verdict.reason)


def test_a_model_string_litellm_has_no_provider_for_is_a_configuration_error_not_retry_later():
    """Nothing is sent (litellm refuses before any request), so "HTTP 400 ... retry it later" would mislead."""
    step, result = make_case()
    verdict = judge.validate(step, result, config=judge.JudgeConfig(model="nosuchprovider/foo", semantic="required",
                                                                     retries=0))
    assert verdict.rule == "llm_unavailable" and not verdict.valid
    assert "configuration error" in verdict.reason and "nosuchprovider/foo" in verdict.reason
    assert "retry it later" not in verdict.reason and "HTTP 400" not in verdict.reason
