import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { evalsBin, runEvals } from "./evals-bin.js";

/** Resolves once `check()` holds, polling; rejects after `ms`. */
async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

// `evals run` and `evals validate` on case files choosing `agent.cli: codex` and `agent.cli: gemini`:
// the real codex and gemini CLIs, replaying the example suites' committed recordings (OpenAI
// Responses API, Gemini API) offline through the per-trial loopback model server of each runner's API.
const examples = fileURLToPath(new URL("../../../examples/", import.meta.url));
const temp = mkdtempSync(join(tmpdir(), "evals-codex-gemini-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function replay(example: string, cases: string, cassettes = join(examples, example, "cassettes")) {
  const out = join(temp, example);
  const result = runEvals(
    [
      "run",
      join(examples, example, "cases", cases),
      "--cassettes",
      cassettes,
      "--suite",
      example,
      "--mode",
      "strict",
      "--out",
      out,
      "--db",
      "off",
    ],
    170_000,
  );
  const latest = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as {
    meta: { recorded_model?: string };
  };
  return { ...result, recordedModel: latest.meta.recorded_model };
}

const SKILLS = ["skill-creator", "antigravity-support"];

/** A stored Gemini recording (its shared values too) with the CLI's two built-in skills listed the other way round. */
function withSkillsReversed(value: unknown, swaps: { listing: number; hint: number; enum: number }): unknown {
  if (typeof value === "string") {
    const entries = SKILLS.map((name) => {
      const match = new RegExp(`  <skill>\\n    <name>${name}</name>[\\s\\S]*?</skill>`).exec(value);
      return match?.[0];
    });
    let out = value;
    if (entries[0] && entries[1] && out.includes(`${entries[0]}\n${entries[1]}`)) {
      out = out.replace(`${entries[0]}\n${entries[1]}`, `${entries[1]}\n${entries[0]}`);
      swaps.listing++;
    }
    const hint = (names: string[]) => `(Available: ${names.map((name) => `'${name}'`).join(", ")})`;
    if (out.includes(hint(SKILLS))) {
      out = out.replace(hint(SKILLS), hint([...SKILLS].reverse()));
      swaps.hint++;
    }
    return out;
  }
  if (Array.isArray(value)) {
    if (JSON.stringify(value) === JSON.stringify(SKILLS)) {
      swaps.enum++;
      return [...SKILLS].reverse();
    }
    return value.map((item) => withSkillsReversed(item, swaps));
  }
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withSkillsReversed(item, swaps)]),
    );
  return value;
}

