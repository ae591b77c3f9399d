// @evals/opencode: the CPU time of one replayed OpenCode run (the child tree: opencode and what it
// starts), before and after what cut OpenCode's start, side by side and interleaved, medians of
// BENCH_OPENCODE_RUNS rounds (default 5). CPU time, not wall time: the first `npm run eval` is
// CPU-bound on 2 cores, and CPU time is far steadier on a busy machine.
//
// The same scripted run (bash `ls`, read a.txt, an answer) four ways:
//  1. bare `opencode run`, fresh dirs: how the runner started OpenCode before (OpenCode turns its whole
//     models.dev snapshot into providers, and tries to npm-install @opencode-ai/plugin, offline);
//  2. the same + the run's config dir marked as having the plugin (its installer skips the dir);
//  3. runOpenCode with OPENCODE_MODELS_PATH removed (the whole snapshot; the plugin marker stays);
//  4. runOpenCode as it is (only the run's provider's models, and the marker).
// Judged by 4 / 1 (the whole saving) and 3 / 4 (the models file's part).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { capturePluginSource, findOpenCode, runOpenCode } from "@evals/opencode";
import {
  countToolResults,
  lastToolResult,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";
import { childCpuMs, envCount, median, ms, LIST_THEN_READ as PROMPT } from "./bench-kit.mjs";

const rounds = envCount("BENCH_OPENCODE_RUNS", 5);
const OPENCODE_BIN = findOpenCode();
// rg for OpenCode's file search, on PATH as the runner puts it (without it OpenCode tries to fetch one):
// the runner's own, from a first run (which also makes the provider's models file), not counted.
let rgDir;
const work = mkdtempSync(join(tmpdir(), "evals-bench-opencode-"));
const project = join(work, "project");
mkdirSync(project);
writeFileSync(join(project, "a.txt"), "hello\n");
const outputRoot = join(work, "out");

const model = () =>
  scripted((request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(text("Listing."), toolUse("bash", { command: "ls" }));
      case 1:
        return reply(toolUse("read", { filePath: join(project, "a.txt") }));
      default:
        return reply(text(`Read: ${lastToolResult(request)?.text.trim()}`));
    }
  });

/** `opencode run` with the runner's earlier hermetic start: fresh dirs, config in the env, capture plugin. */
async function bare(server, { pluginMarker }) {
  const sandbox = mkdtempSync(join(work, "sandbox-"));
  const dir = (name) => join(sandbox, name);
  for (const name of ["home", "config/opencode/plugin", "data", "cache", "state", "tmp"])
    mkdirSync(dir(name), { recursive: true });
  writeFileSync(dir("config/opencode/plugin/evals-capture.js"), capturePluginSource());
  if (pluginMarker) {
    mkdirSync(dir("config/opencode/node_modules"));
    writeFileSync(
      dir("config/opencode/package-lock.json"),
      JSON.stringify({ packages: { "": { dependencies: { "@opencode-ai/plugin": "1.18.33" } } } }),
    );
  }
  const config = {
    model: "anthropic/claude-sonnet-4-5",
    autoupdate: false,
    share: "disabled",
    provider: { anthropic: { options: { baseURL: `${server.url}/v1`, apiKey: "sk-bench" } } },
  };
  const child = spawn(OPENCODE_BIN, ["run", "--format", "json", "--title", "evals run"], {
    cwd: project,
    stdio: ["pipe", "pipe", "pipe"],
    env: {
      PATH: [rgDir, process.env.PATH].filter(Boolean).join(delimiter),
      LANG: "C.UTF-8",
      HOME: dir("home"),
      XDG_CONFIG_HOME: dir("config"),
      XDG_DATA_HOME: dir("data"),
      XDG_CACHE_HOME: dir("cache"),
      XDG_STATE_HOME: dir("state"),
      TMPDIR: dir("tmp"),
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_SHARE: "1",
      EVALS_OPENCODE_EVENTS: dir("events.jsonl"),
      EVALS_OPENCODE_STATUS: dir("status.jsonl"),
      npm_config_offline: "true",
      NO_COLOR: "1",
    },
  });
  child.stdin.end(PROMPT);
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.resume();
  const code = await new Promise((resolve) => child.on("close", resolve));
  rmSync(sandbox, { recursive: true, force: true });
  if (code !== 0 || !stdout.includes("1: hello")) throw new Error(`bare opencode failed (exit ${code})`);
}

async function runner(server, env) {
  const result = await runOpenCode({
    prompt: PROMPT,
    cwd: project,
    baseUrl: server.url,
    outputRoot,
    keepSandbox: "never",
    ...(env ? { env } : {}),
  });
  if (result.error) throw new Error(`runOpenCode failed: ${result.error}`);
  rgDir ??= result.ripgrep_dir;
  const tools = result.run.events.filter((event) => event.type === "tool_call").map((event) => event.name);
  if (tools.join(",") !== "Bash,Read") throw new Error(`unexpected tool calls: ${tools}`);
}

const variants = {
  "1. bare opencode run, fresh dirs (before)": (server) => bare(server, { pluginMarker: false }),
  "2. bare + plugin marker": (server) => bare(server, { pluginMarker: true }),
  "3. runOpenCode, whole models snapshot": (server) => runner(server, { OPENCODE_MODELS_PATH: undefined }),
  "4. runOpenCode (after)": (server) => runner(server),
};
const cpu = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
const loads = [];

try {
  const names = Object.keys(variants);
  const first = await startModelServer({ source: model() });
  await runner(first).finally(() => first.close());
  // One warm-up of each (file cache; the first runOpenCode makes the provider's models file), not counted.
  for (let round = -1; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + Math.max(round, 0)) % names.length]);
    for (const name of order) {
      const server = await startModelServer({ source: model() });
      try {
        const before = childCpuMs();
        await variants[name](server);
        if (round >= 0 && before !== undefined) cpu[name].push(childCpuMs() - before);
      } finally {
        await server.close();
      }
    }
    loads.push(loadavg()[0]);
  }
  console.log(
    `one scripted OpenCode run (bash, read, answer), CPU of the child tree, ${rounds} interleaved rounds, medians:`,
  );
  for (const [name, values] of Object.entries(cpu)) {
    console.log(`  ${name.padEnd(42)} ${ms(median(values)).padStart(8)}   (${values.join(", ")})`);
  }
  const [before, marker, whole, after] = names.map((name) => median(cpu[name]));
  console.log(`  after / before (4 / 1):            ${(after / before).toFixed(3)}`);
  console.log(`  plugin marker (2 / 1):             ${(marker / before).toFixed(3)}`);
  console.log(`  provider's models file (4 / 3):    ${(after / whole).toFixed(3)}`);
  console.log(`  load average during the rounds: ${loads.map((load) => load.toFixed(1)).join(", ")}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
