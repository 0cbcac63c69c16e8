// @ts-check
/**
 * judge-client.mjs: judge from a Node 20 orchestrator — over `judge serve` (validateHttp, and judgeHttp with the
 * Judge-Accepted and Judge-Next-Action headers), over the `judge validate` command (validateCli), and a retry loop in
 * the shape of `judge drive` (retryLoop).
 *
 * No dependencies and no build step: fetch, child_process, ES modules. Types: judge-client.d.mts.
 * Fail closed: anything that is not a readable verdict is a thrown JudgeError, never `valid: true`.
 */

import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** @typedef {import("./judge-client.mjs").Step} Step */
/** @typedef {import("./judge-client.mjs").ExecuteStepResult} ExecuteStepResult */
/** @typedef {import("./judge-client.mjs").Verdict} Verdict */
/** @typedef {import("./judge-client.mjs").FullVerdict} FullVerdict */
/** @typedef {import("./judge-client.mjs").DriveRequest} DriveRequest */
/** @typedef {import("./judge-client.mjs").ValidateRequest} ValidateRequest */
/** @typedef {import("./judge-client.mjs").HttpOptions} HttpOptions */
/** @typedef {import("./judge-client.mjs").CliOptions} CliOptions */
/** @typedef {import("./judge-client.mjs").ErrorCode} ErrorCode */
/** @typedef {import("./judge-client.mjs").NextAction} NextAction */
/** @template {Verdict} V @typedef {import("./judge-client.mjs").HttpJudgement<V>} HttpJudgement */
/** @template {Verdict} V @typedef {import("./judge-client.mjs").Attempt<V>} Attempt */
/** @typedef {{files: string[], patch: string | null}} ApplyWork */

const HTTP_TIMEOUT_MS = 130_000; // the server gives up at 120 s (--request-timeout) and says so: wait a bit longer
const RETRIES_ON_503 = 2;
const MAX_RETRY_DELAY_MS = 30_000;
const CLI_TIMEOUT_MS = 300_000;
// What a fix's scope check leaves to the judgement of the whole work, as judge drive does (judge/driver/loop.py).
const STEP_REQUIREMENTS = ["gates", "evidenceSchema", "policies", "template"];
const NEXT_ACTIONS = new Set(["advance", "retry", "diagnose", "pause_for_human"]);

export class JudgeError extends Error {
  /** @type {"JudgeError"} */
  name = "JudgeError";

  /**
   * A request judge did not judge: its code, HTTP status, Retry-After seconds and CLI exit code where known.
   * @param {string} message
   * @param {{code: ErrorCode, status?: number | null, retryAfter?: number | null, exitCode?: number | null}} details
   */
  constructor(message, { code, status = null, retryAfter = null, exitCode = null }) {
    super(message);
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
    this.exitCode = exitCode;
  }
}

// ---- HTTP: judge serve ------------------------------------------------------------------------------------------

/**
 * The verdict of `POST {baseUrl}/v1/validate`; with `explain: true` the full one. A 503 is retried `retries` times
 * after its Retry-After; every other refusal, and any reply that is not a verdict, is a thrown JudgeError.
 * `valid` only says whether the report holds up: a valid report of a step not done (success: false) is valid and not
 * accepted. judgeHttp says whether it is accepted; so does a full verdict's outcome.
 * @param {string | URL} baseUrl
 * @param {ValidateRequest} request
 * @param {HttpOptions} [options]
 * @returns {Promise<any>} a Verdict, a FullVerdict with explain (the overloads in judge-client.d.mts)
 */
export async function validateHttp(baseUrl, request, options = {}) {
  return (await exchange(baseUrl, request, options)).verdict;
}

/**
 * validateHttp's verdict with what the service's headers say of it: `accepted` (Judge-Accepted: the orchestrator may
 * take the step as done) and `nextAction` (Judge-Next-Action). Fail closed: a 200 without both headers, with a value
 * other than theirs, or with one that contradicts the verdict (accepted but not valid; a full verdict's outcome that
 * says otherwise) is a thrown JudgeError (unreadable_reply), never `accepted: true`.
 * @param {string | URL} baseUrl
 * @param {ValidateRequest} request
 * @param {HttpOptions} [options]
 * @returns {Promise<HttpJudgement<any>>}
 */
