"""How a judge run is configured; explicit values only, no global defaults to mutate."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["JudgeConfig"]


class JudgeConfig(BaseModel):
    """``semantic``: ``auto`` runs the LLM stage when a model is configured, ``off`` never does.

    No LLM stage ships yet, so ``auto`` always records the semantic review as skipped.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    semantic: Literal["auto", "off"] = "auto"
