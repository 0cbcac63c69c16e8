"""One chat call through litellm, with the only retry policy in judge.

Transport failures (timeout, connection reset, 429, 5xx) are retried with
exponential backoff and full jitter, honouring a 429's Retry-After, bounded by a
number of attempts and by a total deadline. Anything else (a bad request, a
refused key) fails at once. litellm is imported here, on first use only, in a
thread: a run that never reaches the semantic stage never pays for it, and one
that does goes on judging what needs no model while it loads. Inside
judge.llm.pool's ``connection_pool(size)``, calls share its kept-alive connections.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import email.utils
import importlib
import os
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, stop_after_delay
from tenacity.wait import wait_random_exponential

from judge.config import JudgeConfig
from judge.contract.schema import load_schema
from judge.lazy_pattern import lazy_compile
from judge.llm.pool import lend_to

__all__ = ["CONFIGURATION_ERROR", "Attempt", "Completion", "LLMUnavailable", "Pauses", "complete", "import_ahead", "import_litellm",
           "preload", "share_pauses", "VERDICT_GRAMMAR"]

# GBNF for llama.cpp-style servers: exactly {"valid": bool, "reason": "..."} with no raw newline in the string.
VERDICT_GRAMMAR = r"""root ::= "{" ws "\"valid\"" ws ":" ws boolean ws "," ws "\"reason\"" ws ":" ws string ws "}"
boolean ::= "true" | "false"
string ::= "\"" ( [^"\\\x00-\x1f] | "\\" ["\\/bfnrt] )* "\""
ws ::= [ ]?"""

# Errors raised before any response arrived.
_NO_RESPONSE = {"APIConnectionError", "APITimeoutError", "ConnectError", "ConnectTimeout", "ReadTimeout",
                "RemoteProtocolError", "ReadError", "WriteError", "PoolTimeout"}
# litellm's words when it labels a failure "500" that no server sent (no response, or a 200 it could not read).
_NO_RESPONSE_TEXT = lazy_compile(r"Connection error|Empty or invalid response|Request timed out")
# Library wrappers to look through for the cause a person can act on.
_WRAPPER_MODULES = ("litellm", "openai", "httpx", "httpcore", "anyio")

_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}


@dataclass(frozen=True)
class Attempt:
    latency_ms: float
    error: str | None = None


@dataclass(frozen=True)
class Completion:
    text: str | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    attempts: tuple[Attempt, ...] = field(default=())


class LLMUnavailable(Exception):
    """No usable answer after bounded retries; ``attempts`` says what each try met."""

    def __init__(self, reason: str, attempts: tuple[Attempt, ...]) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts


def import_litellm() -> Any:
    """litellm, imported as judge needs it: no price list fetched, no .env loaded, no banners."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # else it fetches prices at import
    # else its import loads a .env into this process's environment, found from the working directory when
    # run as `python -c` or under a tracer: a judged workspace's .env could set OPENAI_BASE_URL for judge
    os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
    import litellm

    litellm.suppress_debug_info = True  # no multi-line banners on stderr
    litellm.disable_aiohttp_transport = True  # plain httpx: one transport, recordable by vcrpy
    return litellm


_LOADING: concurrent.futures.Future | None = None  # litellm's import in a thread, once per process
_LOADING_LOCK = threading.Lock()


async def _loaded_litellm() -> Any:
    """litellm, imported on the first call in a thread (~2 s, and the OpenAI SDK's resources with it): the event
    loop goes on meanwhile, so what needs no model (the cases the rules decide) never waits for the import."""
    with _LOADING_LOCK:
        loading = _LOADING if _LOADING is not None or "litellm" in sys.modules else _import_in_thread()
    if loading is not None and not loading.done():
        await asyncio.wait([asyncio.wrap_future(loading)])
    return import_litellm()  # imported: at once; an import that failed fails here again, where complete() expects it


def preload() -> None:
    """Everything a first model call would import: litellm, and the OpenAI SDK's resources, which the SDK
    imports on a client's first call (~0.8 s, 600 modules)."""
    import_litellm()
    importlib.import_module("openai.resources")


