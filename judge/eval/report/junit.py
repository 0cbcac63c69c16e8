"""JUnit XML of an eval run, for CI test reporters: one <testcase> per eval case.

The suite's properties carry the run's metadata and headline metrics; an undefined metric is
``n/a (why)``, never left out. A case judged wrong is a <failure> (false_accept, false_reject or
wrong_rule) with what was expected, what judge said and its reason; a case the judge could not
decide (llm_unavailable, judge_error) is an <error>. Lines of the set that could not run get a second suite of errors.
Text that XML 1.0 cannot hold (control characters, lone surrogates) is written as \\uXXXX.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from judge.eval.report.format import undefined_reason
from judge.eval.report.model import CaseRecord, EvalReport
from judge.lazy_pattern import lazy_compile

__all__ = ["render_junit"]

_NOT_XML = lazy_compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_PROPERTIES = ("runId", "source", "setSha256", "shard", "judgeVersion", "promptSha256")


def render_junit(report: EvalReport) -> str:
    root = ET.Element("testsuites", name="judge eval")
    suites = [_case_suite(report)]
    if report.bad_lines:
        suites.append(_bad_line_suite(report))
    root.extend(suites)
    for key in ("tests", "failures", "errors"):
        root.set(key, str(sum(int(suite.get(key, "0")) for suite in suites)))
    root.set("time", _seconds(report.meta.seconds))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _case_suite(report: EvalReport) -> ET.Element:
    cases = report.records
    suite = ET.Element("testsuite", name=_safe(f"judge eval {report.meta.source or ''}".strip()),
                       tests=str(len(cases)), skipped="0", time=_seconds(report.meta.seconds))
    suite.append(_properties(report))
    failures = errors = 0
    for case in cases:
        element = _testcase(case)
        failures += element.find("failure") is not None
        errors += element.find("error") is not None
        suite.append(element)
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    return suite


def _properties(report: EvalReport) -> ET.Element:
    properties = ET.Element("properties")
    meta = report.meta.to_json()
    values = {key: meta.get(key) for key in _PROPERTIES}
    values["model"] = report.meta.model
    metrics = report.metrics_json
    for key in ("accuracy", "falseAcceptRate", "falseRejectRate", "kappa"):
        value = metrics.get(key)
        values[key] = value if value is not None else f"n/a ({undefined_reason(metrics, key) or 'undefined'})"
    for name, value in values.items():
        if value is not None:
            ET.SubElement(properties, "property", name=name, value=_safe(value))
    return properties


def _testcase(case: CaseRecord) -> ET.Element:
    classname = case.expected_rule or ("valid" if case.expected_valid else "invalid")
    element = ET.Element("testcase", classname=_safe(classname), name=_safe(case.case_id),
                         time=_seconds((case.latency_ms or 0) / 1000))
    expected, got = case.expected_text, case.got_text
    details = _safe(f"expected: {expected}\ngot: {got}\nreason: {case.reason}")
    if case.error:
        ET.SubElement(element, "error", type=_safe(case.error),
                      message=_safe(f"judge could not decide ({case.error}): {case.reason}")).text = details
    elif not case.rule_correct:
        ET.SubElement(element, "failure", type=_failure_type(case),
                      message=_safe(f"expected {expected}, got {got}")).text = details
    return element


def _failure_type(case: CaseRecord) -> str:
    if not case.correct:
        return "false_accept" if case.valid else "false_reject"
    return "wrong_rule"


def _bad_line_suite(report: EvalReport) -> ET.Element:
    bad = report.bad_lines
    suite = ET.Element("testsuite", name="judge eval: lines that could not run", tests=str(len(bad)),
                       failures="0", errors=str(len(bad)), skipped="0", time="0.000")
    for item in bad:
        case = ET.SubElement(suite, "testcase", classname="bad_line", name=f"line {item.line}", time="0.000")
        ET.SubElement(case, "error", type="bad_line", message=_safe(item.problem)).text = _safe(item.problem)
    return suite


def _seconds(value: Any) -> str:
    return f"{float(value or 0):.3f}"


def _safe(value: Any) -> str:
    return _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", str(value))
