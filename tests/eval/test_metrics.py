"""judge.eval.metrics: hand-computed confusion, rates, kappa and its interval; degenerate sets; percentiles."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.eval.metrics import cohen_kappa, compute_metrics, llm_options, percentile
from judge.eval.report.model import CaseRecord


_IDS = itertools.count(1)


def record(expected_valid: bool, valid: bool, expected_rule: str | None = None, rule: str | None = None,
           **fields) -> CaseRecord:
    """A judged case; an invalid verdict without a rule gets the expected rule (the judge agreed)."""
    if not valid and rule is None:
        rule = expected_rule or "superficial_only"
    values = dict(case_id=f"case-{next(_IDS)}", inputs_hash="0" * 64, tags=(), expected_valid=expected_valid,
                  expected_rule=expected_rule, valid=valid, rule=None if valid else rule, reason="r",
                  decided_by="rules" if not valid else "skipped")
    values.update(fields)
    return CaseRecord(**values)


def table(true_reject: int, false_accept: int, false_reject: int, true_accept: int) -> list[CaseRecord]:
    return ([record(False, False, "undeclared_file") for _ in range(true_reject)]
            + [record(False, True, "undeclared_file") for _ in range(false_accept)]
            + [record(True, False, rule="scope_excluded") for _ in range(false_reject)]
            + [record(True, True) for _ in range(true_accept)])


def strict_json(data: object) -> object:
    """Round trip that refuses NaN and Infinity both ways."""
    def refuse(token: str) -> None:
        raise AssertionError(f"non-finite number in JSON: {token}")

    return json.loads(json.dumps(data, allow_nan=False), parse_constant=refuse)


# --- the 2x2 table and its rates -----------------------------------------------------------------


def test_symmetric_table_by_hand() -> None:
    """4 caught, 1 missed, 1 false alarm, 4 passed: every rate 0.8; p_o 0.8, p_e 0.5, kappa 0.6."""
    metrics = compute_metrics(table(4, 1, 1, 4)).to_json()
    assert metrics["confusion"] == {"expectedInvalid": {"judgedInvalid": 4, "judgedValid": 1},
                                    "expectedValid": {"judgedInvalid": 1, "judgedValid": 4}}
    for key in ("accuracy", "precisionReject", "recallReject", "f1Reject"):
        assert metrics[key] == pytest.approx(0.8)
    assert metrics["falseAcceptRate"] == pytest.approx(0.2)
    assert metrics["falseRejectRate"] == pytest.approx(0.2)
    assert metrics["kappa"] == pytest.approx(0.6)
    # A = 2 * 0.4 * (1 - 1.0 * 0.4)^2 = 0.288; B = 0.4^2 * (0.1 + 0.1) = 0.032; C = (0.6 - 0.5 * 0.4)^2 = 0.16
    standard_error = math.sqrt(0.288 + 0.032 - 0.16) / (0.5 * math.sqrt(10))
    ci = metrics["kappaCi"]
    assert ci["standardError"] == pytest.approx(standard_error, abs=1e-6)
    assert ci["low"] == pytest.approx(0.6 - 1.959964 * standard_error, abs=1e-6)
    assert ci["high"] == 1.0  # 0.6 + 0.496 clipped
    assert ci["level"] == 0.95 and ci["method"] == "fleiss-cohen-everitt-1969"
    assert metrics["kappaUndefined"] is None


def test_asymmetric_table_by_hand() -> None:
    """3 caught, 1 missed, 2 false alarms, 4 passed: p_o 0.7, rows (0.4, 0.6), columns (0.5, 0.5), p_e 0.5."""
    m = compute_metrics(table(3, 1, 2, 4))
    assert (m.accuracy, m.precision, m.recall) == pytest.approx((0.7, 0.6, 0.75))
    assert m.f1 == pytest.approx(2 * 0.6 * 0.75 / (0.6 + 0.75))
    assert (m.false_accept_rate, m.false_reject_rate) == pytest.approx((0.25, 2 / 6))
    assert m.kappa.value == pytest.approx(0.4)
    a = 0.3 * (1 - 0.9 * 0.6) ** 2 + 0.4 * (1 - 1.1 * 0.6) ** 2  # 0.10972
    b = 0.6 ** 2 * (0.1 * (0.5 + 0.6) ** 2 + 0.2 * (0.5 + 0.4) ** 2)  # 0.10188
    c = (0.4 - 0.5 * 0.6) ** 2  # 0.01
    standard_error = math.sqrt(a + b - c) / (0.5 * math.sqrt(10))
    assert m.kappa.standard_error == pytest.approx(standard_error)
    assert (m.kappa.low, m.kappa.high) == pytest.approx((0.4 - 1.959964 * standard_error, 0.4 + 1.959964 * standard_error))


def test_kappa_standard_error_agrees_with_a_seeded_bootstrap() -> None:
    """The closed form and 2,000 resamples of a 117-case table agree within 10%."""
    cells = [(0, 0)] * 40 + [(0, 1)] * 12 + [(1, 0)] * 5 + [(1, 1)] * 60
    rng = random.Random(4)
    values = []
    for _ in range(2000):
        counts = Counter(rng.choices(cells, k=len(cells)))
        values.append(cohen_kappa(counts[(0, 0)], counts[(0, 1)], counts[(1, 0)], counts[(1, 1)]).value)
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    assert cohen_kappa(40, 12, 5, 60).standard_error == pytest.approx(spread, rel=0.1)


def test_perfect_agreement_is_kappa_1_with_a_zero_width_interval() -> None:
    kappa = compute_metrics(table(3, 0, 0, 2)).to_json()
    assert kappa["kappa"] == 1.0
    assert (kappa["kappaCi"]["low"], kappa["kappaCi"]["high"], kappa["kappaCi"]["standardError"]) == (1.0, 1.0, 0.0)


def test_a_judge_that_always_says_valid_has_kappa_0() -> None:
    metrics = compute_metrics(table(0, 3, 0, 2)).to_json()
    assert metrics["kappa"] == 0.0 and metrics["kappaUndefined"] is None
    assert metrics["falseAcceptRate"] == 1.0 and metrics["recallReject"] == 0.0 and metrics["f1Reject"] == 0.0


# --- degenerate sets -----------------------------------------------------------------------------


@pytest.mark.parametrize(("records", "why"), [
    ([], "no cases"),
    (table(0, 0, 1, 3), "every case is labelled valid"),
    (table(2, 1, 0, 0), "every case is labelled invalid"),
    (table(1, 0, 0, 0), "every case is labelled invalid"),
], ids=["empty", "all-valid-labels", "all-invalid-labels", "one-case"])
def test_kappa_undefined_says_why_and_json_stays_strict(records, why) -> None:
    metrics = strict_json(compute_metrics(records).to_json())
    assert metrics["kappa"] is None and metrics["kappaCi"] is None
    assert metrics["kappaUndefined"].startswith(why)


HEADLINE_KEYS = ("accuracy", "precisionReject", "recallReject", "f1Reject", "falseAcceptRate", "falseRejectRate",
                 "ruleAttribution")


def test_empty_set_has_undefined_rates_and_no_latency() -> None:
    """Changed deliberately (issue 14): an empty set's rates were 0.0, which reads as a measured zero; now null,
    each with why."""
    metrics = strict_json(compute_metrics([]).to_json())
    assert metrics["cases"] == 0
    assert all(metrics[key] is None for key in HEADLINE_KEYS)
    assert metrics["undefinedMetrics"]["accuracy"] == "no cases"
    assert set(metrics["undefinedMetrics"]) == {*HEADLINE_KEYS, "kappa", "costUsd"}
    assert metrics["latencyMs"] == {"p50": None, "p95": None, "max": None}
    assert metrics["costUsd"] is None and metrics["selfAgreement"] is None
    assert metrics["rules"] == [] and metrics["ruleStats"] == [] and metrics["tags"] == []


_records = st.lists(
    st.builds(record, st.booleans(), st.booleans(), st.sampled_from([None, "undeclared_file", "superficial_only"]),
              st.sampled_from([None, "undeclared_file", "scope_excluded"]),
              latency_ms=st.floats(0, 1e6), cost_usd=st.none() | st.floats(0, 10),
              agreement=st.none() | st.floats(0, 1), samples=st.integers(0, 5)),
    max_size=40)


@settings(max_examples=150, deadline=None)
@given(_records)
def test_any_set_gives_strict_json_and_coherent_numbers(records) -> None:
    metrics = strict_json(compute_metrics(records, model_configured=True, samples=3).to_json())
    for key in HEADLINE_KEYS:
        if metrics[key] is None:
            assert metrics["undefinedMetrics"][key]
        else:
            assert 0.0 <= metrics[key] <= 1.0 and key not in metrics["undefinedMetrics"]
    if metrics["kappa"] is not None:
        ci = metrics["kappaCi"]
        assert -1.0 <= ci["low"] <= metrics["kappa"] <= ci["high"] <= 1.0
    else:
        assert metrics["kappaUndefined"]
    latency = metrics["latencyMs"]
    if records:
        assert latency["p50"] <= latency["p95"] <= latency["max"]


@pytest.mark.parametrize(("records", "undefined"), [
    (table(0, 0, 1, 3), {"falseAcceptRate": "no case is labelled invalid",
                         "recallReject": "no case is labelled invalid", "ruleAttribution": "no case labelled invalid"}),
    (table(2, 1, 0, 0), {"falseRejectRate": "no case is labelled valid"}),
    (table(0, 0, 0, 3), {"precisionReject": "judge rejected no case", "f1Reject": "no case is labelled invalid and",
                         "falseAcceptRate": "no case is labelled invalid"}),
], ids=["all-valid-labels", "all-invalid-labels", "all-valid-all-accepted"])
def test_a_ratio_over_nothing_is_null_with_why(records, undefined) -> None:
    """Issue 14: the false-accept rate of a set with no case labelled invalid is not 0%, it is undefined."""
    metrics = strict_json(compute_metrics(records).to_json())
    for key, why in undefined.items():
        assert metrics[key] is None and metrics["undefinedMetrics"][key].startswith(why)
    for key in set(HEADLINE_KEYS) - set(metrics["undefinedMetrics"]):
        assert isinstance(metrics[key], float)


# --- percentiles ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("values", "q", "expected"), [
    ([10.0, 20.0, 30.0, 40.0], 0.50, 25.0),
    ([10.0, 20.0, 30.0, 40.0], 0.95, 38.5),  # position 2.85: 30 + 0.85 * 10
    ([10.0, 20.0, 30.0, 40.0], 1.0, 40.0),
    ([7.0], 0.95, 7.0),
    ([], 0.5, None),
])
def test_percentile_interpolates_between_closest_ranks(values, q, expected) -> None:
    assert percentile(values, q) == expected


def test_latency_table_sorts_first() -> None:
    records = [record(True, True, latency_ms=ms) for ms in (40.0, 10.0, 30.0, 20.0)]
    assert compute_metrics(records).to_json()["latencyMs"] == {"p50": 25.0, "p95": 38.5, "max": 40.0}


# --- model calls, cache, tokens, cost, self-agreement --------------------------------------------


def _llm_run() -> list[CaseRecord]:
    return [
        record(False, False, "missing_patch", decided_by="contract"),
        record(False, False, "undeclared_file", decided_by="rules"),
        record(False, False, "scope_excluded", decided_by="rules"),
        record(True, True, decided_by="semantic", llm_calls=4, prompt_tokens=900, completion_tokens=30,
               cost_usd=0.002, samples=3, agreement=1.0),
        record(True, True, decided_by="semantic", llm_calls=0, cached=True, samples=3, agreement=2 / 3),
        record(False, False, "step_not_implemented", decided_by="semantic", llm_calls=3, prompt_tokens=800,
               completion_tokens=20, cost_usd=0.001, samples=3, agreement=2 / 3),
        record(False, False, "llm_unavailable", decided_by="semantic", llm_calls=5, error="llm_unavailable",
               samples=3, agreement=None),
    ]


def test_calls_saved_are_deterministic_decisions_times_samples() -> None:
    llm = compute_metrics(_llm_run(), model_configured=True, samples=3).to_json()["llm"]
    assert llm == {"modelConfigured": True, "samples": 3, "callsMade": 12, "callsSaved": 9, "cacheHits": 1}


def test_no_model_configured_saves_no_calls() -> None:
    assert compute_metrics(_llm_run()).to_json()["llm"]["callsSaved"] == 0


def test_tokens_cost_agreement_stages_errors() -> None:
    metrics = compute_metrics(_llm_run(), model_configured=True, samples=3).to_json()
    assert metrics["tokens"] == {"prompt": 1700, "completion": 50, "total": 1750}
    assert metrics["costUsd"] == pytest.approx(0.003)
    assert metrics["selfAgreement"] == pytest.approx((1.0 + 2 / 3 + 2 / 3) / 3, abs=1e-6)
    assert metrics["selfAgreementCases"] == 3
    assert metrics["decidedBy"] == {"contract": 1, "rules": 2, "semantic": 4}
    assert metrics["errors"] == {"llm_unavailable": 1}


def test_cost_is_none_when_no_case_has_a_price() -> None:
    records = [record(True, True, decided_by="semantic", llm_calls=1, prompt_tokens=10, cost_usd=None)]
    assert compute_metrics(records).to_json()["costUsd"] is None


def test_single_sample_agreement_is_not_self_agreement() -> None:
    records = [record(True, True, decided_by="semantic", samples=1, agreement=1.0)]
    metrics = compute_metrics(records).to_json()
    assert metrics["selfAgreement"] is None and metrics["selfAgreementCases"] == 0


@pytest.mark.parametrize(("settings", "expected"), [
    ({"model": "openai/gpt-4o-mini", "semantic": "auto", "samples": 3}, {"model_configured": True, "samples": 3}),
    ({"model": "openai/gpt-4o-mini", "semantic": "off", "samples": 1}, {"model_configured": False, "samples": 1}),
    ({"model": None, "semantic": "required", "samples": 1}, {"model_configured": False, "samples": 1}),
    (None, {"model_configured": False, "samples": 1}),
])
def test_llm_options_from_report_settings(settings, expected) -> None:
    assert llm_options(settings) == expected


# --- per-rule and per-tag tables -----------------------------------------------------------------


def test_rule_stats_recall_and_precision_per_rule_id() -> None:
    records = [
        record(False, False, "undeclared_file"),
        record(False, False, "undeclared_file", rule="scope_excluded"),
        record(False, True, "undeclared_file"),
        record(True, False, rule="scope_excluded"),
    ]
    stats = {row["rule"]: row for row in compute_metrics(records).to_json()["ruleStats"]}
    assert stats["undeclared_file"] == {"rule": "undeclared_file", "expected": 3, "judged": 1, "agreed": 1,
                                        "recall": pytest.approx(1 / 3, abs=1e-6), "precision": 1.0}
    assert stats["scope_excluded"] == {"rule": "scope_excluded", "expected": 0, "judged": 2, "agreed": 0,
                                       "recall": None, "precision": 0.0}


def test_tag_rows_count_each_case_once_per_tag() -> None:
    records = [
        record(False, False, "undeclared_file", tags=("python", "rename", "python")),
        record(False, True, "undeclared_file", tags=("python",)),
        record(True, False, rule="scope_excluded", tags=("rename",)),
        record(False, False, "undeclared_file", rule="scope_excluded", tags=("python",)),
    ]
    tags = {row["tag"]: row for row in compute_metrics(records).to_json()["tags"]}
    assert tags["python"] == {"tag": "python", "cases": 3, "correct": 2, "rightRule": 1, "accuracy": pytest.approx(2 / 3, abs=1e-6),
                              "ruleAccuracy": pytest.approx(1 / 3, abs=1e-6), "falseAccept": 1, "falseReject": 0}
    assert tags["rename"]["cases"] == 2 and tags["rename"]["falseReject"] == 1


def test_legacy_keys_are_kept() -> None:
    """judge/eval/reports/text.py and tests/cli/test_eval.py read these."""
    metrics = compute_metrics(table(1, 1, 1, 1)).to_json()
    assert {"cases", "confusion", "accuracy", "precisionReject", "recallReject", "falseAcceptRate", "falseRejectRate",
            "ruleAttribution", "rules"} <= set(metrics)
    assert set(metrics["rules"][0]) == {"rule", "cases", "rejected", "rightRule", "found"}
