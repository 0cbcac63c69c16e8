"""The corpus by short project name: which files seed a repository, which of them are executable."""
from __future__ import annotations

from .c_ringbuf import C_FILES
from .go_ratelimit import GO_FILES
from .java_billing import JAVA_FILES
from .js_shipit import JS_FILES
from .ops_shop import OPS_FILES
from .py_inventory import PY_FILES
from .rs_tally import RS_FILES
from .ts_web_client import TS_FILES

PROJECTS = {
    "py": (PY_FILES, set()),
    "ts": (TS_FILES, set()),
    "go": (GO_FILES, set()),
    "rs": (RS_FILES, set()),
    "java": (JAVA_FILES, set()),
    "c": (C_FILES, set()),
    "ops": (OPS_FILES, {"scripts/deploy.sh", "scripts/backup.sh", "docs/runbook.md"}),
    "js": (JS_FILES, {"bin/shipit.js"}),
}
# The language tag of a case whose paths name no language (a failure report touching nothing).
PROJECT_LANG = {
    "py": "python", "ts": "typescript", "go": "go", "rs": "rust", "java": "java",
    "c": "c", "ops": "shell", "js": "javascript",
}
