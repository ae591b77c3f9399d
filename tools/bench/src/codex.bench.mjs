// @evals/codex: the wall time of runCodex against the bare `codex exec --json` command on the same
// scripted run (a shell command, a patch that adds a file, then an answer), measured side by side
// and interleaved (the order rotates every round), medians of BENCH_CODEX_RUNS rounds (default 7).
// Target: runCodex / bare <= 1.05.
//
// The bare command gets what runCodex gives the CLI: a fresh CODEX_HOME with the same config.toml
// (the loopback provider, network features off) and a fresh HOME, the same flags and the same env.
// runCodex adds its loopback tap (request counting, the model's calls), the Run it builds and the
// run folder it writes.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { codexConfigToml, findCodex, runCodex } from "@evals/codex";
import {
  addFile,
  applyPatch,
  execCommand,
  lastToolOutput,
  response,
  scriptedResponses,
  startModelServer,
} from "@evals/vcr";
import { childCpuMs, envCount, median, ms, WORKSPACE } from "./bench-kit.mjs";

const rounds = envCount("BENCH_CODEX_RUNS", 7);
const work = mkdtempSync(join(tmpdir(), "evals-bench-codex-"));
const outputRoot = join(work, "out");
const bin = findCodex({ from: WORKSPACE });
const PROMPT = "List the files, then write a summary.";

const model = () =>
  scriptedResponses((request, context) => {
    if (context.call === 0) return response("Listing.", execCommand("ls"));
    if (context.call === 1) return response(applyPatch(addFile("summary.md", "files: a.txt\n")));
    return response(`Done: ${lastToolOutput(request)?.text.split("\n").pop()}`);
  });

function project() {
  const dir = mkdtempSync(join(work, "project-"));
  writeFileSync(join(dir, "a.txt"), "hello\n");
  return dir;
}

/** `codex exec --json ...` as runCodex starts it, hermetic, its stdout read to the end. */
async function bare(server) {
  const cwd = project();
  const sandbox = mkdtempSync(join(work, "bare-"));
  const codexHome = join(sandbox, "codex-home");
  const home = join(sandbox, "home");
  mkdirSync(codexHome);
  mkdirSync(home);
  writeFileSync(
    join(codexHome, "config.toml"),
    codexConfigToml({ baseUrl: server.url, model: "gpt-5.5", requestMaxRetries: 0, streamMaxRetries: 0 }),
  );
  const started = performance.now();
  const child = spawn(
    bin,
    ["exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write", PROMPT],
    {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        // What runCodex passes through of the caller's env.
        ...Object.fromEntries(
          ["PATH", "SHELL", "USER", "LOGNAME", "LANG"]
            .filter((name) => process.env[name] !== undefined)
            .map((name) => [name, process.env[name]]),
        ),
        HOME: home,
        CODEX_HOME: codexHome,
        EVALS_CODEX_API_KEY: "evals-offline-key",
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
  rmSync(sandbox, { recursive: true, force: true });
  if (code !== 0 || !stdout.includes('"type":"turn.completed"'))
    throw new Error(`bare codex failed (exit ${code})`);
  return elapsed;
}

async function runner(server) {
  const started = performance.now();
  const result = await runCodex({ prompt: PROMPT, cwd: project(), baseUrl: server.url, outputRoot });
  const elapsed = performance.now() - started;
  if (result.error) throw new Error(`runCodex failed: ${result.error}`);
  ownWork.push(result.timings);
  const tools = result.run.events.filter((event) => event.type === "tool_call").map((event) => event.name);
  if (tools.join(",") !== "Bash,Write") throw new Error(`unexpected tool calls: ${tools}`);
  return elapsed;
}

const variants = { "bare codex exec --json": bare, runCodex: runner };
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
const cpu = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
const loads = [];
/** runCodex's timings per run: its own work before the spawn and after the exit, and the CLI's. */
const ownWork = [];

try {
  const names = Object.keys(variants);
  // One warm-up of each (file cache, first start of the binary), not counted.
  for (let round = -1; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + Math.max(round, 0)) % names.length]);
    for (const name of order) {
      const server = await startModelServer({ source: model() });
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
    `the same scripted run (exec_command, apply_patch, answer), ${rounds} interleaved rounds, medians:`,
  );
  for (const [name, values] of Object.entries(times)) {
    const cpuNote = cpu[name].length > 0 ? `   CPU ${ms(median(cpu[name])).padStart(8)}` : "";
    console.log(
      `  ${name.padEnd(24)} ${ms(median(values)).padStart(8)}${cpuNote}   (wall: ${values.map((v) => v.toFixed(0)).join(", ")})`,
    );
  }
  const ratio = median(times.runCodex) / median(times["bare codex exec --json"]);
  console.log(`runCodex / bare: ${ratio.toFixed(3)} (target <= 1.05): ${ratio <= 1.05 ? "OK" : "OVER"}`);
  if (cpu.runCodex.length > 0) {
    const cpuRatio = median(cpu.runCodex) / median(cpu["bare codex exec --json"]);
    console.log(`CPU time of the CLI's process tree, runCodex / bare: ${cpuRatio.toFixed(3)}`);
  }
  const own = median(ownWork.map((timing) => timing.setup_ms + timing.finish_ms));
  const cli = median(ownWork.map((timing) => timing.cli_ms));
  console.log(
    `runCodex's own work: ${ms(own)} before spawn + after exit; the CLI (with the tap): ${ms(cli)}`,
  );
  console.log(`load average (1 min) during the rounds: ${loads.map((load) => load.toFixed(2)).join(", ")}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
