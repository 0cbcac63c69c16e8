"""The package's structure, read from its source: layers import downwards only, and argparse lives in judge/cli/."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "judge"

# Highest first: a module may import its own layer and the layers below it, never one above
# (ARCHITECTURE.md: cli → eval → pipeline → rules, llm → context → workspace, runs, verdict →
# contract, config → patch, code, errors, rule_ids, lazy_pattern; the interfaces for other orchestrators, serve, mcp and the
# retry driver, sit between cli and eval, the executor's instructions beside the pipeline, and the intake that
# reads every interface's input just below the pipeline).
LAYERS = (
    ("cli",),
    ("serve", "mcp", "driver"),
    ("eval",),
    ("pipeline", "instructions"),
    ("intake",),
    ("rules", "llm", "gates"),
    ("context",),
    ("workspace", "runs", "verdict", "findings"),
    ("contract", "config", "config_layers", "config_plain"),
    ("patch", "code", "errors", "rule_ids", "version", "lazy_pattern", "text_cache"),
)
_RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def _part(module: str) -> str:
    """judge.workspace.git -> workspace; judge -> '' (the package's lazy re-exports)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports(path: Path) -> list[tuple[str, int]]:
    """(module, line) of every judge import in the file, at any depth (lazy imports count too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names] if node.module == "judge" \
                else [node.module]
            found += [(name, node.lineno) for name in names if name.startswith("judge.")]
        elif isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names if alias.name.startswith("judge.")]
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


def test_every_top_level_part_has_a_layer() -> None:
    parts = {p.relative_to(PACKAGE).parts[0].removesuffix(".py") for p in _modules()}
    assert parts - {"__init__"} <= set(_RANK), parts - set(_RANK)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    own = _RANK[path.relative_to(PACKAGE).parts[0].removesuffix(".py")]
    upward = [f"line {line}: {module}" for module, line in _imports(path)
              if _part(module) in _RANK and _RANK[_part(module)] < own]
    assert not upward, f"{path.relative_to(PACKAGE)} imports a higher layer: {upward}"


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from judge.pipeline import validate\n", encoding="utf-8")
    assert _imports(bad) == [("judge.pipeline", 2)] and _RANK["pipeline"] < _RANK["verdict"]


def test_argparse_only_in_cli() -> None:
    users = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                 for alias in node.names} | {node.module for node in ast.walk(tree)
                                             if isinstance(node, ast.ImportFrom) and node.module}
        if "argparse" in names and path.relative_to(PACKAGE).parts[0] != "cli":
            users.append(str(path.relative_to(PACKAGE)))
    assert users == []


def test_package_init_holds_no_logic_but_its_lazy_table() -> None:
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert functions == {"__getattr__", "__dir__"}


def test_every_package_folder_is_installed() -> None:
    # pyproject.toml lists packages by hand: a new folder left out installs fine in editable mode and breaks
    # every non-editable install (judge.code was missing once).
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: judge depends on tomli there
        import tomli as tomllib

    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
                 ["tool"]["setuptools"]["packages"])
    folders = {".".join(p.parent.relative_to(PACKAGE.parent).parts) for p in PACKAGE.rglob("__init__.py")}
    assert folders <= listed, folders - listed
