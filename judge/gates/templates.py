"""Step templates: the file a step's `template` names (NAME.json, NAME.yaml or NAME.yml in the templates directory),
read with a size cap and checked against schemas/step-template.schema.json. YAML is read with safe_load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge.contract.gates import StepTemplate
from judge.errors import ContractViolation, InputError
from judge.workspace.confine import is_inside

__all__ = ["MAX_TEMPLATE_BYTES", "TEMPLATE_SUFFIXES", "load_template"]

TEMPLATE_SUFFIXES = (".json", ".yaml", ".yml")
MAX_TEMPLATE_BYTES = 1024 * 1024


def load_template(name: str, directory: str | Path, judged: str | Path | None = None) -> StepTemplate:
    """The template ``name`` (NAME.json, NAME.yaml or NAME.yml in ``directory``); ContractViolation at
    ``$.step.template`` when it is missing, unreadable, breaks schemas/step-template.schema.json, or when
    ``directory`` lies inside ``judged`` (the judged repository: the executor could rewrite the gates there)."""
    from judge.contract.schema import parse_step_template

    if judged is not None and is_inside(directory, judged):
        raise ContractViolation("step", "step.schema.json", "$.step.template",
                                f"the templates directory {directory} is inside the judged repository {judged}, "
                                "where the executor could rewrite the step's gates; keep templates outside it "
                                "(--templates DIR or templates_dir; default: judge's state directory)")

    found = [Path(directory) / f"{name}{suffix}" for suffix in TEMPLATE_SUFFIXES]
    found = [path for path in found if path.is_file()]
    if len(found) != 1:
        problem = (f"no template {name!r} in {directory} (looked for {name}.json, {name}.yaml, {name}.yml); "
                   "set the templates directory with --templates or templates_dir in judge.toml") if not found \
            else f"template {name!r} is ambiguous in {directory}: {', '.join(p.name for p in found)}; keep one"
        raise ContractViolation("step", "step.schema.json", "$.step.template", problem)
    path = found[0]
    data = _read_template(path)
    try:
        return parse_step_template(data)
    except ContractViolation as violation:
        where = violation.path.replace("$.step-template", "$", 1)
        raise ContractViolation("step", "step-template.schema.json", "$.step.template",
                                f"template {path} breaks schemas/step-template.schema.json at {where}: "
                                f"{violation.problem}") from None


def _read_template(path: Path) -> Any:
    from judge.contract.jsonio import parse_json

    def refuse(problem: str) -> ContractViolation:
        return ContractViolation("step", "step-template.schema.json", "$.step.template", f"template {path}: {problem}")

    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_TEMPLATE_BYTES + 1)
        if len(raw) > MAX_TEMPLATE_BYTES:
            raise refuse(f"larger than {MAX_TEMPLATE_BYTES} bytes")
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise refuse(f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    if path.suffix == ".json":
        try:
            return parse_json(text, "")
        except InputError as exc:
            raise refuse(str(exc).lstrip(": ")) from None
    import yaml  # only for YAML templates

    try:
        return yaml.safe_load(text)  # safe_load: a template builds plain data, never objects
    except yaml.YAMLError as exc:
        raise refuse(f"not valid YAML ({' '.join(str(exc).split())[:200]})") from None