export async function judgeHttp(baseUrl, request, options = {}) {
  const { url, verdict, headers } = await exchange(baseUrl, request, options);
  return { verdict, ...judgementOf(verdict, headers, url) };
}

/** The one exchange both take: the verdict of a 200 reply and its headers.
 * @param {string | URL} baseUrl @param {ValidateRequest} request @param {HttpOptions} options
 * @returns {Promise<{url: URL, verdict: Verdict, headers: Headers}>} */
async function exchange(baseUrl, request, options) {
  const { explain = false, token, timeoutMs = HTTP_TIMEOUT_MS, retries = RETRIES_ON_503,
          maxRetryDelayMs = MAX_RETRY_DELAY_MS, onRetry } = options;
  const url = validateUrl(baseUrl, explain);
  const body = JSON.stringify(requestBody(request));
  for (let retry = 1; ; retry += 1) {
    try {
      return { url, ...await postOnce(url, body, token, timeoutMs) };
    } catch (error) {
      if (!(error instanceof JudgeError) || error.status !== 503 || retry > retries) throw error;
      const delayMs = Math.min((error.retryAfter ?? 1) * 1000, maxRetryDelayMs);
      onRetry?.({ retry, delayMs, error });
      await sleep(delayMs);
    }
  }
}

/** @param {string | URL} baseUrl @param {boolean} explain */
function validateUrl(baseUrl, explain) {
  const base = String(baseUrl);
  const url = new URL("v1/validate", base.endsWith("/") ? base : `${base}/`); // keeps a path prefix (a proxy's)
  if (explain) url.searchParams.set("explain", "1");
  return url;
}

/**
 * Only the keys the service takes: it refuses any other. The execution records go as `records`, whether given as
 * `records` or under their older name `evidence`; both at once is the caller's mistake (the service refuses it too).
 * @param {ValidateRequest} request
 */
function requestBody({ step, result, workspace, records, evidence }) {
  if (records != null && evidence != null) {
    throw new TypeError("the request gives both records and evidence (its older name): give the records once, as records");
  }
  const given = records ?? evidence;
  return { step, result, ...(workspace != null && { workspace }), ...(given != null && { records: given }) };
}

/**
 * What Judge-Accepted and Judge-Next-Action say of `verdict`; a JudgeError when they are missing, unreadable, or
 * disagree with the verdict. @param {Verdict} verdict @param {Headers} headers @param {URL} url
 * @returns {{accepted: boolean, nextAction: NextAction}}
 */
function judgementOf(verdict, headers, url) {
  const acceptedHeader = headers.get("judge-accepted");
  const nextHeader = headers.get("judge-next-action");
  const unreadable = (/** @type {string} */ why) => new JudgeError(
    `${url.origin}: HTTP 200 whose ${why}; nothing may be taken as accepted (a judge serve that sends `
    + "Judge-Accepted and Judge-Next-Action, with no proxy dropping them, is needed)",
    { code: "unreadable_reply", status: 200 });
  if (acceptedHeader !== "true" && acceptedHeader !== "false") {
    throw unreadable(`Judge-Accepted header is ${acceptedHeader === null ? "missing" : JSON.stringify(acceptedHeader)}`
                     + " (true or false)");
  }
  if (nextHeader === null || !NEXT_ACTIONS.has(nextHeader)) {
    throw unreadable(`Judge-Next-Action header is ${nextHeader === null ? "missing" : JSON.stringify(nextHeader)}`
                     + ` (one of ${[...NEXT_ACTIONS].join(", ")})`);
  }
  const accepted = acceptedHeader === "true";
  const nextAction = /** @type {NextAction} */ (nextHeader);
  if (accepted && verdict.valid !== true) throw unreadable("Judge-Accepted is true for a verdict that is not valid");
  const outcome = /** @type {FullVerdict} */ (verdict).outcome;
  if (isObject(outcome) && (outcome.accepted !== accepted || outcome.nextAction !== nextAction)) {
    throw unreadable(`headers (accepted ${accepted}, ${nextAction}) disagree with its outcome (accepted `
                     + `${outcome.accepted}, ${outcome.nextAction})`);
  }
  return { accepted, nextAction };
}

