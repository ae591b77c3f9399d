import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { claudeAvailable } from "@evals/claude-code";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";

/**
 * Fixture copies on real runs of the built `evals` binary with the real claude CLI, its model a
 * scripted loopback model (`--model`): links in a fixture, a trial that writes through them, bad
 * fixtures refused as bad input (exit 2), and no copy left in the temp folder after a signal.
 */

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const evalsCli = resolve(__dirname, "../dist/cli.js");
/** The models below live in temp folders, where "@evals/vcr" does not resolve: its built module, by URL. */
const vcrModule = pathToFileURL(resolve(__dirname, "../../vcr/dist/index.js")).href;
const haveClaude = claudeAvailable({ claudeBin }).available;
const scratch = mkdtempSync(join(tmpdir(), "harness-fixture-copies-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The same old time on every file the tests watch, so a change shows. */
const OLD = new Date(Date.UTC(2020, 5, 1));

/** A suite folder: a case file (its agent block as YAML lines) and a fixture the test fills. */
function suite(name: string, agentLines: string[] = []): { dir: string; caseFile: string; fixture: string } {
  const dir = join(scratch, name);
  const fixture = join(dir, "fixture");
  mkdirSync(fixture, { recursive: true });
  const caseFile = join(dir, "cases.yaml");
  writeFileSync(
    caseFile,
    [
      `id: ${name}`,
      "prompt: Change the notes.",
      "agent:",
      "  fixture: fixture",
      "  allowedTools: [Bash]",
      ...agentLines.map((line) => `  ${line}`),
      "",
    ].join("\n"),
  );
  return { dir, caseFile, fixture };
}

/** A --model module: runs `command` with Bash once, then says it is done. */
function bashModel(dir: string, command: string): string {
  const file = join(dir, "model.mjs");
  writeFileSync(
    file,
    [
      `import { countToolResults, reply, text, toolUse } from ${JSON.stringify(vcrModule)};`,
      "export default (request) => countToolResults(request) === 0",
      `  ? reply(toolUse("Bash", { command: ${JSON.stringify(command)}, description: "write" }))`,
      '  : reply(text("Done."));',
      "",
    ].join("\n"),
  );
  return file;
}

/** Spawns the built `evals` binary with its own temp folder (TMPDIR), in the suite's folder. */
function startEvals(args: string[], dir: string, tmp: string, env: Record<string, string> = {}) {
  mkdirSync(tmp, { recursive: true });
  const child = spawn(process.execPath, [evalsCli, ...args], {
    cwd: dir,
    env: { ...process.env, EVALS_CLAUDE_BIN: claudeBin, TMPDIR: tmp, CI: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (chunk) => (out += chunk));
  child.stderr!.on("data", (chunk) => (out += chunk));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, out })),
  );
  return { child, done };
}

/** `evals record --model <model> <case file>` in the suite's folder, to its end. */
function evalsRecord(s: { dir: string; caseFile: string }, model: string, tmp = join(s.dir, "tmp")) {
  return startEvals(
    [
      "record",
      s.caseFile,
      "--model",
      model,
      "--cassettes",
      join(s.dir, "cassettes"),
      "--out",
      join(s.dir, "out"),
    ],
    s.dir,
    tmp,
    { EVALS_OUTPUT_DIR: join(s.dir, "output") },
  ).done;
}

/** Fixture copies (and anything else of the harness) left in a temp folder. */
const fixtureCopiesIn = (tmp: string) =>
  existsSync(tmp) ? readdirSync(tmp).filter((name) => name.startsWith("evals-fixture-")) : [];

