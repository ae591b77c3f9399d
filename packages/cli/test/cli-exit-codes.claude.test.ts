import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeAvailable } from "@evals/claude-code";
import { readResults } from "@evals/logging";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";

// Every exit code every `evals` command documents in its --help, through the binary, with the real
// claude CLI against the scripted models of __fixtures__/cli-exit-codes/models.mjs (recorded by
// `evals record`, then replayed by `evals run`). Exit code 3 (a bug) is in cli-bad-input.test.ts.
const manifest = JSON.parse(readFileSync(resolve(__dirname, "../package.json"), "utf8")) as {
  bin: Record<string, string>;
};
const evalsBin = resolve(__dirname, "..", manifest.bin.evals as string);
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const models = resolve(__dirname, "__fixtures__/cli-exit-codes/models.mjs");
const oac = "/work/shared/oac-cases/evals/agents";
const temp = mkdtempSync(join(tmpdir(), "evals-exit-codes-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface Printed {
  code: number | null;
  stdout: string;
  stderr: string;
}

function evals(args: string[], env: NodeJS.ProcessEnv = {}): Printed {
  const child = spawnSync(process.execPath, [evalsBin, ...args], {
    encoding: "utf8",
    timeout: 240_000,
    killSignal: "SIGKILL",
    cwd: temp,
    env: withoutApiKey({
      ...process.env,
      FORCE_COLOR: "0",
      CI: "",
      EVALS_CLAUDE_BIN: claudeBin,
      EVALS_OUTPUT_DIR: temp,
      ...env,
    }),
  });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** Without ANTHROPIC_API_KEY: nothing here may reach the real API. */
function withoutApiKey(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { ANTHROPIC_API_KEY: _key, ...rest } = env;
  return rest;
}

function write(name: string, text: string): string {
  const path = join(temp, name);
  mkdirSync(resolve(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const listNotes = (
  id: string,
  behavior = "  mustUseTools: [Bash]\n  expectedResponse:\n    contains: [a.md, b.md]\n",
) =>
  `id: ${id}\nprompt: Which notes are there?\nagent:\n  fixture: fixture\n  allowedTools: [Bash]\nbehavior:\n${behavior}`;
write("fixture/notes/a.md", "a\n");
write("fixture/notes/b.md", "b\n");
const pass = write("pass.yaml", `${listNotes("list-notes")}---\n${listNotes("list-notes-again")}`);
const fail = write("fail.yaml", listNotes("list-notes", "  mustUseTools: [Write]\n"));
const noPrompt = write("no-prompt.yaml", "id: no-prompt\n");
const noFixture = write("no-fixture.yaml", "id: list-notes\nprompt: Hi.\nagent:\n  fixture: nowhere\n");
const otherModels = write(
  "other-models.mjs",
  'export default { "someone-else": () => ({ content: [] }) };\n',
);
// Over 128 KiB: as a command-line argument it failed with E2BIG.
const bigPrompt = `FIRST-WORD ${"all work and no play makes a long prompt. ".repeat(5000)}LAST-WORD`;
const big = write(
  "big.yaml",
  `id: big-prompt\nprompt: ${JSON.stringify(bigPrompt)}\nbehavior:\n  expectedResponse:\n    contains: [got the whole prompt]\n`,
);
// A system prompt is still an argument: over 128 KiB the CLI cannot be started (not "killed by a signal").
const bigSystem = write(
  "big-system.yaml",
  `id: big-prompt\nprompt: Hi.\nagent:\n  options:\n    appendSystemPrompt: ${JSON.stringify(bigPrompt)}\n`,
);
const cassettes = join(temp, "cassettes");
mkdirSync(join(temp, "oac-ok"));
mkdirSync(join(temp, "oac-lossy"));
cpSync(join(oac, "shared/tests/golden/00-smoke-test.yaml"), join(temp, "oac-ok", "00-smoke-test.yaml"));
cpSync(join(oac, "meta/repo-manager/tests/smoke-test.yaml"), join(temp, "oac-lossy", "smoke-test.yaml"));

/** The run folder of the first trial of a results file. */
const firstRunFolder = (results: string) => readResults(results).cases[0]!.trials[0]!.output_dir!;

/** One documented exit code of one command: how to get it, and what else must hold. */
interface Row {
  command: string;
  code: number;
  why: string;
  args: () => string[];
  env?: NodeJS.ProcessEnv;
  check?: (printed: Printed) => void;
}

const table: Row[] = [
  {
    command: "record",
    code: EXIT.passed,
    why: "every case recorded from --model passed (the cost labelled an estimate)",
    args: () => ["record", pass, "--model", models, "--cassettes", cassettes, "--out", "r-pass"],
    check: ({ stdout }) => {
      expect(stdout).toContain("2 case(s), 2 trial(s): 2 passed, 0 failed");
      expect(stdout).toContain("est. cost");
    },
  },
  {
    command: "record",
    code: EXIT.failed,
    why: "a recorded case failed its expectations",
    args: () => ["record", fail, "--model", models, "--cassettes", cassettes, "--out", "r-fail"],
  },
  {
    command: "record",
    code: EXIT.passed,
    why: "a prompt over 128 KiB goes on stdin: the model gets all of it (E2BIG before), nothing prints it",
    args: () => ["record", big, "--model", models, "--cassettes", cassettes, "--out", "r-big"],
    check: ({ stdout, stderr }) => {
      expect(stdout).toContain("1 case(s), 1 trial(s): 1 passed, 0 failed");
      expect(stdout + stderr).not.toContain("all work and no play makes a long prompt. all work");
    },
  },
  {
    command: "record",
    code: EXIT.failed,
    why: "claude could not be started (E2BIG: a system prompt over 128 KiB), said so, the prompt not printed",
    args: () => ["record", bigSystem, "--model", models, "--cassettes", join(temp, "big-system-cassettes")],
    check: ({ stdout, stderr }) => {
      expect(stdout).toContain("claude could not be started: spawn E2BIG");
      expect(stdout).not.toContain("killed by a signal");
      expect(stdout + stderr).not.toContain("all work and no play makes a long prompt. all work");
    },
  },
  {
    command: "record",
    code: EXIT.badInput,
    why: "nothing to record from: no --model, no ANTHROPIC_API_KEY",
    args: () => ["record", pass, "--cassettes", join(temp, "empty-cassettes"), "--out", "r-none"],
    check: ({ stderr }) => {
      expect(stderr).toContain('nothing to record case "list-notes" from');
      expect(stderr).toContain(`npx evals record pass.yaml --model models.mjs`);
      expect(stderr).not.toContain("VCR_MODE");
    },
  },
  {
    command: "record",
    code: EXIT.badInput,
    why: "--model has no entry for the case id (not 'no scripted model is given')",
    args: () => ["record", pass, "--model", otherModels, "--cassettes", join(temp, "empty-cassettes")],
    check: ({ stderr, stdout }) => {
      expect(stderr).toBe(
        `evals record: --model ${otherModels} has no scripted model for case ids "list-notes", "list-notes-again" (its default export has "someone-else"): add one keyed by the case id\n`,
      );
      expect(stdout).toBe("");
    },
  },
  {
    command: "run",
    code: EXIT.passed,
    why: "every case passed, replayed (each case's time its own trials', the header the run's wall time)",
    args: () => [
      "run",
      pass,
      "--mode",
      "strict",
      "--cassettes",
      cassettes,
      "--trials",
      "2",
      "--shard",
      "1/1",
      "--out",
      "run-pass",
    ],
    check: ({ stdout }) => {
      const results = readResults(join(temp, "run-pass", "shard-1-of-1", "latest.json"));
      const [first, second] = results.cases;
      const trialTime = (c: typeof first) =>
        c!.trials.reduce((sum, trial) => sum + (trial.duration_ms ?? 0), 0);
      // Each case's duration is its own trials' time, not the time since the suite started.
      expect(first!.duration_ms).toBeLessThanOrEqual(trialTime(first) + 5);
      expect(second!.duration_ms).toBeLessThanOrEqual(trialTime(second) + 5);
      expect(second!.duration_ms).toBeLessThan(trialTime(first) + trialTime(second));
      // The header shows the run's wall time, the same as the summary line.
      const wall = stdout.match(/4 trial\(s\): 2 passed, 0 failed \(shard 1\/1\) in (\S+)\n/)?.[1];
      expect(wall).toBeDefined();
      expect(stdout.split("\n")[0]).toMatch(new RegExp(`· ${wall!.replace(".", "\\.")}(\\s|·|$)`));
    },
  },
  {
    command: "run",
    code: EXIT.failed,
    why: "a replayed case failed",
    args: () => [
      "run",
      fail,
      "--mode",
      "strict",
      "--cassettes",
      cassettes,
      "--shard",
      "1/1",
      "--out",
      "run-fail",
    ],
  },
  {
    command: "run",
    code: EXIT.badInput,
    why: "a recording missing in strict mode",
    args: () => ["run", pass, "--mode", "strict", "--cassettes", join(temp, "empty-cassettes")],
    check: ({ stderr }) => expect(stderr).toContain("npx evals record pass.yaml --model"),
  },
  {
    command: "run",
    code: EXIT.badInput,
    why: "claude not found",
    args: () => ["run", pass, "--mode", "strict", "--cassettes", cassettes],
    env: { EVALS_CLAUDE_BIN: join(temp, "no-claude") },
    check: ({ stderr }) => expect(stderr).toContain("Claude Code CLI not found"),
  },
  {
    command: "run",
    code: EXIT.badInput,
    why: "a missing fixture",
    args: () => ["run", noFixture, "--mode", "strict"],
    check: ({ stderr }) => expect(stderr).toContain("(field agent.fixture)"),
  },
  {
    command: "run",
    code: EXIT.badInput,
    why: "bad usage",
    args: () => ["run", pass, "--concurrency", "none"],
  },
  {
    command: "grade",
    code: EXIT.passed,
    why: "the stored run passes its case",
    args: () => ["grade", firstRunFolder(join(temp, "run-pass", "shard-1-of-1", "latest.json"))],
  },
  {
    command: "grade",
    code: EXIT.failed,
    why: "the stored run fails another case",
    args: () => [
      "grade",
      firstRunFolder(join(temp, "run-pass", "shard-1-of-1", "latest.json")),
      "--case",
      fail,
    ],
  },
  { command: "grade", code: EXIT.badInput, why: "no such run", args: () => ["grade", "nowhere"] },
  { command: "validate", code: EXIT.passed, why: "valid cases", args: () => ["validate", pass, big] },
  {
    command: "validate",
    code: EXIT.failed,
    why: "a case without a prompt",
    args: () => ["validate", noPrompt],
  },
  { command: "validate", code: EXIT.badInput, why: "no such file", args: () => ["validate", "nowhere.yaml"] },
  { command: "rules", code: EXIT.passed, why: "the list", args: () => ["rules"] },
  { command: "rules", code: EXIT.badInput, why: "bad usage", args: () => ["rules", "--bogus"] },
  {
    command: "report",
    code: EXIT.passed,
    why: "the reports of a results file",
    args: () => ["report", join(temp, "run-pass", "shard-1-of-1", "latest.json")],
  },
  { command: "report", code: EXIT.badInput, why: "no such results", args: () => ["report", "nowhere.json"] },
  {
    command: "merge",
    code: EXIT.passed,
    why: "the merged cases passed",
    args: () => ["merge", join(temp, "run-pass", "shard-1-of-1"), "--out", "merged-pass"],
  },
  {
    command: "merge",
    code: EXIT.failed,
    why: "a merged case failed",
    args: () => ["merge", join(temp, "run-fail", "shard-1-of-1"), "--out", "merged-fail"],
  },
  { command: "merge", code: EXIT.badInput, why: "no such shard", args: () => ["merge", "nowhere"] },
  {
    command: "compare",
    code: EXIT.passed,
    why: "the comparison is printed",
    args: () => {
      const results = join(temp, "run-pass", "shard-1-of-1", "latest.json");
      return ["compare", results, results];
    },
  },
  {
    command: "compare",
    code: EXIT.badInput,
    why: "no such file",
    args: () => ["compare", "a.json", "b.json"],
  },
  {
    command: "migrate",
    code: 0,
    why: "every case converted",
    args: () => ["migrate", join(temp, "oac-ok"), "--out", "migrated-ok"],
  },
  {
    command: "migrate",
    code: 1,
    why: "a case could not be converted",
    args: () => ["migrate", join(temp, "oac-lossy"), "--out", "migrated-lossy"],
  },
  {
    command: "migrate",
    code: 2,
    why: "an unreadable folder",
    args: () => ["migrate", "nowhere", "--out", "x"],
  },
  { command: "help", code: EXIT.passed, why: "a command's help", args: () => ["help", "run"] },
  { command: "help", code: EXIT.badInput, why: "an unknown command", args: () => ["help", "nope"] },
];

describe.skipIf(!claudeAvailable({ claudeBin }).available)(
  "every documented exit code of every evals command",
  () => {
    it("covers every command and every code its --help documents", () => {
      const commands = [...new Set(table.map((row) => row.command))];
      expect(commands.sort()).toEqual(
        [
          "compare",
          "grade",
          "help",
          "merge",
          "migrate",
          "record",
          "report",
          "rules",
          "run",
          "validate",
        ].sort(),
      );
      for (const command of commands.filter((name) => name !== "help")) {
        const help = evals([command, "--help"]);
        expect(help.code).toBe(EXIT.passed);
        // The command's own line ("Here: 0 …, 2 …"; grade's and migrate's "Exit code(s): 0 …").
        const own = help.stdout.includes("Here:")
          ? help.stdout.slice(help.stdout.indexOf("Here:"))
          : help.stdout.slice(help.stdout.lastIndexOf("Exit code"));
        const documented = [...own.matchAll(/\b([0-2]) (?=[a-z])/g)].map((match) => Number(match[1]));
        expect(documented).toContain(0);
        const tested = new Set(table.filter((row) => row.command === command).map((row) => row.code));
        for (const code of documented) expect(tested.has(code), `${command} exit ${code}`).toBe(true);
      }
    });

    for (const row of table) {
      it(`evals ${row.command} exits ${row.code}: ${row.why}`, () => {
        const printed = evals(row.args(), row.env);
        expect(printed.code, `${printed.stdout}\n${printed.stderr}`).toBe(row.code);
        row.check?.(printed);
      }, 300_000);
    }
  },
);