def import_ahead() -> None:
    """Start litellm's import in a thread now, unless it is started or done: for an eval worker, started
    because the run has a model and enough cases to need it, whose first call should not wait for the import
    to begin. A process of a few cases imports litellm at its first call only, none when the rules decide all."""
    with _LOADING_LOCK:
        if _LOADING is None and "litellm" not in sys.modules:
            _import_in_thread()


def _import_in_thread() -> concurrent.futures.Future:
    global _LOADING
    loading: concurrent.futures.Future = concurrent.futures.Future()
    _LOADING = loading

    def load() -> None:
        try:
            preload()
        except BaseException as exc:
            loading.set_exception(exc)
        else:
            loading.set_result(None)

    threading.Thread(target=load, name="judge-litellm-import", daemon=True).start()
    return loading


async def complete(config: JudgeConfig, messages: list[dict]) -> Completion:
    litellm = await _loaded_litellm()
    lend_to(litellm)
    attempts: list[Attempt] = []
    started = time.monotonic()
    retrying = AsyncRetrying(
        stop=stop_after_attempt(config.retries + 1) | stop_after_delay(config.deadline),
        wait=_Backoff(config, started),
        retry=retry_if_exception(_is_transient),
        reraise=True,
    )
    try:
        async for attempt in retrying:
            with attempt:
                return await _one_call(litellm, config, messages, started, attempts)
    except Exception as exc:
        raise LLMUnavailable(_describe(exc, config), tuple(attempts)) from None
    raise LLMUnavailable("no attempt was made", tuple(attempts))  # pragma: no cover - tenacity always tries once


Provider = tuple[str | None, str | None]  # (model, api_base)


class Pauses(Protocol):
    """When each provider may be called again, as time.monotonic() (0: now)."""

    def until(self, provider: Provider) -> float: ...

    def extend(self, provider: Provider, until: float) -> None: ...


class _ProcessPauses:
    def __init__(self) -> None:
        self._until: dict[Provider, float] = {}

    def until(self, provider: Provider) -> float:
        return self._until.get(provider, 0.0)

    def extend(self, provider: Provider, until: float) -> None:
        self._until[provider] = max(self.until(provider), until)


# One shared pause per provider: when any call is rate-limited, every call to that provider waits.
# Process state on purpose: the limit is the provider's, not a call's.
_PAUSES: Pauses = _ProcessPauses()


def share_pauses(pauses: Pauses) -> None:
    """Keep the providers' pauses in ``pauses`` from now on: the worker processes of one eval run share one in
    shared memory, so a 429 met by one pauses them all."""
    global _PAUSES
    _PAUSES = pauses


async def _one_call(litellm: Any, config: JudgeConfig, messages: list[dict], started: float,
                    attempts: list[Attempt]) -> Completion:
    pause = _PAUSES.until((config.model, config.api_base)) - time.monotonic()
    if pause > 0:
        await asyncio.sleep(min(pause, max(config.deadline - (time.monotonic() - started), 0.0)))
    left = config.deadline - (time.monotonic() - started)
    call_started = time.monotonic()
    try:
        # wait_for is the hard stop: a provider that ignores `timeout` still cannot hang the judge.
        response = await asyncio.wait_for(
            litellm.acompletion(**_request(litellm, config, messages, min(config.timeout, max(left, 1.0)))),
            timeout=min(config.timeout, max(left, 1.0)) + 1.0,
        )
    except BaseException as exc:
        attempts.append(Attempt(_ms(call_started), _describe(exc, config)))
        raise
    attempts.append(Attempt(_ms(call_started)))
    usage = getattr(response, "usage", None)
    return Completion(
        text=response.choices[0].message.content,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cost_usd=_cost(litellm, response),
        attempts=tuple(attempts),
    )


