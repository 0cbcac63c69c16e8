"""Commands built on optional extras (`serve`, `mcp`): a missing library is one line saying what to install."""

from __future__ import annotations

import importlib.util

from judge.errors import InputError

__all__ = ["require_extra"]


def require_extra(command: str, extra: str, modules: tuple[str, ...]) -> None:
    """InputError naming the pip command when one of ``modules`` is not installed."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise InputError(f"judge {command} needs the `{extra}` extra ({', '.join(missing)} not installed): "
                         f"pip install 'judge[{extra}]' (from a checkout: pip install '.[{extra}]')")
