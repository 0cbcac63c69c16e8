"""Job policies (seed 004): the layers merged into the policies one validation runs under, the commands they let
run, and the seed's validation warnings."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Literal

from judge.contract.gate_types import COMMAND_GATE_TYPES

if TYPE_CHECKING:  # the pipeline resolves a plain step's policies without loading pydantic's models
    from judge.config import JudgeConfig
    from judge.contract.gates import Gate, PolicyLayer

__all__ = ["DEFAULT_TEST_COMMANDS", "Policies", "command_denial", "contradiction", "pinned_for_clients",
           "policy_warnings", "resolve_policies"]


# The common test runners, as fnmatch patterns over a command whose program is named by its file name
# (`.venv/bin/pytest -q` is matched as `pytest -q`, `python3 -m pytest` as `python -m pytest`): a record of
# another command never backs a tests claim.
DEFAULT_TEST_COMMANDS = (
    "pytest", "pytest *", "py.test", "py.test *", "python -m pytest", "python -m pytest *",
    "python -m unittest", "python -m unittest *", "tox", "tox *", "nox", "nox *",
    "uv run pytest", "uv run pytest *", "poetry run pytest", "poetry run pytest *",
    "npm test", "npm test *", "npm run test", "npm run test *", "npm run test:*", "npm t", "npm t *",
    "pnpm test", "pnpm test *", "pnpm run test", "pnpm run test *", "pnpm run test:*",
    "yarn test", "yarn test *", "yarn run test", "yarn run test *", "yarn run test:*",
    "bun test", "bun test *", "deno test", "deno test *",
    "vitest", "vitest *", "jest", "jest *", "ava", "ava *", "mocha", "mocha *",
    "npx vitest", "npx vitest *", "npx jest", "npx jest *", "npx ava", "npx ava *", "npx mocha", "npx mocha *",
    "go test", "go test *", "cargo test", "cargo test *", "cargo nextest run", "cargo nextest run *",
    "mvn test", "mvn * test", "mvn test *", "mvn * test *", "mvnw test", "mvnw * test", "mvnw test *",
    "gradle test", "gradle * test", "gradle test *", "gradlew test", "gradlew * test", "gradlew test *",
    "dotnet test", "dotnet test *", "ctest", "ctest *", "make test", "make check",
    "rspec", "rspec *", "bundle exec rspec", "bundle exec rspec *", "phpunit", "phpunit *",
)


@dataclass(frozen=True)
class Policies:
    """The policies in force, seed 004's defaults where no layer says otherwise; ``sources`` names each key's layer."""

    enable_shell_gates: bool = False
    shell_gate_allowlist: tuple[str, ...] = ()
    require_tests_evidence: bool = False
    require_diff_summary: bool = False
    evidence_schema_mode: Literal["lenient", "strict"] = "lenient"
    accept_unsigned_records: bool = False  # records believed on their unkeyed hash alone, bound to no work
    test_commands: tuple[str, ...] = DEFAULT_TEST_COMMANDS  # what a tests_run command must be (judge/gates/claims.py)
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")


def resolve_policies(layers: Iterable[tuple[str, PolicyLayer | None]]) -> Policies:
    """The layers merged key by key, lowest first (a layer's preset expands before its own keys)."""
    values: dict = {}
    sources: dict[str, str] = {}
    for name, layer in layers:
        if layer is None:
            continue
        for key, value in layer.stated().items():
            values[key] = tuple(value) if key in ("shell_gate_allowlist", "test_commands") else value
            sources[key] = name
    return Policies(**values, sources=sources)


def command_denial(command: str, policies: Policies) -> str | None:
    """Why the policies do not let ``command`` run, naming the policy to change; None when they do."""
    if not policies.enable_shell_gates:
        return (f"shell gates are off (enable_shell_gates is false, from {policies.source('enable_shell_gates')}): "
                "judge runs no command. Set policies.enable_shell_gates to true (step, judge.toml [policies] or "
                "--enable-shell-gates) and allow the command in shell_gate_allowlist")
    if not any(fnmatch.fnmatchcase(command, pattern) for pattern in policies.shell_gate_allowlist):
        allowed = ", ".join(repr(p) for p in policies.shell_gate_allowlist) or "none"
        return (f"the command matches no pattern of shell_gate_allowlist (patterns: {allowed}): add a pattern that "
                f"matches it, e.g. {_pattern_for(command)!r}")
    return None


def contradiction(policies: Policies, attached_records: int, runnable_commands: int) -> str | None:
    """Seed 004's contradiction, judged when the step is checked: tests evidence is required and nothing can verify
    it — no execution record is attached and no command gate can run (judge never runs the executor's own commands)."""
    if not policies.require_tests_evidence or attached_records or runnable_commands:
        return None
    if not policies.enable_shell_gates:
        why = "shell gates are off and no execution record is attached"
    else:
        why = ("no execution record is attached and the step has no command gate the allowlist lets run in a "
               "workspace (judge never runs the commands the executor names)")
    # `--evidence` (the old name of --record, still read) stays in the reason: a verdict's words do not change
    return (f"require_tests_evidence is on but {why}, so no tests claim can be verified and this step can never pass. "
            "Attach `judge run` records of the tests (--evidence), or give the step a command gate for the tests "
            "with shell gates on and the command allowlisted (and --repo), or turn require_tests_evidence off")


def policy_warnings(policies: Policies, gates: Iterable[Gate]) -> list[str]:
    """Seed 004's job validation warnings (the contradiction itself is ``contradiction``'s)."""
    warnings = []
    if policies.require_tests_evidence and not policies.enable_shell_gates:
        warnings.append("require_tests_evidence is on with shell gates off: only attached execution records "
                        "can verify tests claims")
    if policies.enable_shell_gates and not policies.shell_gate_allowlist:
        warnings.append("shell gates are on but shell_gate_allowlist is empty: no command can run")
    commands = [gate.type for gate in gates if gate.type in COMMAND_GATE_TYPES]
    if commands and not policies.enable_shell_gates:
        warnings.append(f"{len(commands)} command gate(s) ({', '.join(sorted(set(commands)))}) with shell gates "
                        "off: judge will not run them, so they pass only on attached execution records")
    return warnings


def _pattern_for(command: str) -> str:
    """The command itself as a pattern, its wildcards escaped: a prefix such as `python3 -c*` would allow any code."""
    return re.sub(r"([*?\[])", r"[\1]", command)


def pinned_for_clients(config: JudgeConfig) -> JudgeConfig:
    """``config`` for steps a remote client sends (`judge serve`, `judge mcp`): whether shell gates run, and which
    commands, is the server's own setting (judge.toml and its flags), never the step's — a client could otherwise
    turn them on with allowlist `*` and run any command in a workspace the server can read."""
    from judge.contract.gates import PolicyLayer

    own = resolve_policies((("judge.toml", config.policies), ("server flags", config.policy_overrides)))
    stated = config.policy_overrides.model_dump(exclude_none=True) if config.policy_overrides else {}
    pinned = PolicyLayer(**{**stated, "enable_shell_gates": own.enable_shell_gates,
                            "shell_gate_allowlist": own.shell_gate_allowlist})
    return config.model_copy(update={"policy_overrides": pinned})
