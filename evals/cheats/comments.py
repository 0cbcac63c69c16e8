"""Which comments a cheat may reword: not the ones that direct a tool (noqa, eslint-disable, SPDX, coding,
pragma...), which judge rightly reads as behaviour, so a reworded one is no comment-only edit."""
from __future__ import annotations

import re

DIRECTIVE = re.compile(r"noqa|type:|pragma|pylint|mypy|fmt:|isort|eslint|prettier|@ts-|jshint|istanbul|c8 |"
                       r"coding[:=]|^\s*#!|license|@flow|@jsx|sourceMappingURL|SPDX|-\*-", re.IGNORECASE)
