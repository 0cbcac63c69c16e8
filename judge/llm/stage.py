"""The semantic review: render, ask (N samples), re-ask once on a bad reply, vote, fail closed."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from judge import rule_ids as ids
from judge.config import JudgeConfig
from judge.llm.client import CONFIGURATION_ERROR, LLMUnavailable, complete
from judge.llm.prompt import PROMPT_VERSION, fence_token, load_prompt, render_messages
from judge.llm.reduce import reduce_patch
from judge.llm.reply import ReplyError, parse_reply, rule_of
from judge.verdict import CallRecord, SampleRecord, SemanticReport
from judge.context import StepContext
from judge.contract.plain import modelled
from judge.findings import Finding

__all__ = ["SemanticReview", "review"]


@dataclass(frozen=True)
class SemanticReview:
    """What the semantic stage decided: valid, or the finding that rejects; its SemanticReport goes into the verdict."""

    valid: bool
    reason: str  # for a valid review: the model's; for a rejection: the finding's
    finding: Finding | None
    report: SemanticReport


async def review(ctx: StepContext, signals: tuple[Finding, ...], config: JudgeConfig) -> SemanticReview:
    prompt = load_prompt(PROMPT_VERSION)
    # The model judges the work: git's diff of the work tree when a workspace was read, else the patch.
    patch_text, note = reduce_patch(ctx.work_text, ctx.work, config.max_patch_tokens) if ctx.work \
        else (ctx.work_text, "")
    summary = ctx.result.summary or ""
    files = list(ctx.result.files_written or ())
    details = _signal_details(signals)
    evidence = _evidence_file(ctx, config.max_patch_tokens * 4)
    untrusted = "\n".join([summary, *files, patch_text, *details, *([evidence] if evidence else [])])
    fence = fence_token(untrusted, config.fence_seed)
    messages = render_messages(
        prompt,
        step=modelled(ctx.step).model_dump(by_alias=True, exclude={"apply_patch"}),
        summary=summary,
        files=files,
        patch=patch_text,
        patch_note=note,
        signals=_trusted_signals(signals) + _facts(ctx),
        signal_details=details,
        fence=fence,
        evidence=evidence,
    )
    log = _CallLog(config.token_budget)
    samples = await asyncio.gather(*(_sample(i, messages, config, log, untrusted) for i in range(config.samples)))
    report = SemanticReport(
        model=config.model or "",
        prompt_version=prompt.version,
        prompt_sha256=prompt.sha256,
        output_mode=config.output_mode,
        patch_reduction=note,
        samples=tuple(samples),
        agreement=_agreement(samples),
        calls=tuple(log.records),
    )
    return _decide(samples, report, ctx.step.mode or ctx.result.mode, config)


class _CallLog:
    """Calls made for one verdict, and whether the token budget still allows a re-ask."""

    def __init__(self, budget: int | None) -> None:
        self.budget = budget
        self.records: list[CallRecord] = []

    def allows_reask(self) -> bool:
        spent = sum(c.prompt_tokens + c.completion_tokens for c in self.records)
        return self.budget is None or spent < self.budget


async def _sample(index: int, messages: list[dict], config: JudgeConfig, log: _CallLog,
                  untrusted: str) -> SampleRecord:
    raw: list[str] = []
    conversation = list(messages)
    for purpose in ("ask", "reask"):
        try:
            completion = await complete(config, conversation)
        except LLMUnavailable as exc:
            log.records.append(CallRecord(sample=index, purpose=purpose, attempts=len(exc.attempts),
                                           latency_ms=sum(a.latency_ms for a in exc.attempts), error=exc.reason))
            return SampleRecord(valid=None, error=f"no answer: {exc.reason}", raw_replies=tuple(raw))
        log.records.append(CallRecord(
            sample=index, purpose=purpose, attempts=len(completion.attempts),
            latency_ms=sum(a.latency_ms for a in completion.attempts), prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens, cost_usd=completion.cost_usd))
        raw.append(completion.text or "")
        try:
            reply = parse_reply(completion.text, untrusted)
        except ReplyError as problem:
            if purpose == "reask" or not log.allows_reask():
                return SampleRecord(valid=None, error=f"unusable reply: {problem}", raw_replies=tuple(raw))
            conversation = conversation + [
                {"role": "assistant", "content": completion.text or ""},
                {"role": "user", "content": f"Your reply was not accepted: {problem}. Answer again with only "
                                            'the JSON object {"valid": true or false, "reason": "..."}.'},
            ]
            continue
        return SampleRecord(valid=reply.valid, reason=reply.reason, raw_replies=tuple(raw))
    raise AssertionError("unreachable")  # pragma: no cover


def _decide(samples: list[SampleRecord], report: SemanticReport, mode: object, config: JudgeConfig) -> SemanticReview:
    """Valid only when more than half of all samples said valid: errors and ties fail closed."""
    approvals = [s for s in samples if s.valid is True]
    rejections = [s for s in samples if s.valid is False]
    if len(approvals) * 2 > len(samples):
        return SemanticReview(True, approvals[0].reason or "", None, report)
    if rejections:
        rule = rule_of(rejections[0].reason or "", mode if isinstance(mode, str) else None)
        message = _without_rule(rejections[0].reason or "", rule)
        tally = f" ({len(rejections)} of {len(samples)} samples rejected)" if len(samples) > 1 else ""
        finding = Finding(rule=rule, stage="semantic", message=f"{message}{tally} [semantic review by {config.model}]")
        return SemanticReview(False, finding.reason, finding, report)
    errors = "; ".join(sorted({s.error or "unknown error" for s in samples}))
    configuration = all(CONFIGURATION_ERROR in (s.error or "") for s in samples)
    finding = Finding(
        rule=ids.LLM_UNAVAILABLE,
        stage="semantic",
        message=f"the semantic judge ({config.model}) could not decide: {errors}. The step is not accepted; "
        + ("fix the judge's model configuration (a retry cannot mend it)." if configuration else
           "retry it later, or fix the judge's model configuration."),
    )
    return SemanticReview(False, finding.reason, finding, report)


def _agreement(samples: list[SampleRecord]) -> float:
    votes = [s.valid for s in samples]
    return round(max(votes.count(True), votes.count(False), votes.count(None)) / len(votes), 4) if votes else 0.0


def _without_rule(reason: str, rule: str) -> str:
    stripped = reason.strip()
    for prefix in (f"{rule}:", f"{rule} -", f"`{rule}`:"):
        if stripped.startswith(prefix):
            return stripped[len(prefix):].strip()
    return stripped


def _trusted_signals(signals: tuple[Finding, ...]) -> list[str]:
    """Rule ids only: every message may quote the executor (file and function names, an evidence
    file's nodeId, a ledger line), and no string of the executor's, however split or encoded,
    may reach the trusted part of the prompt. The messages go to the fenced data instead."""
    return list(dict.fromkeys(s.rule for s in signals))


def _signal_details(signals: tuple[Finding, ...]) -> list[str]:
    return [signal.reason for signal in signals]


def _evidence_file(ctx: StepContext, limit: int) -> str | None:
    """The evidence file the executor left (`.orchestrator/evidence/<stepId>.json`) as judge read and parsed it,
    when the work tree changed no file: then it is the only thing the model can weigh against the step. At most
    ``limit`` characters of it (the patch's budget, about 4 characters a token), saying so when cut."""
    found = ctx.workspace.evidence_file if ctx.workspace is not None else None
    if ctx.work or found is None or found.evidence is None:
        return None
    document = json.dumps(found.evidence.model_dump(by_alias=True, mode="json", exclude_none=True), indent=2,
                          ensure_ascii=False)
    if len(document) > limit:
        document = f"{document[:limit]}\n[cut by judge: the first {limit:,} of {len(document):,} characters]"
    return f"{found.path}:\n{document}"


def _facts(ctx: StepContext) -> list[str]:
    """Counts only: the names are the executor's and appear, fenced, in the data part."""
    work = ctx.work
    if not work:
        return ["the step changed no file" if ctx.git is not None else "the result carries no patch"]
    source = "the work tree's diff from base" if ctx.git is not None else "the patch"
    return [f"{source} changes {len(work.files)} file(s): +{work.added_count} -{work.removed_count} lines"]
