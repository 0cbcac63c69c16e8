"""judge.findings: the plain records the stages make are judge.verdict's models field for field."""

from __future__ import annotations

import copy
import pickle

import pytest

from judge import findings, verdict

PAIRS = [(findings.Finding, verdict.Finding), (findings.StageReport, verdict.StageReport),
         (findings.Outcome, verdict.Outcome)]
EXAMPLES = [
    findings.Finding(rule="undeclared_file", message="m", files=["a.py", "b.py"]),
    findings.Finding(rule="junk_files", message="m", severity="signal", stage="gates", retryable=False),
    findings.StageReport(stage="rules", status="rejected", detail="undeclared_file", duration_ms=1.5),
    findings.Outcome(accepted=False, next_action="retry", rejection_reasons=("r: m",)),
]


@pytest.mark.parametrize(("plain", "model"), PAIRS, ids=lambda kind: kind.__name__)
def test_the_plain_records_have_the_models_fields_and_defaults(plain: type, model: type) -> None:
    assert plain._fields == tuple(model.model_fields)  # also in the models' order
    defaults = {name: field.default for name, field in model.model_fields.items() if not field.is_required()}
    required = {name: "x" for name, field in model.model_fields.items() if field.is_required()}
    made = plain(**required)
    assert {name: getattr(made, name) for name in defaults} == defaults


@pytest.mark.parametrize("record", EXAMPLES, ids=lambda record: type(record).__name__)
def test_a_plain_record_builds_its_model_with_the_same_values(record: findings._Record) -> None:
    model = getattr(verdict, type(record).__name__)(**record.fields())
    assert {name: getattr(model, name) for name in record._fields} == record.fields()


def test_a_finding_holds_its_files_as_a_tuple_and_words_its_reason() -> None:
    finding = EXAMPLES[0]
    assert finding.files == ("a.py", "b.py") and finding.reason == "undeclared_file: m"
    assert finding.reason == verdict.Finding(**finding.fields()).reason


@pytest.mark.parametrize("record", EXAMPLES, ids=lambda record: type(record).__name__)
def test_plain_records_are_frozen_values(record: findings._Record) -> None:
    with pytest.raises(AttributeError):
        record.detail = "changed"  # type: ignore[attr-defined]
    twin = type(record)(**record.fields())
    assert twin == record and hash(twin) == hash(record) and twin is not record
    assert pickle.loads(pickle.dumps(record)) == record == copy.deepcopy(record)
    assert repr(record).startswith(type(record).__name__ + "(")
    assert record != findings.Finding(rule="other", message="m")


@pytest.mark.parametrize("fields", [
    {"severity": "rejct"}, {"stage": "rule"}, {"rule": None}, {"message": 3},
])
def test_a_finding_no_stage_could_read_is_refused_where_it_is_made(fields):
    # fail closed: a rule that made it fails (judge_error names the rule); it never passes for no rejection
    with pytest.raises(ValueError, match="not a finding"):
        findings.Finding(**{"rule": "stub_or_disabled_code", "message": "m", **fields})


def test_a_rule_that_makes_a_finding_no_stage_could_read_is_judge_error_naming_it(monkeypatch):
    import judge
    from judge.rules import registry
    from helpers.builders import make_case

    def broken(ctx):
        yield findings.Finding(rule="stub_or_disabled_code", message="m", severity="rejct")

    monkeypatch.setattr(registry, "RULES", (broken,))
    import judge.pipeline as pipeline
    monkeypatch.setattr(pipeline, "run_rules", lambda ctx: registry.run_rules(ctx, (broken,)))
    verdict = judge.validate(*make_case())
    assert (verdict.valid, verdict.rule) == (False, "judge_error")
    assert "broken" in verdict.reason
