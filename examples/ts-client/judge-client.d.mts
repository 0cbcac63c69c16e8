// The types of judge-client.mjs, written by hand from judge's JSON Schemas (schemas/*.schema.json) and, for the
// full verdict, from the service's OpenAPI document (GET /openapi.json, components FullVerdict and below), which is
// judge/verdict.py's model: camelCase, its execution records under `records`.
// Named .d.mts, not .d.ts: TypeScript looks up the types of `import ... from "./judge-client.mjs"` in
// judge-client.d.mts; a judge-client.d.ts beside it would be ignored. tests/e2e/test_ts_client.py keeps the property
// names of Step, ExecuteStepResult, DriveRequest, Verdict and FullVerdict equal to the schemas'.

// ---- schemas/step.schema.json --------------------------------------------------------------------------------

export type Mode = "apply" | "fix_regression";

/** What the orchestrator asked one executor call to do. Trusted input. */
export interface Step {
  id: string;
  description: string;
  /** The intended mode of this call; null or absent: not stated. */
  mode?: Mode | null;
  /** Gitignore-style globs; when present, every file the patch writes must match one. */
  allowedFiles?: string[] | null;
  /** Gitignore-style globs no file may match. */
  excludedPaths?: string[] | null;
  /** Files the earlier apply step changed: the only files a fix_regression may touch (required then). */
  applyFiles?: string[] | null;
  /** The earlier apply step's patch. */
  applyPatch?: string | null;
  /** True when the step may legitimately change no file. */
  expectsNoChanges?: boolean | null;
  /** Seed 004 gates (schemas/gate.schema.json). */
  gates?: Gate[] | null;
  evidenceSchema?: EvidenceSchemaSpec | null;
  policies?: Policies | null;
  /** A step template's name: NAME.json, NAME.yaml or NAME.yml in the server's templates directory. */
  template?: string | null;
}

/** schemas/gate.schema.json; each type's parameters are listed there. */
export interface Gate {
  type:
    | "command_exit_0" | "command_output_contains" | "command_output_regex" | "file_exists" | "file_not_exists"
    | "changed_files_allowlist" | "changed_files_minimum" | "forbid_paths" | "diff_max_lines" | "diff_min_lines"
    | "json_schema_valid" | "criteria_checklist_complete" | "patch_applies_cleanly" | "no_uncommitted_changes"
    | "tests_passed" | "lint_passed" | "human_approval";
  parameters?: Record<string, unknown>;
  description?: string;
}

/** schemas/evidence-schema.schema.json */
export interface EvidenceSchemaSpec {
  required?: string[];
  optional?: string[];
  criteriaChecklist?: Record<string, string>;
}

/** schemas/policies.schema.json */
export interface Policies {
  preset?: "permissive" | "strict" | "audit" | null;
  enable_shell_gates?: boolean | null;
  shell_gate_allowlist?: string[] | null;
  require_tests_evidence?: boolean | null;
  require_diff_summary?: boolean | null;
  evidence_schema_mode?: "lenient" | "strict" | null;
  accept_unsigned_records?: boolean | null;
  test_commands?: string[] | null;
}

// ---- schemas/execute-step.schema.json ------------------------------------------------------------------------

/** What the executor says it did. Untrusted input: judge checks every claim. */
export interface ExecuteStepResult {
  /** "apply" or "fix_regression"; any other value is judged (rule invalid_mode), not refused. */
  mode: Mode | (string & {});
  success: boolean;
  /** A unified diff. */
  patch?: string | null;
  filesWritten?: string[] | null;
  filesTouched?: string[] | null;
  summary?: string | null;
  /** The agent's evidence document (the EvidenceSchema of the step's gates). */
  evidence?: EvidenceDoc | null;
}

/** schemas/evidence-doc.schema.json: unknown keys are kept. */
export interface EvidenceDoc {
  changed_files?: string[] | null;
  diff_summary?: string | null;
  commands_run?: string[] | null;
  tests_run?: string[] | null;
  tests_passed?: boolean | null;
  lint_run?: boolean | string[] | null;
  lint_passed?: boolean | null;
  artifacts_created?: string[] | null;
  criteria_checklist?: Record<string, boolean> | null;
  notes?: string | null;
  [key: string]: unknown;
}

/** schemas/execution-evidence.schema.json: one record as `judge run` writes it (evidence.json); a ValidateRequest's
 * and a FullVerdict's `records`. */
export interface ExecutionEvidence {
  version: 1;
  stepId: string;
  runId: string;
  command: string[];
  exitCode: number | null;
  stdout: string;
  stderr: string;
  stdoutBytes: number;
  stderrBytes: number;
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  timedOut: boolean;
  status: "SUCCESS" | "FAILURE" | "NO_EVIDENCE";
  evidenceHash: string;
  artifacts: string[];
  error?: string | null;
  evidenceMac?: string | null;
  repository?: string | null;
  base?: string | null;
  workHash?: string | null;
}