describe("evals run with agent.cli codex and gemini", () => {
  it("runs a Codex case file through codexRunner, replayed offline", { timeout: 180_000 }, () => {
    const result = replay("codex-agent", "codex.yaml");
    expect(result.stderr).not.toMatch(/diverged|unknown agent/i);
    expect(result.stdout).toContain("3 case(s), 3 trial(s): 3 passed, 0 failed");
    expect(result.recordedModel).toMatch(/^gpt-/);
    expect(result.code).toBe(EXIT.passed);
  });

  it("runs a Gemini CLI case file through geminiRunner, replayed offline", { timeout: 180_000 }, () => {
    const result = replay("gemini-agent", "gemini.yaml");
    expect(result.stderr).not.toMatch(/diverged|unknown agent/i);
    expect(result.stdout).toContain("3 case(s), 3 trial(s): 3 passed, 0 failed");
    expect(result.recordedModel).toMatch(/^gemini-/);
    expect(result.code).toBe(EXIT.passed);
  });

  it("replays Gemini CLI recordings that list the CLI's skills in the other order", {
    timeout: 180_000,
  }, () => {
    // Gemini CLI 0.61.0 lists its built-in skills in the order a concurrent file walk finds them, so
    // a run can send them the other way round from the recording's (seen in CI): in the system
    // prompt's <available_skills>, and in activate_skill's "(Available: …)" hint and name enum.
    const cassettes = join(temp, "gemini-skills-reversed");
    cpSync(join(examples, "gemini-agent", "cassettes"), cassettes, { recursive: true });
    const folder = join(cassettes, "gemini-agent");
    for (const file of readdirSync(folder)) {
      const swaps = { listing: 0, hint: 0, enum: 0 };
      const recording = JSON.parse(readFileSync(join(folder, file), "utf8"));
      writeFileSync(join(folder, file), JSON.stringify(withSkillsReversed(recording, swaps), null, 2));
      expect(swaps, file).toEqual({ listing: 1, hint: 1, enum: 1 });
    }
    const result = replay("gemini-agent", "gemini.yaml", cassettes);
    expect(result.stderr).not.toMatch(/diverged/i);
    expect(result.stdout).toContain("3 case(s), 3 trial(s): 3 passed, 0 failed");
    expect(result.code).toBe(EXIT.passed);
  });

  it("records a Codex case from a --model module's bare script function, then replays it", {
    timeout: 180_000,
  }, () => {
    // The module's function answers in the runner's wire format (OpenAI Responses), not Anthropic's.
    const dir = join(temp, "record");
    mkdirSync(join(dir, "fx"), { recursive: true });
    writeFileSync(join(dir, "fx", "config.txt"), "retries = 3\n");
    const cases = join(dir, "cases.yaml");
    writeFileSync(
      cases,
      [
        "id: lists",
        "prompt: List the files.",
        "agent:",
        "  cli: codex",
        "  fixture: fx",
        "behavior:",
        "  mustUseTools: [Bash]",
      ].join("\n"),
    );
    const vcr = new URL("../../vcr/dist/index.js", import.meta.url).href;
    const models = join(dir, "models.mjs");
    writeFileSync(
      models,
      `import { execCommand, response, toolOutputs } from ${JSON.stringify(vcr)};\nexport default (request) => (toolOutputs(request).length === 0 ? response(execCommand("ls")) : response("Done."));\n`,
    );
    const cassettes = join(dir, "cassettes");
    const common = ["--cassettes", cassettes, "--db", "off"];
    const recorded = runEvals(
      ["record", cases, "--model", models, "--out", join(dir, "rec"), ...common],
      170_000,
    );
    expect(recorded.stdout).toContain("1 case(s), 1 trial(s): 1 passed, 0 failed");
    expect(recorded.code, recorded.stderr).toBe(EXIT.passed);
    const replayed = runEvals(
      ["run", cases, "--mode", "strict", "--out", join(dir, "run"), ...common],
      170_000,
    );
    expect(replayed.stdout).toContain("1 case(s), 1 trial(s): 1 passed, 0 failed");
    expect(replayed.code, replayed.stderr).toBe(EXIT.passed);

    // The prompt changed: the recording of the old one is not replayed, and the error says which
    // file is there, what differs and how to record again (it said only "expected <new file>").
    const [recording] = readdirSync(cassettes);
    writeFileSync(cases, readFileSync(cases, "utf8").replace("List the files.", "List the files, please."));
    const changed = runEvals(
      ["run", cases, "--mode", "strict", "--out", join(dir, "changed"), ...common],
      170_000,
    );
    expect(changed.code, changed.stderr).toBe(EXIT.badInput);
    expect(changed.stderr).toContain(`no recording for case "lists": expected `);
    expect(changed.stderr).toContain(recording!);
    expect(changed.stderr).toContain('recorded for prompt "List the files.", not "List the files, please."');
    expect(changed.stderr).toContain(`npx evals record ${cases}`);
    expect(readdirSync(cassettes)).toEqual([recording]);
  });

  it("an evals record of a Codex case interrupted (SIGINT) or killed (SIGKILL) midway keeps the recording and leaves no CODEX_HOME in the temp folder", {
    timeout: 180_000,
  }, async () => {
    const dir = join(temp, "interrupted");
    mkdirSync(join(dir, "fx"), { recursive: true });
    writeFileSync(join(dir, "fx", "config.txt"), "retries = 3\n");
    const cases = join(dir, "cases.yaml");
    writeFileSync(cases, "id: lists\nprompt: List the files.\nagent:\n  cli: codex\n  fixture: fx\n");
    const vcr = new URL("../../vcr/dist/index.js", import.meta.url).href;
    writeFileSync(
      join(dir, "models.mjs"),
      `import { execCommand, response, toolOutputs } from ${JSON.stringify(vcr)};\nexport default (request) => (toolOutputs(request).length === 0 ? response(execCommand("ls")) : response("Done."));\n`,
    );
    // Answers the first request with a command, then never again: the run is midway when killed.
    writeFileSync(
      join(dir, "hangs.mjs"),
      `import { execCommand, response, toolOutputs } from ${JSON.stringify(vcr)};\nexport default (request) => (toolOutputs(request).length === 0 ? response(execCommand("ls")) : new Promise(() => {}));\n`,
    );
    const cassettes = join(dir, "cassettes");
    const common = ["--cassettes", cassettes, "--db", "off", "--out", join(dir, "rec")];
    const recorded = runEvals(["record", cases, "--model", join(dir, "models.mjs"), ...common], 170_000);
    expect(recorded.code, recorded.stderr).toBe(EXIT.passed);
    const [recording] = readdirSync(cassettes);
    const good = readFileSync(join(cassettes, recording!), "utf8");

    for (const signal of ["SIGINT", "SIGKILL"] as const) {
      const tmp = join(dir, `tmp-${signal}`);
      mkdirSync(tmp);
      const codexHomes = () => readdirSync(tmp).filter((name) => name.startsWith("evals-codex-"));
      const child = spawn(
        process.execPath,
        [evalsBin, "record", cases, "--model", join(dir, "hangs.mjs"), ...common],
        {
          env: { ...process.env, TMPDIR: tmp, FORCE_COLOR: "0" },
          stdio: "ignore",
        },
      );
      const exited = new Promise((done) => child.once("exit", done));
      await until(() => codexHomes().length > 0, 60_000);
      await new Promise((done) => setTimeout(done, 3000));
      child.kill(signal);
      await exited;
      await until(() => codexHomes().length === 0, 20_000).catch(() => undefined);
      expect(codexHomes(), signal).toEqual([]);
      expect(readdirSync(cassettes), signal).toEqual([recording]);
      expect(readFileSync(join(cassettes, recording!), "utf8"), signal).toBe(good);
    }
  });

  it("validates agent.options with the Codex and Gemini runners' schemas: file, line and field", () => {
    mkdirSync(join(temp, "fx"), { recursive: true });
    const file = join(temp, "options.yaml");
    writeFileSync(
      file,
      [
        "id: a",
        "prompt: hi",
        "agent:",
        "  cli: codex",
        "  fixture: fx",
        "  options:",
        "    sandboxx: 1",
        "---",
        "id: b",
        "prompt: hi",
        "agent:",
        "  cli: gemini",
        "  fixture: fx",
        "  options:",
        "    approvalMode: never",
      ].join("\n"),
    );
    const result = runEvals(["validate", file]);
    expect(result.stderr).toContain(
      `${file}:7:5 (field agent.options): Unrecognized key: "sandboxx" (codex's runner options)`,
    );
    expect(result.stderr).toContain(
      `${file}:15:19 (field agent.options.approvalMode): Invalid option: expected one of "default"|"auto_edit"|"yolo"|"plan" (gemini's runner options)`,
    );
    expect(result.code).toBe(EXIT.failed);
  });
});
