"""The MCP server (the official SDK's low-level Server): the tools validate_step, explain_rules and
instructions_for_step, and the executor's instructions as the resource judge://instructions.

The low-level Server, not MCPServer's decorators: the tools' input schemas are judge's contract (schemas/,
bundled), not schemas the SDK would derive from Python signatures. A call that cannot be judged is a tool error
with one line naming the argument at fault, never `valid: true`, and never takes the server down.
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable, Mapping

from mcp import types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from judge.errors import InputError
from judge.instructions import render_instructions
from judge.mcp import schemas
from judge.mcp.tools import Answer, Settings, explain_rules, instructions_for_step, validate_step
from judge.version import __version__
from judge.workspace.roots import REQUEST_FIELD_NAMES

__all__ = ["INSTRUCTIONS_URI", "build_server", "serve_stdio"]

INSTRUCTIONS_URI = "judge://instructions"

logger = logging.getLogger("judge.mcp")

_ABOUT = ("judge decides whether a coding agent really did its plan step. Call validate_step with the step and the "
          "executor's result (and, when the server has workspace roots, the repository) for {valid, reason}; "
          "explain_rules says what each rule id means; the resource judge://instructions, or instructions_for_step, "
          "is what to tell the executor.")

_TOOLS = (
    types.Tool(name="validate_step", title="Judge one executor result",
               description="judge's verdict on an executor's result for one plan step: {valid, reason}, the full "
                           "verdict with explain. A rejection's reason names the rule, the file and what to fix.",
               input_schema=schemas.VALIDATE_INPUT, output_schema=schemas.VERDICT_OUTPUT,
               annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False)),
    types.Tool(name="explain_rules", title="judge's rule catalogue",
               description="Every rule id judge can give, its stage and when it rejects; or one rule, or one stage.",
               input_schema=schemas.EXPLAIN_RULES_INPUT, output_schema=schemas.RULES_OUTPUT,
               annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)),
    types.Tool(name="instructions_for_step", title="Instructions for the executor",
               description="Markdown to put in an executor's prompt: what to return for this step and how judge "
                           "judges it (rules, scope, work evidence, gates). Without a step: for any step.",
               input_schema=schemas.INSTRUCTIONS_INPUT,
               annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)),
)

_Handler = Callable[[Mapping[str, Any], Settings], "Answer | Awaitable[Answer]"]
_HANDLERS: dict[str, _Handler] = {"validate_step": validate_step, "explain_rules": explain_rules,
                                  "instructions_for_step": instructions_for_step}

def build_server(settings: Settings) -> Server:
    """The server, judging with ``settings`` (its config already pinned for clients)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(_TOOLS))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        handler = _HANDLERS.get(params.name)
        if handler is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {params.name!r}; the tools are "
                           f"{', '.join(_HANDLERS)}")
        return await _answered(handler, params.arguments or {}, settings)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(
            uri=INSTRUCTIONS_URI, name="instructions", title="Instructions for the executor",
            description="What an executor must return for any step and how judge judges it (Markdown); "
                        "instructions_for_step gives them for one step.", mime_type="text/markdown")])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if str(params.uri) != INSTRUCTIONS_URI:
            raise MCPError(code=types.INVALID_PARAMS, message=f"no resource {str(params.uri)[:200]!r}; the "
                           f"resource is {INSTRUCTIONS_URI}")
        text = render_instructions(config=settings.config)
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=INSTRUCTIONS_URI, text=text,
                                                                            mime_type="text/markdown")])

    return Server("judge", version=__version__, title="judge", instructions=_ABOUT,
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_read_resource=read_resource)


async def _answered(handler: _Handler, arguments: Mapping[str, Any], settings: Settings) -> types.CallToolResult:
    """The handler's answer, or a tool error: InputError's one line, or, for a bug in judge, one line saying so."""
    try:
        answer = handler(arguments, settings)
        if not isinstance(answer, Answer):
            answer = await answer
    except InputError as exc:
        return _error(exc.render({**REQUEST_FIELD_NAMES, "request": "the call"}))
    except Exception as exc:  # a bug in judge: the client gets a tool error, never a verdict; the server goes on
        logger.exception("judge mcp: a tool call failed")
        return _error(f"internal error ({type(exc).__name__}: {str(exc)[:200]}); please report it")
    return types.CallToolResult(content=[types.TextContent(text=answer.text)], structured_content=answer.structured,
                                meta=answer.meta)


def _error(line: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=f"judge: {line}")], is_error=True)


async def serve_stdio(settings: Settings) -> None:
    """Serve over this process's stdin and stdout until the client closes them (the SDK points fd 1 at stderr
    meanwhile, so nothing but protocol reaches stdout)."""
    from mcp.server.stdio import stdio_server

    server = build_server(settings)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
