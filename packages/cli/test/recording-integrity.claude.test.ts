import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeAvailable } from "@evals/claude-code";
import { responsesDigest } from "@evals/vcr";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";

// Nothing is replayed that was not recorded for the case: each fault goes through the `evals`
// binary with the real claude CLI against the scripted models of __fixtures__/recordings.
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const evalsBin = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const fixtures = (name: string) =>
  fileURLToPath(new URL(`./__fixtures__/recordings/${name}`, import.meta.url));
const models = fixtures("models.mjs");
const scratch = mkdtempSync(join(tmpdir(), "harness-recording-integrity-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A folder with a fixture and the given case files (name → YAML). */
function suite(name: string, cases: Record<string, string>): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, "fixture"), { recursive: true });
  writeFileSync(join(dir, "fixture", "readme.txt"), "hello\n");
  for (const [file, yaml] of Object.entries(cases)) writeFileSync(join(dir, file), yaml);
  return dir;
}

const teamCase = (id: string, word: string) =>
  `id: ${id}\nprompt: Say which team.\nagent:\n  fixture: fixture\nbehavior:\n  expectedResponse:\n    contains: [${word}]\n`;
const echoCase =
  "id: runs-echo\nprompt: Say hi with the shell.\nagent:\n  fixture: fixture\n  allowedTools: [Bash]\nbehavior:\n  expectedResponse:\n    contains: [hi-from-model]\n";

/** Runs `evals <args>` (the built binary) in `cwd`; its exit code, what it printed, and its stderr. */
async function evals(cwd: string, args: string[], env: Record<string, string> = {}) {
  const run = await execa(process.execPath, [evalsBin, ...args, "--out", join(cwd, "results")], {
    cwd,
    reject: false,
    env: {
      EVALS_CLAUDE_BIN: claudeBin,
      EVALS_OUTPUT_DIR: join(cwd, "test-output"),
      CI: "",
      VCR_MODE: "",
      ...env,
    },
    timeout: 300_000,
  });
  return { code: run.exitCode, out: `${run.stdout}\n${run.stderr}`, err: run.stderr };
}

const recordings = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".recording.json"));

/** The recording in `dir` that says it is of case `id`. */
function recordingOf(dir: string, id: string): string {
  const file = recordings(dir).find(
    (name) => JSON.parse(readFileSync(join(dir, name), "utf8")).metadata.case_id === id,
  );
  if (!file) throw new Error(`no recording of ${id} in ${dir}: ${recordings(dir).join(", ")}`);
  return join(dir, file);
}

