// @ts-check
/**
 * example.mjs: judge the shipped example step through `judge serve` and through `judge validate`, check that both
 * give the same verdict, then run the retry loop with a scripted executor.
 *
 *   node examples/ts-client/example.mjs http://127.0.0.1:8765 [JUDGE COMMAND...]
 *
 * JUDGE COMMAND defaults to `judge` (e.g. `python -m judge.cli.main` where the console script is not installed).
 * A server started with JUDGE_SERVER_TOKEN gets the same variable's value as its bearer token.
 * Exit 0: HTTP and CLI agree and the loop was accepted; 1: they disagree or it was not; 2: an error.
 */

import { readFile } from "node:fs/promises";
import { JudgeError, retryLoop, validateCli, validateHttp } from "./judge-client.mjs";

/** @typedef {import("./judge-client.mjs").ExecuteStepResult} ExecuteStepResult */

const EXAMPLES = new URL("../", import.meta.url); // examples/: step.json and the two results
const RESULTS = ["result-valid.json", "result-undeclared.json"];

/** @param {string} name */
async function example(name) {
  return JSON.parse(await readFile(new URL(name, EXAMPLES), "utf8"));
}

/** @param {string} baseUrl @param {string[]} judgeBin @param {string | undefined} token */
async function main(baseUrl, judgeBin, token) {
  const step = await example("step.json");
  let agree = true;
  for (const name of RESULTS) {
    const result = await example(name);
    const viaHttp = await validateHttp(baseUrl, { step, result }, { token });
    const viaCli = await validateCli({ step, result }, { judgeBin });
    console.log(`http ${name} ${JSON.stringify(viaHttp)}`);
    console.log(`cli  ${name} ${JSON.stringify(viaCli)}`);
    if (viaHttp.valid !== viaCli.valid || viaHttp.reason !== viaCli.reason) {
      console.error(`example: ${name}: the HTTP verdict and the CLI verdict differ`);
      agree = false;
    }
  }
  const attempts = await retryLoop(step, scriptedExecutor(await example(RESULTS[1]), await example(RESULTS[0])),
                                   (judged, result) => validateHttp(baseUrl, { step: judged, result },
                                                                    { explain: true, token }),
                                   { maxAttempts: 3 });
  for (const { request, verdict } of attempts) {
    const { mode, feedback, applyFiles } = request;
    console.log(`attempt ${request.attempt} ${JSON.stringify({ mode, feedback, applyFiles,
                                                                 verdict: { valid: verdict.valid, reason: verdict.reason } })}`);
  }
  const accepted = attempts.at(-1)?.accepted === true; // valid, and the outcome takes the step as done
  console.log(accepted ? `accepted after ${attempts.length} attempt(s)` : `not accepted after ${attempts.length} attempt(s)`);
  return agree && accepted;
}

/**
 * An executor that changes a vendored file without declaring it on its first attempt and, after the feedback,
 * reports only the declared work, in the mode it was asked for. A real one would run an agent here.
 * @param {ExecuteStepResult} first @param {ExecuteStepResult} afterFeedback
 * @returns {import("./judge-client.mjs").Executor}
 */
function scriptedExecutor(first, afterFeedback) {
  return (request) => ({ ...(request.feedback === null ? first : afterFeedback), mode: request.mode });
}

const [baseUrl, ...judgeBin] = process.argv.slice(2);
if (!baseUrl) {
  console.error("usage: node examples/ts-client/example.mjs http://127.0.0.1:8765 [JUDGE COMMAND...]");
  process.exit(2);
}
try {
  process.exitCode = (await main(baseUrl, judgeBin.length ? judgeBin : ["judge"], process.env.JUDGE_SERVER_TOKEN)) ? 0 : 1;
} catch (error) {
  if (!(error instanceof JudgeError)) throw error;
  console.error(`example: ${error.code}${error.status ? ` (HTTP ${error.status})` : ""}: ${error.message}`);
  process.exitCode = 2;
}