// ---- schemas/verdict.schema.json and the full verdict (?explain=1) ---------------------------------------------

/** judge's answer for one step: exactly these two keys. */
export interface Verdict {
  valid: boolean;
  reason: string;
}

export type NextAction = "advance" | "retry" | "diagnose" | "pause_for_human";
export type StageName = "executor" | "contract" | "rules" | "gates" | "semantic";

export interface Finding {
  /** Stable rule id, e.g. undeclared_file. */
  rule: string;
  /** What is wrong and what to do, fit to send back to the executor. */
  message: string;
  severity?: "reject" | "signal";
  stage?: StageName;
  files?: string[];
  /** False when a new attempt by the executor cannot help. */
  retryable?: boolean;
}

export interface StageReport {
  stage: StageName;
  status: "passed" | "rejected" | "skipped" | "error";
  detail?: string;
  durationMs?: number;
}

export interface GateResult {
  /** The gate's position in the effective list: the template's gates, then the step's. */
  index: number;
  type: string;
  description?: string;
  source?: "template" | "step" | "policy" | "claim";
  status: "passed" | "failed" | "pending" | "skipped";
  /** The finding's rule id when the gate did not pass. */
  rule?: string | null;
  message?: string;
}

/** Seed 004's verifier outcome: what the orchestrator does next. The service's Judge-Accepted and Judge-Next-Action
 * headers carry `accepted` and `nextAction` on every verdict, full or not. */
export interface Outcome {
  /** True when the orchestrator may take the step as done: valid, and the step done (a valid report with
   * success: false is not accepted). */
  accepted: boolean;
  missingFields?: string[];
  rejectionReasons?: string[];
  nextAction: NextAction;
}

/** One independent judgement of the model; `valid` is null when the model gave no usable answer. */
export interface SampleRecord {
  valid: boolean | null;
  rule?: string | null;
  reason?: string | null;
  error?: string | null;
  rawReplies?: string[];
}

/** One call to the model. */
export interface CallRecord {
  sample: number;
  purpose: "ask" | "reask";
  attempts: number;
  latencyMs: number;
  promptTokens?: number;
  completionTokens?: number;
  costUsd?: number | null;
  error?: string | null;
}

/** What the semantic (LLM) stage recorded: model, prompt, samples, calls. */
export interface SemanticReport {
  model: string;
  promptVersion: string;
  promptSha256: string;
  outputMode: string;
  patchReduction?: string;
  samples?: SampleRecord[];
  agreement?: number;
  calls?: CallRecord[];
}

/** Everything judge decided about one step (`POST /v1/validate?explain=1`): camelCase, as judge/verdict.py writes it. */
export interface FullVerdict extends Verdict {
  /** The deciding finding's rule id; null when valid. */
  rule?: string | null;
  findings?: Finding[];
  stages?: StageReport[];
  judgeVersion?: string;
  /** Model, prompt hash, samples, calls, tokens and cost when the LLM stage ran. */
  semanticReview?: SemanticReport | null;
  /** How the step proved it worked, from its workspace; null when no repository was given. */
  evidenceMethod?: "file_changes" | "evidence_file" | "expects_no_changes" | "none" | null;
  /** The execution records of this validation: those attached, as given, then those judge's command gates made
   * (before judge 07e97f1: `execution_evidence`). */
  records?: ExecutionEvidence[];
  /** Each gate's result, in evaluation order. */
  gates?: GateResult[];
  /** What the orchestrator does next; set on every verdict judge gives. */
  outcome?: Outcome | null;
}

// ---- schemas/validate-request.schema.json and schemas/error.schema.json ----------------------------------------

/** Where the step ran; every path absolute and inside a --workspace-root of the server. */
export interface WorkspaceSpec {
  repo?: string;
  base?: string;
  ledger?: string;
  ledger_op?: string;
  ledger_id?: string;
}

/** The body of POST /v1/validate. */
export interface ValidateRequest {
  step: Step;
  result: ExecuteStepResult;
  workspace?: WorkspaceSpec | null;
  /** Execution records as `judge run` writes them (evidence.json). */
  records?: ExecutionEvidence[] | null;
  /** @deprecated The older name of `records`, still taken: the client sends it as `records`. Give one of the two. */
  evidence?: ExecutionEvidence[] | null;
}

/** The service's error codes, plus the client's own for what never reached or never came back from it. */
export type ErrorCode =
  | "invalid_json" | "invalid_request" | "unauthorized" | "forbidden_host" | "not_found" | "method_not_allowed"
  | "body_timeout" | "payload_too_large" | "unsupported_media_type" | "internal_error" | "overloaded" | "timeout"
  | "network_error" | "client_timeout" | "unreadable_reply" | "cli_unavailable" | "cli_error" | "cli_failed";

