"""`judge serve`: the HTTP service over the pipeline, for orchestrators in other languages (judge.serve)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from judge.cli.gate_flags import add_gate_flags, gate_settings
from judge.cli.settings import add_model_flags, config_of

__all__ = ["add_serve_command"]

# judge.serve.settings' defaults, spelled out: the parser is built without importing the server.
_DEFAULT_HOST = "127.0.0.1"
_DEFAULT_PORT = 8765
_DEFAULT_MAX_BODY = 8 * 1024 * 1024
_DEFAULT_TIMEOUT = 120.0
_DEFAULT_CONCURRENCY = 32


_EPILOG = """\
examples:
  judge serve                                                     # http://127.0.0.1:8765
  judge serve --workspace-root /srv/work --model openai/gpt-4o-mini
  JUDGE_SERVER_TOKEN="$(python3 -c 'import secrets; print(secrets.token_urlsafe(32))')" judge serve --host 0.0.0.0
  curl -s http://127.0.0.1:8765/v1/validate -H 'Content-Type: application/json' \\
       -d "{\\"step\\": $(cat examples/step.json), \\"result\\": $(cat examples/result-valid.json)}"

GET /openapi.json describes the API. exit codes: 0 stopped (Ctrl-C); 2 bad settings, a host beyond loopback without
JUDGE_SERVER_TOKEN, or the port taken (one line on stderr)."""


def add_serve_command(commands: Any) -> None:
    serve = commands.add_parser("serve", help="serve POST /v1/validate over HTTP (loopback unless a token is set)",
                                epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--host", default=_DEFAULT_HOST, help=f"address to listen on (default {_DEFAULT_HOST}); "
                       "a non-loopback one needs JUDGE_SERVER_TOKEN")
    serve.add_argument("--port", type=int, default=_DEFAULT_PORT, help=f"default {_DEFAULT_PORT}; 0: any free port")
    serve.add_argument("--workspace-root", dest="workspace_roots", action="append", default=[], metavar="DIR",
                       help="requests may name repositories and ledgers inside DIR; repeat for several "
                            "(none: every workspace is refused)")
    serve.add_argument("--max-body", dest="max_body", type=int, default=_DEFAULT_MAX_BODY, metavar="BYTES",
                       help=f"largest request body (default {_DEFAULT_MAX_BODY}); longer: 413")
    serve.add_argument("--max-concurrency", dest="max_concurrency", type=int, default=_DEFAULT_CONCURRENCY,
                       metavar="N", help=f"validations at once (default {_DEFAULT_CONCURRENCY}); beyond it: 503 "
                                         "with Retry-After")
    serve.add_argument("--request-timeout", dest="request_timeout", type=float, default=_DEFAULT_TIMEOUT,
                       metavar="S", help=f"seconds a request's body may take to arrive (longer: 408), then "
                                         f"seconds its validation may take (longer: 504); default {_DEFAULT_TIMEOUT:g}")
    serve.add_argument("--workers", type=int, default=1, metavar="N",
                       help="processes sharing the socket (default 1); each has its own --max-concurrency slots")
    add_model_flags(serve)
    add_gate_flags(serve, evidence_doc=False)  # a client sends the evidence document as its result's `evidence`
    serve.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    from judge.cli.extras import require_extra

    require_extra("serve", "serve", ("starlette", "uvicorn"))
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
        started = serve(settings, args.workers)
    except KeyboardInterrupt:  # uvicorn has finished the requests in flight, then passes Ctrl-C on
        started = True
    if not started:
        sys.stderr.write("judge: the server did not start (see the lines above)\n")
        return 2
    sys.stderr.write("judge: server stopped\n")
    return 0
