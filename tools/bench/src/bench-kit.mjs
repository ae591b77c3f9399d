// What the benchmarks share: where the workspace and its claude CLI are, the CPU time of reaped
// children, the bare headless claude run they measure against, and the scripted agent they run.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { countToolResults, lastToolResult, reply, scripted, text, toolUse } from "@evals/vcr";

export const WORKSPACE = fileURLToPath(new URL("../../../", import.meta.url));
export const CLAUDE_BIN = join(WORKSPACE, "node_modules/.bin/claude");

/**
 * CPU time (user + system, ms) of the children this process has reaped, their trees included: far
 * steadier than wall time on a busy machine. Linux only (undefined elsewhere).
 */
export function childCpuMs() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10; // cutime + cstime, in 1/100 s
  } catch {
    return undefined;
  }
}

/**
 * A count a bench reads from the environment variable `name`: `fallback` when unset, else a whole
 * number of at least `min`. Anything else stops the bench (exit 2) naming the variable, as a typo
 * (BENCH_GRADE_ROUNDS=three) would otherwise run it with NaN rounds and print nothing of use.
 */
export function envCount(name, fallback, min = 1) {
  return envCounts(name, [fallback], min)[0];
}

/** A comma-separated list of counts from `name`, each checked as envCount checks one. */
export function envCounts(name, fallback, min = 1) {
  const text = process.env[name]?.trim();
  if (text === undefined || text === "") return fallback;
  const parts = text.split(",").map((part) => part.trim());
  const values = parts.map(Number);
  const bad = values.findIndex(
    (value, index) => parts[index] === "" || !Number.isInteger(value) || value < min,
  );
  if (bad === -1) return values;
  const which = parts.length > 1 ? ` (item ${bad + 1}, "${parts[bad]}")` : "";
  console.error(
    `${name}=${process.env[name]}${which}: expected a whole number of at least ${min} (unset: ${fallback.join(",")})`,
  );
  process.exit(2);
}

/** The prompt of the scripted run the benchmarks time. */
export const LIST_THEN_READ = "List the files, then read a.txt.";

/** The median of some measurements (the upper one of an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A duration in whole milliseconds, for the printed tables. */
export const ms = (value) => `${value.toFixed(0)} ms`;

/** The model of that run: Bash `ls`, Read `<project>/a.txt`, then an answer quoting it. */
export const listThenRead = (project) =>
  scripted((request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(toolUse("Bash", { command: "ls", description: "list" }));
      case 1:
        return reply(toolUse("Read", { file_path: join(project, "a.txt") }));
      default:
        return reply(text(`Read: ${lastToolResult(request)?.text.trim()}`));
    }
  });

/**
 * `claude -p <prompt> --output-format stream-json --verbose [args]` in `cwd`, hermetic like runAgent's
 * (a fresh home under `work`, removed after), against the model at `baseUrl`; `env` is added.
 * Resolves to its exit code, stdout and wall time; `afterExit({ configDir, stdout })` runs before the
 * home goes (its time counted in the run's), and what it returns is `after`.
 */
export async function bareClaude({ work, cwd, prompt, baseUrl, args = [], env = {}, afterExit }) {
  const home = mkdtempSync(join(work, "home-"));
  for (const dir of ["config", "tmp"]) mkdirSync(join(home, dir));
  const started = performance.now();
  const child = spawn(CLAUDE_BIN, ["-p", prompt, "--output-format", "stream-json", "--verbose", ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, "config"),
      TMPDIR: join(home, "tmp"),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      FORCE_COLOR: "0",
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: "sk-bench",
      ...env,
    },
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.resume();
  const code = await new Promise((resolve) => child.on("close", resolve));
  // What the caller does with the run's config dir before it goes counts as the run's time.
  const after = afterExit ? await afterExit({ configDir: join(home, "config"), stdout }) : undefined;
  const ms = performance.now() - started;
  rmSync(home, { recursive: true, force: true });
  return { code, stdout, ms, after };
}
