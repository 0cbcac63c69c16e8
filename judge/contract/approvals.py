"""The pydantic model of one approval record (schemas/approval.schema.json): a human approved a step."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictStr, model_validator

from judge.contract.models import Timestamp, _refuse_boolean_version

__all__ = ["Approval", "MAX_BY", "MAX_NOTE", "MAX_STEP_ID", "SHA256_HEX"]

MAX_STEP_ID = 200
MAX_BY = 200
MAX_NOTE = 10_000
SHA256_HEX = r"[0-9a-f]{64}"  # whole string; use with re.fullmatch


class Approval(BaseModel):
    """``work`` is the sha256 of the work the human saw; ``mac`` binds the approval to the orchestrator's key. One
    without a work hash or a MAC (older judges wrote such lines) approves nothing."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=False)

    version: Literal[1]
    step_id: StrictStr = Field(alias="stepId", min_length=1, max_length=MAX_STEP_ID)
    by: StrictStr = Field(min_length=1, max_length=MAX_BY, pattern=r"\S")
    note: Optional[StrictStr] = Field(default=None, max_length=MAX_NOTE)
    work: Optional[StrictStr] = Field(default=None, pattern=f"^{SHA256_HEX}$")
    at: Timestamp
    # HMAC-SHA256 under the orchestrator's key (judge.workspace.approvals): an approval without it counts for nothing
    mac: Optional[StrictStr] = Field(default=None, pattern=f"^{SHA256_HEX}$")

    _version_is_the_integer_one = model_validator(mode="before")(_refuse_boolean_version)

    def to_json(self) -> dict:
        data = self.model_dump(mode="json", by_alias=True)
        if data["mac"] is None:
            del data["mac"]
        return data