/** @param {URL} url @param {string} body @param {string | undefined} token @param {number} timeoutMs */
async function postOnce(url, body, token, timeoutMs) {
  /** @type {Record<string, string>} */
  const headers = { "content-type": "application/json", accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  let response, text;
  try {
    // judge serve never redirects: a redirect is someone else's server, and must not get the body or the token
    response = await fetch(url, { method: "POST", headers, body, redirect: "error",
                                  signal: AbortSignal.timeout(timeoutMs) });
    text = await response.text();
  } catch (error) {
    throw transportError(error, url, timeoutMs);
  }
  return { verdict: readReply(response, text, url), headers: response.headers };
}

/** @param {unknown} error @param {URL} url @param {number} timeoutMs */
function transportError(error, url, timeoutMs) {
  const failure = /** @type {{name?: string, message?: string, cause?: {code?: string, message?: string}}} */ (error);
  if (failure?.name === "TimeoutError") {
    return new JudgeError(`${url.origin}: no reply within ${timeoutMs} ms (timeoutMs); nothing was decided`,
                          { code: "client_timeout" });
  }
  const why = failure?.cause?.code ?? failure?.cause?.message ?? failure?.message ?? String(error);
  return new JudgeError(`${url.origin}: cannot reach judge serve (${why}); is it running there?`,
                        { code: "network_error" });
}

/** The verdict in a 200 reply; a JudgeError for everything else.
 * @param {Response} response @param {string} text @param {URL} url @returns {Verdict} */
function readReply(response, text, url) {
  const body = parseJson(text);
  const status = response.status;
  if (status === 200) {
    if (isVerdict(body)) return body;
    throw new JudgeError(`${url.origin}: HTTP 200 without a verdict {valid: boolean, reason: string}: ${excerpt(text)}`,
                         { code: "unreadable_reply", status });
  }
  const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
  const error = body?.error;
  if (typeof error?.code === "string" && typeof error?.message === "string") {
    throw new JudgeError(error.message, { code: error.code, status, retryAfter });
  }
  throw new JudgeError(`${url.origin}: HTTP ${status} without judge's error body: ${excerpt(text)}`,
                       { code: "unreadable_reply", status, retryAfter });
}

/** Retry-After in seconds: a number of seconds or an HTTP date; null when absent or unreadable. @param {string | null} value */
function retryAfterSeconds(value) {
  if (value === null) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

// ---- CLI: judge validate ----------------------------------------------------------------------------------------

/**
 * The verdict of `judge validate --step - --result FILE` (no shell): exit 0 or 1 with a verdict on stdout; exit 2
 * (bad input) or anything else is a thrown JudgeError carrying judge's one stderr line.
 * @type {typeof import("./judge-client.mjs").validateCli}
 */
export async function validateCli({ step, result }, options = {}) {
  const { judgeBin = "judge", repo, base, timeoutMs = CLI_TIMEOUT_MS } = options;
  const [program, ...prefix] = typeof judgeBin === "string" ? [judgeBin] : judgeBin;
  const dir = await mkdtemp(join(tmpdir(), "judge-client-"));
  try {
    const resultFile = join(dir, "result.json");
    await writeFile(resultFile, JSON.stringify(result));
    const args = [...prefix, "validate", "--step", "-", "--result", resultFile,
                  ...(repo ? ["--repo", repo] : []), ...(base ? ["--base", base] : [])];
    return cliVerdict(await runProcess(program, args, JSON.stringify(step), timeoutMs));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** @typedef {{code: number | null, signal: string | null, timedOut: boolean, stdout: string, stderr: string}} Run */

/** @param {string} program @param {string[]} args @param {string} input @param {number} timeoutMs @returns {Promise<Run>} */
function runProcess(program, args, input, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"] });
    /** @type {Buffer[]} */ const stdout = [];
    /** @type {Buffer[]} */ const stderr = [];
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill("SIGKILL"); }, timeoutMs);
    child.stdout.on("data", (chunk) => stdout.push(chunk));
    child.stderr.on("data", (chunk) => stderr.push(chunk));
    child.stdin.on("error", () => {}); // judge may exit before reading stdin (a bad flag): its exit code says why
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new JudgeError(`cannot run ${program} (${error.message}); install judge, or give judgeBin`,
                            { code: "cli_unavailable" }));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stdout: Buffer.concat(stdout).toString("utf8"),
                stderr: Buffer.concat(stderr).toString("utf8") });
    });
    child.stdin.end(input);
  });
}

