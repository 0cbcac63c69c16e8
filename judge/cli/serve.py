"""`judge serve`: the HTTP service over the pipeline, for orchestrators in other languages (judge.serve)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from judge.cli.gate_flags import add_gate_flags, gate_settings
from judge.cli.settings import add_model_flags, config_of
from judge.errors import InputError

__all__ = ["add_serve_command"]

# judge.serve.settings' defaults, spelled out: the parser is built without importing the server.
_DEFAULT_HOST = "127.0.0.1"
_DEFAULT_PORT = 8765
_DEFAULT_MAX_BODY = 8 * 1024 * 1024
_DEFAULT_TIMEOUT = 120.0


def add_serve_command(commands: Any) -> None:
    serve = commands.add_parser("serve", help="serve POST /v1/validate over HTTP (loopback only unless "
                                "JUDGE_SERVER_TOKEN is set)")
    serve.add_argument("--host", default=_DEFAULT_HOST, help=f"address to listen on (default {_DEFAULT_HOST}); "
                       "a non-loopback one needs JUDGE_SERVER_TOKEN")
    serve.add_argument("--port", type=int, default=_DEFAULT_PORT, help=f"default {_DEFAULT_PORT}; 0: any free port")
    serve.add_argument("--workspace-root", dest="workspace_roots", action="append", default=[], metavar="DIR",
                       help="requests may name repositories and ledgers inside DIR; repeat for several "
                            "(none: every workspace is refused)")
    serve.add_argument("--max-body", dest="max_body", type=int, default=_DEFAULT_MAX_BODY, metavar="BYTES",
                       help=f"largest request body (default {_DEFAULT_MAX_BODY}); longer: 413")
    serve.add_argument("--max-concurrency", dest="max_concurrency", type=int, metavar="N",
                       help="validations at once (default 4 per CPU core); beyond it: 503 with Retry-After")
    serve.add_argument("--request-timeout", dest="request_timeout", type=float, default=_DEFAULT_TIMEOUT,
                       metavar="S", help=f"seconds one validation may take (default {_DEFAULT_TIMEOUT:g}); "
                                         "longer: 504")
    add_model_flags(serve)
    add_gate_flags(serve)
    serve.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    if args.evidence_doc is not None:
        raise InputError("--evidence-doc belongs to one result: a client sends it as its result's `evidence`")
    from judge.runs.keys import configured_key
    from judge.serve.server import serve
    from judge.serve.settings import ServerSettings
    from judge.workspace.roots import WorkspaceRoots

    config = config_of(args, gate_settings(args))
    configured_key(config.evidence_key, config.artifacts_root)  # a bad key file is exit 2 now, not on every request
    settings = ServerSettings.checked(
        config, roots=WorkspaceRoots.of(args.workspace_roots), host=args.host, port=args.port,
        token=os.environ.get("JUDGE_SERVER_TOKEN"), max_body=args.max_body, max_concurrency=args.max_concurrency,
        request_timeout=args.request_timeout)
    try:
        serve(settings)
    except KeyboardInterrupt:  # uvicorn has finished the requests in flight, then passes Ctrl-C on
        pass
    sys.stderr.write("judge: server stopped\n")
    return 0
