"""Recording and replaying the model traffic of an eval run (vcrpy), so a set can be re-graded offline."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Iterator

from judge.config import JudgeConfig
from judge.contract.jsonio import read_json
from judge.errors import InputError, field_ref

__all__ = ["recorded_settings", "traffic"]


def recorded_settings(config: JudgeConfig, record: str | None, replay: str | None) -> JudgeConfig:
    """Recorded traffic replays only byte-identical requests: the data fence must be seeded then."""
    if not (record or replay):
        return config
    directory = Path(record or replay)  # type: ignore[arg-type]
    setup = directory / "recording.json"
    if replay:
        if not setup.is_file():
            raise InputError(f"{directory}: no recording.json there; record one with {field_ref('record')}", field="replay")
        recorded = read_json(str(setup), field_ref("replay"))
        if not isinstance(recorded, dict):
            raise InputError(f"{setup}: not a recording's settings (a JSON object); record again with "
                             f"{field_ref('record')}", field="replay")
        return _replayed(config, recorded, setup)
    directory.mkdir(parents=True, exist_ok=True)
    config = config.model_copy(update={"fence_seed": config.fence_seed if config.fence_seed is not None else 1})
    setup.write_text(json.dumps(settings_of(config), indent=2) + "\n", encoding="utf-8")
    return config


def _replayed(config: JudgeConfig, recorded: dict, setup: Path) -> JudgeConfig:
    """The recorded settings over ``config``'s, validated: a recorded policy is a PolicyLayer again, not a dict."""
    from pydantic import ValidationError

    try:
        return JudgeConfig.model_validate({**config.model_dump(), **recorded, "retries": 0})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise InputError(f"{setup}: recorded setting {where}: {error['msg']}; record again with "
                         f"{field_ref('record')}", field="replay") from None


def settings_of(config: JudgeConfig) -> dict:
    """The settings a run records (its report, its store, a recording): everything but the API key, as JSON
    (a policy's allowlist is a list, as it reads back from the store when a run is resumed)."""
    return config.model_dump(mode="json", exclude={"api_key"})


@contextlib.contextmanager
def traffic(record: str | None, replay: str | None) -> Iterator[None]:
    """Model calls inside go to (record) or come from (replay) DIR/traffic.yaml; nothing happens without either."""
    if not (record or replay):
        yield
        return
    try:
        import vcr
    except ImportError:
        raise InputError(f"{field_ref('record')}/{field_ref('replay')} need vcrpy: pip install vcrpy") from None
    recorder = vcr.VCR(record_mode="all" if record else "none", match_on=["method", "uri", "body"],
                       filter_headers=["authorization", "api-key", "x-api-key", "openai-organization", "cookie"],
                       decode_compressed_response=True)
    with recorder.use_cassette(str(Path(record or replay) / "traffic.yaml")):  # type: ignore[arg-type]
        yield