describe.skipIf(!haveClaude)("links in a fixture, on a real run", () => {
  it("copies links as links inside the copy: a trial writing through them changes only its copy", async () => {
    const s = suite("writes-through-links");
    writeFileSync(join(s.fixture, "notes.txt"), "original\n");
    mkdirSync(join(s.fixture, "docs"));
    symlinkSync("../notes.txt", join(s.fixture, "docs", "relative.txt"));
    symlinkSync(join(s.fixture, "notes.txt"), join(s.fixture, "absolute.txt"));
    // In a script, where Claude Code's own check of Bash's paths does not see the writes.
    writeFileSync(join(s.fixture, "write.sh"), "echo one >> docs/relative.txt\necho two >> absolute.txt\n");
    utimesSync(join(s.fixture, "notes.txt"), OLD, OLD);
    const model = bashModel(s.dir, "sh write.sh; readlink docs/relative.txt absolute.txt; cat notes.txt");
    for (let trial = 1; trial <= 2; trial++) {
      const run = await evalsRecord(s, model);
      expect(run.out).toContain("1 passed, 0 failed");
      expect(run.code, run.out).toBe(EXIT.passed);
      // The committed fixture is as it was: content, and the time of the file the links point at.
      expect(readFileSync(join(s.fixture, "notes.txt"), "utf8")).toBe("original\n");
      expect(statSync(join(s.fixture, "notes.txt")).mtimeMs).toBe(OLD.getTime());
    }
    // What the agent saw: both links relative, inside its copy, and its writes there.
    // Without --suite, the case's recording is in the cassette folder itself, keyed by its id.
    const recordings = readdirSync(join(s.dir, "cassettes")).filter((f) => f.endsWith(".recording.json"));
    expect(recordings).toHaveLength(1);
    const recorded = readFileSync(join(s.dir, "cassettes", recordings[0]!), "utf8");
    expect(recorded).toContain("../notes.txt\\nnotes.txt\\noriginal\\none\\ntwo");
  }, 240_000);

  it("refuses a link that leaves the fixture (exit 2, the link named), and touches nothing outside", async () => {
    const s = suite("link-leaves");
    const outside = join(s.dir, "outside.txt");
    writeFileSync(outside, "outside\n");
    utimesSync(outside, OLD, OLD);
    writeFileSync(join(s.fixture, "notes.txt"), "notes\n");
    symlinkSync("../outside.txt", join(s.fixture, "escape.txt"));
    const run = await evalsRecord(s, bashModel(s.dir, "echo pwned > escape.txt"));
    expect(run.code, run.out).toBe(EXIT.badInput);
    expect(run.out).toContain(`the fixture ${s.fixture}`);
    expect(run.out).toContain("escape.txt");
    expect(run.out).toContain("leaves the fixture");
    expect(readFileSync(outside, "utf8")).toBe("outside\n");
    expect(statSync(outside).mtimeMs).toBe(OLD.getTime());
    expect(fixtureCopiesIn(join(s.dir, "tmp"))).toEqual([]);
  }, 120_000);

  it("refuses a dangling link with a clear bad-input error (exit 2), not an ENOENT crash", async () => {
    const s = suite("dangling");
    symlinkSync("missing.txt", join(s.fixture, "dangling.txt"));
    const run = await evalsRecord(s, bashModel(s.dir, "ls"));
    expect(run.code, run.out).toBe(EXIT.badInput);
    expect(run.out).toContain(`the fixture ${s.fixture}`);
    expect(run.out).toContain("dangling.txt");
    expect(run.out).toContain("points at nothing");
    expect(run.out).not.toContain("ENOENT");
    expect(fixtureCopiesIn(join(s.dir, "tmp"))).toEqual([]);
  }, 120_000);
});

describe.skipIf(!haveClaude)("a signal mid-trial", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} to evals run leaves no fixture copy in the temp folder`, async () => {
      const s = suite(`signal-${signal}`);
      writeFileSync(join(s.fixture, "notes.txt"), "notes\n");
      const asked = join(s.dir, "asked");
      const model = join(s.dir, "model.mjs");
      // The model is asked, says so, and never answers: the trial is mid-way until the signal.
      writeFileSync(
        model,
        [
          'import { writeFileSync } from "node:fs";',
          `export default () => { writeFileSync(${JSON.stringify(asked)}, "asked"); return new Promise(() => {}); };`,
          "",
        ].join("\n"),
      );
      const tmp = join(s.dir, "tmp");
      const { child, done } = startEvals(
        [
          "record",
          s.caseFile,
          "--model",
          model,
          "--cassettes",
          join(s.dir, "cassettes"),
          "--out",
          join(s.dir, "out"),
        ],
        s.dir,
        tmp,
        { EVALS_OUTPUT_DIR: join(s.dir, "output") },
      );
      try {
        await waitFor(() => existsSync(asked), 90_000);
        expect(fixtureCopiesIn(tmp)).toHaveLength(1);
        child.kill(signal);
        const ended = await done;
        expect(ended.signal ?? ended.code).not.toBe(EXIT.passed);
        expect(await waitFor(() => fixtureCopiesIn(tmp).length === 0, 10_000)).toBe(true);
      } finally {
        killQuietly(child);
      }
    }, 150_000);
  }
});

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 100) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

function killQuietly(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