def _request(litellm: Any, config: JudgeConfig, messages: list[dict], timeout: float) -> dict:
    request: dict[str, Any] = {
        "model": config.model,
        "messages": messages,
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "timeout": timeout,
        "max_retries": 0,  # the SDK's own retries would hide failures from the policy above
        "num_retries": 0,
    }
    if config.api_base:
        request["api_base"] = config.api_base
        request["api_key"] = config.api_key or "no-key"  # local OpenAI-compatible servers need none
    elif config.api_key:
        request["api_key"] = config.api_key
    mode = config.output_mode
    if mode == "auto":
        mode = "json_schema" if _supports_schema(litellm, config.model) else "none"
    if mode == "json_schema":
        schema = {k: v for k, v in load_schema("verdict").items() if not k.startswith("$")}
        request["response_format"] = {"type": "json_schema",
                                      "json_schema": {"name": "verdict", "schema": schema, "strict": True}}
    elif mode == "json_object":
        request["response_format"] = {"type": "json_object"}
    elif mode == "grammar":
        request["extra_body"] = {"grammar": VERDICT_GRAMMAR}
    return request


def _supports_schema(litellm: Any, model: str | None) -> bool:
    try:
        return bool(model) and bool(litellm.supports_response_schema(model=model))
    except Exception:
        return False


def _cost(litellm: Any, response: Any) -> float | None:
    hidden = getattr(response, "_hidden_params", None) or {}
    known = hidden.get("response_cost")
    if known is not None:  # litellm priced the call already
        return float(known)
    if "response_cost" in hidden:  # litellm tried and has no price for the model: asking again costs ~0.5 ms
        return None
    try:
        return float(litellm.completion_cost(completion_response=response))
    except Exception:  # a local or unpriced model has no cost
        return None


class _Backoff:
    """Exponential backoff with full jitter; a 429's Retry-After when given; never past the deadline."""

    def __init__(self, config: JudgeConfig, started: float) -> None:
        self._jitter = wait_random_exponential(multiplier=0.5, max=20)
        self._config = config
        self._started = started

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        wait = _retry_after(exc) if exc is not None else None
        if wait is None:
            wait = self._jitter(state)
        left = self._config.deadline - (time.monotonic() - self._started)
        wait = max(0.0, min(wait, left))
        if exc is not None and _status(exc) == 429:  # the provider says slow down: to every caller
            _PAUSES.extend((self._config.model, self._config.api_base), time.monotonic() + wait)
        return wait


def _is_transient(exc: BaseException) -> bool:
    if _auth_problem(exc) is not None:  # a missing or refused key stays so: retrying only delays the answer
        return False
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return True
    status = _status(exc)
    if status is not None:
        return status in _TRANSIENT_STATUS
    names = {type(e).__name__ for e in _chain(exc)}
    return bool(names & {"Timeout", "APIConnectionError", "APITimeoutError", "ConnectError", "ReadTimeout",
                         "RemoteProtocolError", "ReadError", "ServiceUnavailableError", "InternalServerError"})


def _status(exc: BaseException) -> int | None:
    """The HTTP status the server sent, if it sent one (litellm labels a failed connection "500")."""
    chain = _chain(exc)
    if any(type(link).__name__ in _NO_RESPONSE or _NO_RESPONSE_TEXT.search(str(link)) for link in chain):
        return None
    for link in reversed(chain):
        status = getattr(link, "status_code", None)
        if isinstance(status, int) and status >= 400:
            return status
        response = getattr(link, "response", None)
        status = getattr(response, "status_code", None)
        if isinstance(status, int) and status >= 400:
            return status
    return None


def _retry_after(exc: BaseException) -> float | None:
    for link in _chain(exc):
        for headers in (getattr(getattr(link, "response", None), "headers", None),
                        getattr(link, "litellm_response_headers", None), getattr(link, "headers", None)):
            value = headers.get("retry-after") if hasattr(headers, "get") else None
            if value:
                return _seconds(str(value))
    return None


def _seconds(value: str) -> float | None:
    try:
        return max(0.0, float(value))
    except ValueError:
        when = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, when.timestamp() - time.time()) if when else None


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and its causes, down to the first one that is not a library's wrapper."""
    out: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in out and len(out) < 10:
        out.append(link)
        module = type(link).__module__
        if not module.startswith(_WRAPPER_MODULES) and len(out) > 1:
            break
        # An implicit __context__ is only a cause below the HTTP layers; above them it is noise
        # (litellm raises its mapped errors while handling unrelated internal ones).
        link = link.__cause__ or (link.__context__ if module.startswith(("openai", "httpx", "httpcore")) else None)
    return out