/** @param {Run} run @returns {Verdict} */
function cliVerdict(run) {
  if (run.timedOut) {
    throw new JudgeError("judge validate did not finish within timeoutMs and was killed; nothing was decided",
                         { code: "client_timeout" });
  }
  // 3: a valid report of a step not done (success: false); the verdict says valid, the reason says not done
  if (run.code === 0 || run.code === 1 || run.code === 3) {
    const verdict = parseJson(lastLine(run.stdout));
    if (isVerdict(verdict) && verdict.valid === (run.code !== 1)) return { valid: verdict.valid, reason: verdict.reason };
    throw new JudgeError(`judge validate exited ${run.code} without a verdict to match: ${excerpt(run.stdout)}`,
                         { code: "unreadable_reply", exitCode: run.code });
  }
  const said = lastLine(run.stderr) || "(nothing on stderr)";
  if (run.code === 2) throw new JudgeError(said, { code: "cli_error", exitCode: 2 });
  const how = run.signal ? `was killed by ${run.signal}` : `exited ${run.code}`;
  throw new JudgeError(`judge validate ${how}: ${said}`, { code: "cli_failed", exitCode: run.code });
}

// ---- the retry loop: judge drive's shape --------------------------------------------------------------------------

/**
 * Ask `executor` to apply `step`, judge each result with `validate`, and follow each rejection with a fix_regression
 * request carrying the verdict's reason as feedback and the apply attempt's files as applyFiles; stop at the first
 * accepted attempt, at a full verdict whose outcome.nextAction is not retry, or after maxAttempts. An attempt is
 * accepted when its verdict is valid and, where the verdict has an outcome (explain), the outcome accepts it: a valid
 * report of a step not done (success: false) is not accepted (nextAction diagnose) and ends the loop. A fix is judged as judge
 * drive judges it: its scope as a fix_regression of the apply attempt, then its result as the step's whole work.
 * An error from the executor or from validate is thrown: nothing is accepted.
 * @template {Verdict} V
 * @param {Step} step
 * @param {import("./judge-client.mjs").Executor} executor
 * @param {import("./judge-client.mjs").Validate<V>} validate
 * @param {{maxAttempts?: number, onAttempt?: (attempt: Attempt<V>) => void}} [options]
 * @returns {Promise<Attempt<V>[]>}
 */
export async function retryLoop(step, executor, validate, options = {}) {
  const { maxAttempts = 3, onAttempt } = options;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`maxAttempts is ${maxAttempts}; give a whole number of attempts, 1 or more`);
  }
  /** @type {Attempt<V>[]} */
  const attempts = [];
  let apply = givenApply(step);
  for (let number = 1; number <= maxAttempts; number += 1) {
    const request = requestFor(step, number, attempts.at(-1)?.verdict.reason ?? null, apply);
    const result = await executor(request);
    const verdict = await judgeAttempt(request, result, validate);
    const attempt = { request, result, verdict, accepted: accepts(verdict) };
    attempts.push(attempt);
    onAttempt?.(attempt);
    if (apply === null && request.mode === "apply") apply = applyWork(result, verdict);
    if (attempt.accepted || !retryable(verdict)) break;
  }
  return attempts;
}

