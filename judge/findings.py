"""What the stages decide, as plain frozen records: each Finding a rule or stage makes, each stage's StageReport and
the Outcome. judge.verdict's pydantic models are the same records in the Verdict, built from these once, at the end:
a run whose caller wants only ``{"valid", "reason"}`` (`judge validate`) never loads pydantic for them.

Hand-written rather than dataclasses: a dataclass costs about half a millisecond to define, at every cold start.
"""

from __future__ import annotations

from typing import Any, Iterable, Literal

__all__ = ["Finding", "GateStatus", "NextAction", "Outcome", "Severity", "StageName", "StageReport", "StageStatus"]

Severity = Literal["reject", "signal"]
StageName = Literal["executor", "contract", "rules", "gates", "semantic"]
NextAction = Literal["advance", "retry", "diagnose", "pause_for_human"]
GateStatus = Literal["passed", "failed", "pending", "skipped"]
StageStatus = Literal["passed", "rejected", "skipped", "error"]
_SEVERITIES = frozenset(("reject", "signal"))
_STAGES = frozenset(("executor", "contract", "rules", "gates", "semantic"))


class _Record:
    """Frozen: its fields are set once, into the instance's dict, by ``__init__``; equal, hashed and shown by them."""

    _fields: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name}")

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{name}={getattr(self, name)!r}' for name in self._fields)})"

    def fields(self) -> dict[str, Any]:
        """The fields by name: what the Verdict's model of this record is built from."""
        return {name: getattr(self, name) for name in self._fields}

    def __reduce__(self) -> tuple:  # pickle and copy build a new record; setting fields one by one is refused
        return _rebuilt, (type(self), self.fields())


class Finding(_Record):
    """One thing a stage found. A ``reject`` finding fails the step; a ``signal`` only informs. ``retryable`` is
    False when a new attempt by the executor cannot help (next_action diagnose)."""

    _fields = ("rule", "message", "severity", "stage", "files", "retryable")
    rule: str
    message: str
    severity: Severity
    stage: StageName
    files: tuple[str, ...]
    retryable: bool

    def __init__(self, *, rule: str, message: str, severity: Severity = "reject", stage: StageName = "rules",
                 files: Iterable[str] = (), retryable: bool = True) -> None:
        # fail closed on judge's own slip: a finding no stage could read (a severity that is neither, say) would
        # otherwise pass for no rejection; raised here, in the rule that made it, judge_error names that rule
        if severity not in _SEVERITIES or stage not in _STAGES or type(rule) is not str or type(message) is not str:
            raise ValueError(f"not a finding: rule={rule!r}, severity={severity!r}, stage={stage!r}")
        self.__dict__.update(rule=rule, message=message, severity=severity, stage=stage, files=tuple(files),
                             retryable=retryable)  # not through __setattr__, which refuses

    @property
    def reason(self) -> str:
        return f"{self.rule}: {self.message}"


class StageReport(_Record):
    _fields = ("stage", "status", "detail", "duration_ms")
    stage: StageName
    status: StageStatus
    detail: str
    duration_ms: float

    def __init__(self, *, stage: StageName, status: StageStatus, detail: str = "", duration_ms: float = 0.0) -> None:
        self.__dict__.update(stage=stage, status=status, detail=detail, duration_ms=duration_ms)


class Outcome(_Record):
    """What the orchestrator does next: accepted, what is missing, every rejection, the next action."""

    _fields = ("accepted", "missing_fields", "rejection_reasons", "next_action")
    accepted: bool
    missing_fields: tuple[str, ...]
    rejection_reasons: tuple[str, ...]
    next_action: NextAction

    def __init__(self, *, accepted: bool, next_action: NextAction, missing_fields: tuple[str, ...] = (),
                 rejection_reasons: tuple[str, ...] = ()) -> None:
        self.__dict__.update(accepted=accepted, missing_fields=missing_fields, rejection_reasons=rejection_reasons,
                             next_action=next_action)


def _rebuilt(kind: type[_Record], fields: dict[str, Any]) -> _Record:
    return kind(**fields)
