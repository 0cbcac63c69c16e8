"""The executor's environment: an allowlist of judge's own (locale, terminal, paths), plus the names the user passes
by hand; judge's settings and secrets are never passed, and a provider's key only when the user names it.

An allowlist, not a blocklist: a secret judge does not know by name (a cloud token, a CI credential) stays out
unless it is asked for.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping

from judge.errors import InputError
from judge.lazy_pattern import lazy_compile

__all__ = ["ALLOWED", "executor_environment"]

# Not secrets: what a program needs to find its tools, speak the user's locale and draw on the terminal
ALLOWED = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM", "NO_COLOR", "TZ",
    "TMPDIR", "COLUMNS", "LINES", "PYTHONIOENCODING", "PYTHONUTF8",
})
_ALLOWED_PREFIXES = ("LC_",)
# judge's own settings and secrets (its model key, the server token, the evidence key setting): never the executor's
_JUDGE_OWN = lazy_compile(r"JUDGE_.*")


def executor_environment(source: Mapping[str, str] | None = None, passed: Iterable[str] = ()) -> dict[str, str]:
    """The allowed names of ``source`` (default: judge's own environment) and those in ``passed`` that are set.
    InputError when ``passed`` names one of judge's own settings (JUDGE_*): judge's secrets are never passed."""
    source = os.environ if source is None else source
    wanted = set()
    for name in passed:
        if not name or "=" in name:
            raise InputError(f"{name!r} is not an environment variable name; give the name only "
                             "(its value is taken from judge's environment)", field="pass_env")
        if _JUDGE_OWN.fullmatch(name):
            raise InputError(f"{name} is one of judge's own settings, never given to the executor; pass the "
                             "executor's own variable instead", field="pass_env")
        wanted.add(name)
    return {name: value for name, value in source.items()
            if name in ALLOWED or name.startswith(_ALLOWED_PREFIXES) or name in wanted}
