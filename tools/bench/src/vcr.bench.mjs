// @evals/vcr, two measurements side by side:
// 1. A 5-tool-call run of the REAL claude CLI answered by a wire-level replay, against the same run
//    answered by the scripted model it was recorded from. Target: replay / scripted <= 1.1.
// 2. 100 tool-level cassette replays in one vitest run, against 100 empty tests in one vitest run:
//    total and per-case overhead (and the same replays in-process, without vitest).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseJsonl, runFromStreamJson, toolSequence } from "@evals/core";
import {
  cassette,
  countToolResults,
  recording,
  replaying,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";
import { CLAUDE_BIN, envCount, median, ms, WORKSPACE } from "./bench-kit.mjs";

const require = createRequire(import.meta.url);
const root = WORKSPACE;
const claudeBin = CLAUDE_BIN;
const runs = envCount("BENCH_VCR_RUNS", 5);
const work = mkdtempSync(join(tmpdir(), "evals-bench-vcr-"));

// ---------------------------------------------------------------- 1. wire-level replay, real CLI
const PROMPT = "Run the five steps.";
const fiveSteps = () =>
  scripted((request) => {
    const step = countToolResults(request);
    return step < 5
      ? reply(toolUse("Bash", { command: `echo step-${step + 1}` }))
      : reply(text("Five steps done."));
  });

async function runClaude(server) {
  const home = mkdtempSync(join(work, "home-"));
  mkdirSync(join(home, "project"));
  mkdirSync(join(home, "tmp"));
  const started = performance.now();
  const child = spawn(claudeBin, ["-p", PROMPT, "--output-format", "stream-json", "--verbose"], {
    cwd: join(home, "project"),
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
      TMPDIR: join(home, "tmp"),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      CLAUDE_CODE_MAX_RETRIES: "1",
      FORCE_COLOR: "0",
      ...server.env(),
    },
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const code = await new Promise((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  const elapsed = performance.now() - started;
  rmSync(home, { recursive: true, force: true });
  const run = runFromStreamJson(parseJsonl(stdout, "stdout"), { prompts: [PROMPT] });
  if (code !== 0 || toolSequence(run).length !== 5) {
    throw new Error(`claude exited ${code} with tools ${JSON.stringify(toolSequence(run))}`);
  }
  const sourceMs = server.interactions.reduce((sum, interaction) => sum + interaction.duration_ms, 0);
  return { elapsed, sourceMs, requests: server.interactions.length };
}

const recordingFile = join(work, "five-steps.recording.json");
{
  const upstream = await startModelServer({ source: fiveSteps() });
  const recorder = await startModelServer({
    source: recording({ upstream: upstream.url, file: recordingFile }),
  });
  await runClaude(recorder);
  await recorder.close();
  await upstream.close();
}

const scriptedTimes = [];
const replayTimes = [];
const scriptedSource = [];
const replaySource = [];
let requests = 0;
for (let index = 0; index < runs; index++) {
  // Alternate, so a machine that gets busier or quieter affects both sides alike.
  const model = await startModelServer({ source: fiveSteps() });
  const a = await runClaude(model);
  await model.close();
  const replay = await startModelServer({ source: replaying(recordingFile) });
  const b = await runClaude(replay);
  if (replay.source.divergences.length > 0) throw new Error(replay.source.report());
  await replay.close();
  scriptedTimes.push(a.elapsed);
  replayTimes.push(b.elapsed);
  scriptedSource.push(a.sourceMs);
  replaySource.push(b.sourceMs);
  requests = b.requests;
}
const wireRatio = median(replayTimes) / median(scriptedTimes);
console.log(`real claude CLI, 5 tool calls, ${requests} model requests, median of ${runs} runs each:`);
console.log(
  `  scripted source: ${ms(median(scriptedTimes))} (source time ${median(scriptedSource).toFixed(1)} ms)`,
);
console.log(
  `  replay source:   ${ms(median(replayTimes))} (source time ${median(replaySource).toFixed(1)} ms)`,
);
console.log(
  `  ratio replay / scripted: ${wireRatio.toFixed(3)} (target <= 1.1): ${wireRatio <= 1.1 ? "OK" : "OVER"}`,
);

// ---------------------------------------------------------------- 2. 100 tool-level cassette replays
const CASES = 100;
const cassetteDir = join(work, "cassettes");
const fixture = join(root, "fixtures/claude-code-2.1.330/multi-tool/stream.jsonl");
const run = runFromStreamJson(parseJsonl(readFileSync(fixture, "utf8"), fixture), {
  prompts: ["do the steps"],
});
const identity = (index) => ({
  suite: "bench",
  caseId: `case-${index}`,
  prompt: `do the steps ${index}`,
  dir: cassetteDir,
});
for (let index = 0; index < CASES; index++) {
  const result = {
    run_id: `r${index}`,
    run,
    exit_code: 0,
    timed_out: false,
    duration_ms: 1000,
    origin: "live",
  };
  await cassette({ ...identity(index), mode: "record" }, async () => result);
}

{
  const started = performance.now();
  for (let index = 0; index < CASES; index++) {
    const replayed = await cassette({ ...identity(index), mode: "strict" }, async () => {
      throw new Error("a replay must not start the agent");
    });
    if (toolSequence(replayed.run).length !== 5) throw new Error("bad replay");
  }
  const total = performance.now() - started;
  console.log(
    `\n${CASES} cassette replays in-process: ${ms(total)} total, ${(total / CASES).toFixed(2)} ms per case`,
  );
}

const vcrUrl = pathToFileURL(require.resolve("@evals/vcr")).href;
const vitest = join(root, "node_modules/vitest/vitest.mjs");
const casesLiteral = JSON.stringify(Array.from({ length: CASES }, (_, index) => identity(index)));
writeFileSync(
  join(work, "replay.test.mjs"),
  `import { cassette } from ${JSON.stringify(vcrUrl)};
const cases = ${casesLiteral};
for (const c of cases) {
  test(c.caseId, async () => {
    const result = await cassette({ ...c, mode: "strict" }, async () => { throw new Error("live run"); });
    expect(result.origin).toBe("cassette");
    expect(result.run.events.filter((event) => event.type === "tool_call")).toHaveLength(5);
  });
}
`,
);
writeFileSync(
  join(work, "empty.test.mjs"),
  `import ${JSON.stringify(vcrUrl)};
const cases = ${casesLiteral};
for (const c of cases) {
  test(c.caseId, async () => {
    expect(c.caseId).toBeTruthy();
  });
}
`,
);

function vitestRun(file) {
  const report = join(work, `${file}.json`);
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [
      vitest,
      "run",
      file,
      "--root",
      work,
      "--globals",
      "--reporter=json",
      `--outputFile=${report}`,
      "--pool=threads",
    ],
    {
      cwd: work,
      encoding: "utf8",
      env: { ...process.env, FORCE_COLOR: "0", VCR_MODE: "" },
      timeout: 300_000,
    },
  );
  const wall = performance.now() - started;
  const json = JSON.parse(readFileSync(report, "utf8"));
  if (json.numPassedTests !== CASES) {
    throw new Error(
      `vitest ${file}: ${json.numPassedTests}/${CASES} passed\n${result.stdout}\n${result.stderr}`,
    );
  }
  const testMs = json.testResults
    .flatMap((suite) => suite.assertionResults)
    .reduce((sum, test) => sum + (test.duration ?? 0), 0);
  return { wall, testMs };
}

const empty = vitestRun("empty.test.mjs");
const replayed = vitestRun("replay.test.mjs");
console.log(`${CASES} cases in one vitest run:`);
console.log(`  empty tests:       ${ms(empty.wall)} wall, ${ms(empty.testMs)} in tests`);
console.log(`  cassette replays:  ${ms(replayed.wall)} wall, ${ms(replayed.testMs)} in tests`);
console.log(
  `  overhead per case: ${((replayed.testMs - empty.testMs) / CASES).toFixed(2)} ms in tests, ${((replayed.wall - empty.wall) / CASES).toFixed(2)} ms wall`,
);

rmSync(work, { recursive: true, force: true });
if (wireRatio > 1.1) process.exitCode = 1;