describe.skipIf(!claudeAvailable({ claudeBin }).available)(
  "recordings are replayed only for the case they were made for",
  () => {
    it("cases team/x and team-x with one prompt get a recording each; one copied over the other's name is refused (strict) or recorded again (auto)", async () => {
      const dir = suite("collide", {
        "cases.yaml": `${teamCase("team/x", "slash")}---\n${teamCase("team-x", "dash")}`,
      });
      const recorded = await evals(dir, ["run", "cases.yaml", "--model", models, "--mode", "auto"]);
      expect(recorded.out).toContain("2 case(s), 2 trial(s): 2 passed, 0 failed");
      expect(recordings(join(dir, "cassettes"))).toHaveLength(2);
      const replayed = await evals(dir, ["run", "cases.yaml", "--mode", "strict"]);
      expect(replayed.out).toContain("2 passed, 0 failed");
      expect(replayed.code).toBe(EXIT.passed);

      // team/x's answers under team-x's name: never replayed for team-x.
      const slash = recordingOf(join(dir, "cassettes"), "team/x");
      const dash = recordingOf(join(dir, "cassettes"), "team-x");
      writeFileSync(dash, readFileSync(slash));
      const strict = await evals(dir, ["run", "cases.yaml", "--mode", "strict"]);
      // A recording that cannot be used is a setup problem (exit 2), said on stderr with why.
      expect(strict.code).toBe(EXIT.badInput);
      expect(strict.err).toContain('evals run: no usable recording for case "team-x"');
      expect(strict.err).toContain('it was recorded for case_id "team/x", not "team-x"');
      expect(strict.out).not.toContain('team slash"');
      const auto = await evals(dir, ["run", "cases.yaml", "--model", models, "--mode", "auto"]);
      expect(auto.out).toContain("2 passed, 0 failed");
      expect(JSON.parse(readFileSync(dash, "utf8")).metadata.case_id).toBe("team-x");
    });

    it("a run whose claude cannot start writes no recording, and an empty recording is never replayed", async () => {
      const dir = suite("empty", { "cases.yaml": teamCase("team-x", "dash") });
      const broken = join(dir, "broken-claude");
      writeFileSync(broken, "#!/bin/sh\necho 'cannot start' >&2\nexit 1\n", { mode: 0o755 });
      const failed = await evals(dir, ["run", "cases.yaml", "--model", models, "--mode", "auto"], {
        EVALS_CLAUDE_BIN: broken,
      });
      // Found before any trial (the runner says its CLI cannot run): a setup error, nothing recorded.
      expect(failed.code).toBe(EXIT.badInput);
      expect(existsSync(join(dir, "cassettes")) ? recordings(join(dir, "cassettes")) : []).toEqual([]);

      // A recording emptied (as an older version wrote it): strict fails naming it, auto records anew.
      expect((await evals(dir, ["run", "cases.yaml", "--model", models, "--mode", "auto"])).code).toBe(
        EXIT.passed,
      );
      const file = recordingOf(join(dir, "cassettes"), "team-x");
      const emptied = { ...JSON.parse(readFileSync(file, "utf8")), interactions: [] };
      emptied.responses_sha256 = responsesDigest(emptied);
      writeFileSync(file, JSON.stringify(emptied));
      const strict = await evals(dir, ["run", "cases.yaml", "--mode", "strict"]);
      expect(strict.code).toBe(EXIT.badInput);
      expect(strict.err).toContain('evals run: no usable recording for case "team-x"');
      expect(strict.err).toContain("it holds no answer of the model (0 interactions)");
      const auto = await evals(dir, ["run", "cases.yaml", "--model", models, "--mode", "auto"]);
      expect(auto.code).toBe(EXIT.passed);
      expect(JSON.parse(readFileSync(file, "utf8")).interactions.length).toBeGreaterThan(0);
    });

    it("renaming the case file keeps its recordings; two files with one case id are refused, naming both", async () => {
      const dir = suite("rename", { "first.yaml": teamCase("team-x", "dash") });
      expect((await evals(dir, ["record", "first.yaml", "--model", models])).code).toBe(EXIT.passed);
      renameSync(join(dir, "first.yaml"), join(dir, "renamed.yaml"));
      const replayed = await evals(dir, ["run", "renamed.yaml", "--mode", "strict"]);
      expect(replayed.out).toContain("1 passed, 0 failed");
      expect(replayed.code).toBe(EXIT.passed);

      writeFileSync(join(dir, "copy.yaml"), teamCase("team-x", "dash"));
      const both = await evals(dir, ["run", "renamed.yaml", "copy.yaml", "--mode", "strict"]);
      expect(both.code).toBe(EXIT.badInput);
      expect(both.err).toContain('evals run: two cases have the id "team-x"');
      expect(both.err).toContain("renamed.yaml");
      expect(both.err).toContain("copy.yaml");
      expect(both.err).not.toContain("internal error");
      // With a suite of its own each, they are kept apart.
      const separate = await evals(dir, ["run", "copy.yaml", "--suite", "copies", "--mode", "strict"]);
      expect(separate.code).toBe(EXIT.badInput);
      expect(separate.err).toMatch(
        /evals run: no recording for case "team-x": expected cassettes\/copies\/team-x\.[0-9a-f]{8}\.recording\.json\./,
      );
    });

    it("a scripted model that throws during evals record fails the trial at once, says where, and keeps the good recording", async () => {
      const dir = suite("throws", { "cases.yaml": teamCase("team-x", "dash") });
      expect((await evals(dir, ["record", "cases.yaml", "--model", models])).code).toBe(EXIT.passed);
      const file = recordingOf(join(dir, "cassettes"), "team-x");
      const good = readFileSync(file, "utf8");
      const started = performance.now();
      const thrown = await evals(dir, ["record", "cases.yaml", "--model", fixtures("throws.mjs")]);
      expect(performance.now() - started).toBeLessThan(60_000);
      expect(thrown.code).toBe(EXIT.failed);
      expect(thrown.out).toContain("the scripted model threw on call 0");
      expect(thrown.out).toContain("TypeError");
      expect(thrown.out).toMatch(/throws\.mjs:5:\d+/);
      expect(readFileSync(file, "utf8")).toBe(good);
      expect((await evals(dir, ["run", "cases.yaml", "--mode", "strict"])).code).toBe(EXIT.passed);
    });

    it("a recorded answer edited to run another command is refused before any tool runs", async () => {
      const dir = suite("tamper", { "cases.yaml": echoCase });
      expect((await evals(dir, ["record", "cases.yaml", "--model", models])).code).toBe(EXIT.passed);
      const file = recordingOf(join(dir, "cassettes"), "runs-echo");
      const original = readFileSync(file, "utf8");
      const pwned = join(dir, "PWNED");
      const tampered = JSON.parse(original);
      for (const interaction of tampered.interactions) {
        for (const event of interaction.response.body.events ?? []) {
          const delta = event.data?.delta;
          if (delta?.type !== "input_json_delta" || !delta.partial_json.includes("hi-from-model")) continue;
          const input = JSON.parse(delta.partial_json);
          delta.partial_json = JSON.stringify({ ...input, command: `touch ${pwned}; ${input.command}` });
        }
      }
      // As a hand edit leaves it (the digest no longer matches), and as one that recomputes the digest.
      writeFileSync(file, JSON.stringify(tampered));
      const edited = await evals(dir, ["run", "cases.yaml", "--mode", "strict"]);
      expect(edited.code).toBe(EXIT.failed);
      expect(edited.out).toContain("refuses to replay");
      expect(edited.out).toContain("responses_sha256 does not match");
      expect(existsSync(pwned)).toBe(false);

      tampered.responses_sha256 = responsesDigest(tampered);
      writeFileSync(file, JSON.stringify(tampered));
      const resigned = await evals(dir, ["run", "cases.yaml", "--mode", "strict"]);
      expect(resigned.code).toBe(EXIT.failed);
      expect(resigned.out).toContain(
        "the later recorded requests of its conversation show the assistant sending something else",
      );
      expect(existsSync(pwned)).toBe(false);

      writeFileSync(file, original);
      expect((await evals(dir, ["run", "cases.yaml", "--mode", "strict"])).code).toBe(EXIT.passed);
    });
  },
);
