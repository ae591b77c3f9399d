// @evals/gemini-cli: the wall time of geminiRunner against the bare `gemini -p` command on the same
// scripted run (run_shell_command, read_file, then an answer), measured side by side and
// interleaved, medians of BENCH_GEMINI_RUNS rounds (default 5). Target: runner / bare <= 1.05.
//
// Two pairs, so each compares like with like:
//  A. capture off: geminiRunner with capture: false vs `gemini -p ... --output-format stream-json`
//     with the runner's hermetic settings.json (fresh HOME, GEMINI_CLI_HOME, TMPDIR);
//  B. capture on: geminiRunner vs the same bare command whose settings.json has the runner's
//     AfterTool capture hook.
// What the hook costs (B against A) and the machine's load are printed for information.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { geminiRunner, hermeticSettings } from "@evals/gemini-cli";
import {
  countFunctionResponses,
  geminiFunctionCall,
  geminiReply,
  lastFunctionResponse,
  scriptedGemini,
  startModelServer,
} from "@evals/vcr";
import { childCpuMs, envCount, median, ms, LIST_THEN_READ as PROMPT, WORKSPACE } from "./bench-kit.mjs";

const GEMINI_BIN = join(WORKSPACE, "node_modules/.bin/gemini");

const MODEL = "gemini-2.5-flash";
const rounds = envCount("BENCH_GEMINI_RUNS", 5);
const work = mkdtempSync(join(tmpdir(), "evals-bench-gemini-"));
const project = join(work, "project");
mkdirSync(project);
writeFileSync(join(project, "a.txt"), "hello\n");
const outputRoot = join(work, "out");

const model = () =>
  scriptedGemini((request) => {
    switch (countFunctionResponses(request)) {
      case 0:
        return geminiReply(geminiFunctionCall("run_shell_command", { command: "ls" }));
      case 1:
        return geminiReply(geminiFunctionCall("read_file", { file_path: "a.txt" }));
      default:
        return geminiReply(`Read: ${lastFunctionResponse(request)?.text.trim()}`);
    }
  });

/** The bare command, hermetic like the runner's (a fresh home with its settings.json), stdout read to the end. */
async function bare(server, { capture }) {
  const home = mkdtempSync(join(work, "home-"));
  mkdirSync(join(home, ".gemini"));
  mkdirSync(join(home, "tmp"));
  const hookDir = join(home, "after-tool");
  mkdirSync(hookDir);
  const hook = capture ? `cat > "$(mktemp '${hookDir}/call-XXXXXXXX')"` : undefined;
  writeFileSync(
    join(home, ".gemini", "settings.json"),
    JSON.stringify(hermeticSettings({ prompt: PROMPT }, hook)),
  );
  const started = performance.now();
  const child = spawn(
    GEMINI_BIN,
    ["-p", PROMPT, "--output-format", "stream-json", "-m", MODEL, "--approval-mode", "yolo"],
    {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env.PATH,
        LANG: "C.UTF-8",
        HOME: home,
        GEMINI_CLI_HOME: home,
        TMPDIR: join(home, "tmp"),
        GEMINI_CLI_NO_RELAUNCH: "true",
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        GEMINI_API_KEY: "dummy-gemini-key",
        GOOGLE_GEMINI_BASE_URL: server.url,
        FORCE_COLOR: "0",
        NO_COLOR: "1",
      },
    },
  );
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.resume();
  const code = await new Promise((resolve) => child.on("close", resolve));
  const elapsed = performance.now() - started;
  rmSync(home, { recursive: true, force: true });
  if (code !== 0 || !stdout.includes('"type":"result"')) throw new Error(`bare gemini failed (exit ${code})`);
  return elapsed;
}

async function runner(server, { capture }) {
  const started = performance.now();
  const result = await geminiRunner.run(
    { prompt: PROMPT, cwd: project, baseUrl: server.url, outputRoot, model: MODEL, capture },
    {},
  );
  const elapsed = performance.now() - started;
  if (result.error) throw new Error(`geminiRunner failed: ${result.error}`);
  const tools = result.run.events.filter((event) => event.type === "tool_call").map((event) => event.name);
  if (tools.join(",") !== "Bash,Read") throw new Error(`unexpected tool calls: ${tools}`);
  return elapsed;
}

const variants = {
  "bare gemini -p": (server) => bare(server, { capture: false }),
  "geminiRunner, capture off": (server) => runner(server, { capture: false }),
  "bare gemini -p + AfterTool hook": (server) => bare(server, { capture: true }),
  "geminiRunner (capture on)": (server) => runner(server, { capture: true }),
};
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
const cpu = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
const loads = [];

try {
  const names = Object.keys(variants);
  // One warm-up of each (file cache, first start of the CLI), not counted.
  for (let round = -1; round < rounds; round++) {
    // Interleaved, and the order rotates every round so no variant always runs first.
    const order = names.map((_, i) => names[(i + Math.max(round, 0)) % names.length]);
    for (const name of order) {
      const server = await startModelServer({ source: model(), modelApi: "gemini" });
      try {
        const cpuBefore = childCpuMs();
        const elapsed = await variants[name](server);
        const cpuAfter = childCpuMs();
        if (round >= 0) {
          times[name].push(elapsed);
          if (cpuBefore !== undefined) cpu[name].push(cpuAfter - cpuBefore);
        }
      } finally {
        await server.close();
      }
    }
    loads.push(loadavg()[0]);
  }
  console.log(
    `the same scripted Gemini run (run_shell_command, read_file, answer), ${rounds} interleaved rounds, medians:`,
  );
  for (const [name, values] of Object.entries(times)) {
    const cpuNote = cpu[name].length > 0 ? `   CPU ${ms(median(cpu[name])).padStart(8)}` : "";
    console.log(
      `  ${name.padEnd(34)} ${ms(median(values)).padStart(8)}${cpuNote}   (wall: ${values.map((v) => v.toFixed(0)).join(", ")})`,
    );
  }
  const ratio = (a, b) => median(times[a]) / median(times[b]);
  const off = ratio("geminiRunner, capture off", "bare gemini -p");
  const on = ratio("geminiRunner (capture on)", "bare gemini -p + AfterTool hook");
  const verdict = (value) => (value <= 1.05 ? "OK" : "OVER");
  console.log(
    `geminiRunner / bare, capture off:          ${off.toFixed(3)} (target <= 1.05): ${verdict(off)}`,
  );
  console.log(`geminiRunner / bare, both with the hook:   ${on.toFixed(3)} (target <= 1.05): ${verdict(on)}`);
  if (cpu["bare gemini -p"].length > 0) {
    const cpuRatio = (a, b) => median(cpu[a]) / median(cpu[b]);
    console.log(
      `CPU time of the CLI's process tree, runner / bare: ${cpuRatio("geminiRunner, capture off", "bare gemini -p").toFixed(3)} capture off, ${cpuRatio("geminiRunner (capture on)", "bare gemini -p + AfterTool hook").toFixed(3)} capture on`,
    );
  }
  console.log(
    `for information, what the AfterTool hook costs: ${ratio("geminiRunner (capture on)", "geminiRunner, capture off").toFixed(3)}x a run without it`,
  );
  console.log(
    `load average (1 min) over the rounds: ${loads.map((load) => load.toFixed(2)).join(", ")} on ${(await import("node:os")).cpus().length} cores`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