/** A fix_regression step's own apply work; null for any other step. @param {Step} step @returns {ApplyWork | null} */
function givenApply(step) {
  if (step.mode !== "fix_regression") return null;
  return { files: [...(step.applyFiles ?? [])], patch: step.applyPatch ?? null };
}

/** `apply` until there is apply work to fix, then `fix_regression` of it.
 * @param {Step} step @param {number} attempt @param {string | null} feedback @param {ApplyWork | null} apply
 * @returns {DriveRequest} */
function requestFor(step, attempt, feedback, apply) {
  return { step, mode: apply ? "fix_regression" : "apply", attempt, feedback,
           applyFiles: apply ? [...apply.files] : null, applyPatch: apply ? apply.patch : null };
}

/** @type {typeof import("./judge-client.mjs").judgedStep} */
export function judgedStep(request) {
  if (request.mode !== "fix_regression") return { ...request.step };
  return { ...request.step, mode: "fix_regression", applyFiles: request.applyFiles, applyPatch: request.applyPatch };
}

/**
 * The attempt's verdict. A fix the loop asked for is judged twice, as judge drive does: its scope as a
 * fix_regression of the apply attempt (without the step's gates, evidence requirements, policies and template), then
 * its result as the step's whole work. Unlike judge drive, `validate` runs the whole pipeline both times: a server
 * with a model configured reviews the scope check too.
 * @template {Verdict} V
 * @param {DriveRequest} request @param {ExecuteStepResult} result
 * @param {import("./judge-client.mjs").Validate<V>} validate @returns {Promise<V>}
 */
async function judgeAttempt(request, result, validate) {
  const step = judgedStep(request);
  if (request.mode !== "fix_regression" || request.step.mode === "fix_regression") return validate(step, result);
  const claim = isObject(result) ? without(result, ["evidence"]) : result;
  const scope = await validate(without(step, STEP_REQUIREMENTS), claim);
  if (scope.valid !== true) return scope;
  return validate({ ...request.step }, { ...result, mode: "apply" });
}

/** Verdicts on an apply attempt that leave nothing to fix inside its files (judge drive's rule): start over. */
const NOT_THE_WORK = new Set(["scope_outside_allowed", "scope_excluded", "missing_patch", "no_work_evidence"]);

/** The work an apply attempt left: every file its result writes and every file a finding named; null when none,
 * or when it worked only in files the step does not allow (the next attempt applies again).
 * @param {ExecuteStepResult} result @param {Verdict} verdict @returns {ApplyWork | null} */
function applyWork(result, verdict) {
  if (!isObject(result) || result.success !== true) return null;
  if (NOT_THE_WORK.has(/** @type {FullVerdict} */ (verdict).rule ?? verdict.reason.split(":")[0])) return null;
  const patch = typeof result.patch === "string" ? result.patch : null;
  const files = new Set(patch ? patchPaths(patch) : []);
  for (const file of Array.isArray(result.filesWritten) ? result.filesWritten : []) {
    if (typeof file === "string" && file) files.add(file);
  }
  for (const finding of /** @type {FullVerdict} */ (verdict).findings ?? []) {
    for (const file of finding.files ?? []) files.add(file);
  }
  return files.size ? { files: [...files], patch } : null;
}

/** A contract verdict ({valid, reason}) does not say: try again. @param {Verdict} verdict */
function retryable(verdict) {
  const next = /** @type {FullVerdict} */ (verdict).outcome?.nextAction;
  return next == null || next === "retry";
}

/** Valid, and accepted by its outcome where it has one (a contract verdict has none: valid is all it says).
 * @param {Verdict} verdict */
function accepts(verdict) {
  const outcome = /** @type {FullVerdict} */ (verdict).outcome;
  return verdict.valid === true && (outcome == null || outcome.accepted === true);
}