def _describe(exc: BaseException, config: JudgeConfig) -> str:
    """One plain line a person can act on: `connection refused at http://127.0.0.1:9/v1`, `authentication failed:
    no API key for openai`, `HTTP 429 from ...: ...`; never the wrappers' class names one inside the other."""
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return f"the call timed out (no answer within {config.timeout:g} s)"
    provider = _provider(exc, config)
    where = config.api_base or f"{provider}'s API"
    if any(_NO_PROVIDER.search(str(link)) for link in _all_causes(exc)):
        return (f"{CONFIGURATION_ERROR}: litellm knows no provider for the model {config.model!r}, so nothing was "
                "sent; name it as PROVIDER/MODEL the way litellm spells it (e.g. openai/gpt-4o-mini)")
    auth = _auth_problem(exc)
    if auth == "missing":
        return f"authentication failed: no API key for {provider} (set its key, e.g. {provider.upper()}_API_KEY, " \
               "or JUDGE_API_KEY)"
    if auth is not None:
        return f"authentication failed: {provider} refused the API key ({auth})"
    links = _all_causes(exc)
    if any(isinstance(link, ConnectionRefusedError) for link in links):
        return f"connection refused at {where}"
    unreachable = next((link for link in links if type(link).__name__ in ("ConnectError", "ConnectTimeout")), None)
    if unreachable is not None:
        return f"cannot connect to {where}: {_first_line(unreachable)}"
    if _CONNECTION_ERROR.search(str(exc)):
        # the SDK's words when no connection was made; litellm may have dropped the cause (a refused port)
        return f"cannot connect to {where} (connection refused, unreachable, or closed before an answer)"
    if any(type(link).__name__ in ("ReadTimeout", "APITimeoutError", "Timeout") for link in links):
        return f"the call to {where} timed out (no answer within {config.timeout:g} s)"
    status = _status(exc)
    root = _chain(exc)[-1]
    text = _first_line(root) or type(root).__name__
    # litellm's text repeats its class names ("litellm.RateLimitError: RateLimitError: OpenAIException - ..."):
    # keep what the provider said
    text = re.sub(r"^(?:[\w.]+(?:Error|Exception)\s*[:-]\s*)+", "", text).strip() or type(root).__name__
    return (f"HTTP {status} from {where}: {text}" if status else f"{text} ({where})")[:300]


_CONNECTION_ERROR = lazy_compile(r"\bConnection error\b")
_NO_PROVIDER = lazy_compile(r"LLM Provider NOT provided")  # litellm's words, raised before any request
CONFIGURATION_ERROR = "configuration error"  # how _describe starts a problem no retry can mend


def _auth_problem(exc: BaseException) -> str | None:
    """"missing" when no API key was given, the HTTP status when the provider refused one, else None."""
    for link in _all_causes(exc):
        text = str(link)
        if _MISSING_KEY.search(text):
            return "missing"
        status = getattr(link, "status_code", None)
        if type(link).__name__ in ("AuthenticationError", "PermissionDeniedError") or status in (401, 403):
            return f"HTTP {status}" if isinstance(status, int) else type(link).__name__
    return None


_MISSING_KEY = lazy_compile(r"Missing credentials|Missing \w+ API Key|no key is set|api_key client option must be set"
                            r"|OPENAI_API_KEY environment variable", re.I)


def _all_causes(exc: BaseException) -> list[BaseException]:
    """The exception and every cause or context below it (bounded): where a refused connection shows."""
    out: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in out and len(out) < 16:
        out.append(link)
        link = link.__cause__ or link.__context__
    return out


def _provider(exc: BaseException, config: JudgeConfig) -> str:
    named = getattr(exc, "llm_provider", None)
    if isinstance(named, str) and named:
        return named
    model = config.model or ""
    return model.split("/", 1)[0] if "/" in model else (model or "the provider")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def _ms(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)
