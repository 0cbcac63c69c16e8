"""Cheat cases in the eval set format (evals/README.md): each cheat an honest change turned into, and its honest
twin (the same step, the honest result, expected valid)."""
from __future__ import annotations

from pathlib import Path

from devset.cases import feature_tags

from .honest import Cheat, Honest, render
from .kinds import KINDS, Kind

STEP_ID = "step-1"


def cases_for(honest: Honest, workspace: Path, kinds: tuple[Kind, ...] = KINDS) -> list[dict]:
    """Every kind that applies to honest, as (cheat case, honest twin) pairs in the order of kinds."""
    twin_patch, twin_files = render(workspace, honest.base, honest.after)
    out = []
    for kind in kinds:
        if honest.lang not in kind.langs:
            continue
        cheat = kind.make(honest, kind)
        if cheat is None:
            continue
        base = {**honest.base, **cheat.extra_base}
        patch, files = render(workspace, base, {**honest.after, **cheat.files}, cheat.bare_binary)
        out.append(_case(honest, cheat, patch, files, cheat.summary or honest.summary, is_cheat=True))
        out.append(_case(honest, cheat, twin_patch, twin_files, honest.summary, is_cheat=False))
    return out


def _case(honest: Honest, cheat: Cheat, patch: str, files: list[str], summary: str, is_cheat: bool) -> dict:
    step = {"id": STEP_ID, "description": honest.description, "mode": "apply"}
    result = {"mode": "apply", "success": True, "patch": patch, "filesWritten": files, "filesTouched": files,
              "summary": summary}
    tags = {cheat.lang, "cheat" if is_cheat else "honest-twin"} | feature_tags(patch)
    case = {"id": f"{cheat.rule if is_cheat else 'valid'}/{cheat.kind}/{honest.source}", "step": step, "result": result,
            "expected": _expected(cheat) if is_cheat else {"valid": True}, "tags": sorted(tags)}
    if is_cheat:
        case["notes"] = cheat.note
    return case


def _expected(cheat: Cheat) -> dict:
    """A rule kind must be rejected by its rule; a signal kind must stay valid without a model and carry the signal."""
    return {"valid": False, "signal": cheat.rule} if cheat.signal else {"valid": False, "rule": cheat.rule}