// ---- patch paths ------------------------------------------------------------------------------------------------

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/; // `@@ -12,5 +12,7 @@ def f():`; a count of 1 may be left out
const FILE_HEADER = /^(---|\+\+\+|rename from|rename to|copy from|copy to) (.+)$/;

/**
 * Every path a unified diff writes to (both ends of a rename, only the new file of a copy), in patch order, without
 * repeats. Hunk bodies are skipped by their line counts, so a removed line `-- a/x` is never read as a header.
 * @type {typeof import("./judge-client.mjs").patchPaths}
 */
export function patchPaths(patch) {
  /** @type {Set<string>} */
  const paths = new Set();
  let oldLeft = 0, newLeft = 0, copying = false;
  for (const line of patch.split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      if (!line.startsWith("\\")) { // `\ No newline at end of file` counts for neither side
        if (!line.startsWith("+")) oldLeft -= 1;
        if (!line.startsWith("-")) newLeft -= 1;
      }
      continue;
    }
    const hunk = HUNK_HEADER.exec(line);
    if (hunk) {
      [oldLeft, newLeft] = [Number(hunk[1] ?? 1), Number(hunk[2] ?? 1)];
    } else if (line.startsWith("diff --git ")) {
      copying = false;
      const same = samePathOfGitHeader(line.slice("diff --git ".length));
      if (same !== null) paths.add(same);
    } else {
      const header = FILE_HEADER.exec(line);
      if (header === null) continue;
      const [kind, name] = [header[1], unquoteGitPath(header[2].split("\t")[0])];
      copying ||= kind === "copy from";
      if (kind === "copy from" || (kind === "---" && copying) || name === "/dev/null" || !name) continue;
      paths.add(kind === "---" ? stripPrefix(name, "a/") : kind === "+++" ? stripPrefix(name, "b/") : name);
    }
  }
  return [...paths];
}

/** `a/x b/x` -> x (a mode change or a binary file has no ---/+++ lines); null for two different names. @param {string} rest */
function samePathOfGitHeader(rest) {
  if (!rest.startsWith("a/") || (rest.length - 5) % 2 !== 0) return null;
  const path = rest.slice(2, 2 + (rest.length - 5) / 2);
  return rest === `a/${path} b/${path}` ? path : null;
}

/** @param {string} name @param {string} prefix */
function stripPrefix(name, prefix) {
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

const C_ESCAPES = /** @type {Record<string, number>} */ ({ a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 });

/** Undo git's C-style quoting: `"caf\303\251.py"` -> `café.py`. @param {string} name */
function unquoteGitPath(name) {
  if (name.length < 2 || !name.startsWith('"') || !name.endsWith('"')) return name;
  /** @type {number[]} */
  const bytes = [];
  const body = name.slice(1, -1);
  for (let i = 0; i < body.length; i += 1) {
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (body[i] === "\\" && octal) {
      bytes.push(parseInt(octal[0], 8) & 0xff);
      i += 3;
    } else if (body[i] === "\\" && body[i + 1] in C_ESCAPES) {
      bytes.push(C_ESCAPES[body[i + 1]]);
      i += 1;
    } else {
      bytes.push(...Buffer.from(body[i], "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

// ---- shared -----------------------------------------------------------------------------------------------------

/** @param {unknown} value @returns {value is Record<string, any>} */
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A verdict is an object with a boolean `valid` and a reason; an error body is never one. @param {unknown} value @returns {value is Verdict} */
function isVerdict(value) {
  return isObject(value) && typeof value.valid === "boolean" && typeof value.reason === "string"
    && value.reason.length > 0 && !("error" in value);
}

/** @param {string} text @returns {any} */
function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** @template {Record<string, any>} T @param {T} object @param {string[]} keys @returns {T} */
function without(object, keys) {
  return /** @type {T} */ (Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key))));
}

/** @param {string} text */
function lastLine(text) {
  return text.trimEnd().split("\n").at(-1)?.trim() ?? "";
}

/** @param {string} text */
function excerpt(text) {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat ? JSON.stringify(flat.length > 200 ? `${flat.slice(0, 200)}…` : flat) : "(empty body)";
}