/** A request judge did not judge: nothing was decided, and nothing may be read as an accepted step. */
export declare class JudgeError extends Error {
  constructor(message: string, details: { code: ErrorCode; status?: number | null; retryAfter?: number | null;
                                          exitCode?: number | null });
  readonly name: "JudgeError";
  /** The service's error code, or the client's (network_error, client_timeout, unreadable_reply, cli_*). */
  readonly code: ErrorCode;
  /** The HTTP status; null when no HTTP reply came (network, client timeout, CLI). */
  readonly status: number | null;
  /** Seconds the service asked to wait (Retry-After of a 503); null when it did not say. */
  readonly retryAfter: number | null;
  /** `judge validate`'s exit code (2: bad input); null over HTTP. */
  readonly exitCode: number | null;
}

// ---- the client ------------------------------------------------------------------------------------------------

export interface HttpOptions {
  /** true: the full verdict (findings, stages, gates, outcome). */
  explain?: boolean;
  /** The server's JUDGE_SERVER_TOKEN, sent as `Authorization: Bearer`. */
  token?: string;
  /** Milliseconds one HTTP request may take, reply included (default 130000: the server's own limit is 120 s). */
  timeoutMs?: number;
  /** How often a 503 is retried after its Retry-After (default 2). */
  retries?: number;
  /** The longest wait between two tries, whatever Retry-After says (default 30000 ms). */
  maxRetryDelayMs?: number;
  /** Called before each wait for a retry. */
  onRetry?: (info: { retry: number; delayMs: number; error: JudgeError }) => void;
}

export declare function validateHttp(
  baseUrl: string | URL,
  request: ValidateRequest,
  options: HttpOptions & { explain: true },
): Promise<FullVerdict>;
export declare function validateHttp(
  baseUrl: string | URL,
  request: ValidateRequest,
  options?: HttpOptions,
): Promise<Verdict>;

/** judgeHttp's answer: the verdict, and what the Judge-Accepted and Judge-Next-Action headers say of it. */
export interface HttpJudgement<V extends Verdict = Verdict> {
  verdict: V;
  /** Judge-Accepted: the orchestrator may take the step as done. False for every verdict that is not valid, and for
   * a valid report of a step not done (success: false). */
  accepted: boolean;
  /** Judge-Next-Action: advance (accepted), retry (send the reason back), diagnose (a retry cannot help),
   * pause_for_human. */
  nextAction: NextAction;
}

/** validateHttp, with the service's headers read: a reply without both, or whose headers contradict the verdict, is
 * a thrown JudgeError (unreadable_reply). */
export declare function judgeHttp(
  baseUrl: string | URL,
  request: ValidateRequest,
  options: HttpOptions & { explain: true },
): Promise<HttpJudgement<FullVerdict>>;
export declare function judgeHttp(
  baseUrl: string | URL,
  request: ValidateRequest,
  options?: HttpOptions,
): Promise<HttpJudgement<Verdict>>;

export interface CliOptions {
  /** The judge command: a program name, or the program and its first arguments (default "judge"). */
  judgeBin?: string | string[];
  /** The top of the git work tree the step ran in (with base). */
  repo?: string;
  /** The full id of the commit the step started from (with repo). */
  base?: string;
  /** Milliseconds `judge validate` may run before it is killed (default 300000). */
  timeoutMs?: number;
}

export declare function validateCli(
  request: { step: Step; result: ExecuteStepResult },
  options?: CliOptions,
): Promise<Verdict>;

// ---- the retry loop (schemas/drive-request.schema.json) ----------------------------------------------------------

/** What the retry loop asks of the executor on each attempt, as `judge drive` writes it on an executor's stdin. */
export interface DriveRequest {
  step: Step;
  mode: Mode;
  attempt: number;
  /** The previous attempt's verdict reason; null on the first attempt. */
  feedback: string | null;
  /** fix_regression: the only files the fix may touch (the apply attempt's files); null in apply mode. */
  applyFiles: string[] | null;
  /** fix_regression: the apply attempt's patch; null in apply mode. */
  applyPatch: string | null;
}

export interface Attempt<V extends Verdict = Verdict> {
  request: DriveRequest;
  result: ExecuteStepResult;
  verdict: V;
  /** The verdict is valid and, when it has an outcome (explain: true), the outcome accepts the step. Judge with
   * explain: true, or a valid report of a step not done (success: false) reads as accepted. */
  accepted: boolean;
}

export type Executor = (request: DriveRequest) => ExecuteStepResult | Promise<ExecuteStepResult>;
export type Validate<V extends Verdict = Verdict> = (step: Step, result: ExecuteStepResult) => Promise<V>;

export declare function retryLoop<V extends Verdict>(
  step: Step,
  executor: Executor,
  validate: Validate<V>,
  options?: { maxAttempts?: number; onAttempt?: (attempt: Attempt<V>) => void },
): Promise<Attempt<V>[]>;

/** The step an attempt is judged against: its mode, and for a fix, applyFiles and applyPatch. */
export declare function judgedStep(request: DriveRequest): Step;

/** Every path a unified diff writes to (both ends of a rename), in patch order, without repeats. */
export declare function patchPaths(patch: string): string[];
