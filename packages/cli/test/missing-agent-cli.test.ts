import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCase } from "@evals/evaluators";
import { runCases } from "@evals/harness";
import { reply, text } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";
import { cliRunners } from "../src/runners.js";

// A trial whose agent CLI cannot be found failed on its setup, not on the agent, whichever of the
// four agents the case names: the engine reports it among the outcome's setupErrors (evals run exits
// 2 for those), not as a verdict on the agent.
const output = mkdtempSync(join(tmpdir(), "missing-agent-cli-"));
afterAll(() => rmSync(output, { recursive: true, force: true }));

/** The outcome of case `id`, run by the engine with agent `cli` whose executable option `option` is `bin`. */
async function runWithBin(id: string, cli: string, option: string, bin: string) {
  const evalCase = parseCase(
    { id, prompt: "Say hi.", agent: { cli, options: { [option]: bin } } },
    `${id}.yaml`,
  );
  const result = await runCases([evalCase], {
    suite: "missing-agent-cli",
    runners: cliRunners(),
    outputRoot: output,
    model: { [id]: () => reply(text("hi")) },
  });
  return result.outcomes[0]!;
}

describe("a case whose agent CLI is not installed is a setup error, for every runner", () => {
  it.each([
    ["claude-code", "claudeBin", "ClaudeNotFoundError"],
    ["opencode", "opencodeBin", "OpenCodeNotFoundError"],
    ["codex", "codexBin", "CodexNotFoundError"],
    ["gemini", "geminiBin", "GeminiNotFoundError"],
  ])("%s (%s pointing nowhere): %s among the setup errors", async (cli, option, errorName) => {
    const outcome = await runWithBin(`no-${cli}`, cli, option, join(output, "nowhere", cli));
    expect(outcome.passed).toBe(false);
    expect(outcome.setupErrors?.map((error) => error.name)).toEqual([errorName]);
  });
});

// An installed CLI of another version than the runner's sends other requests and prints another
// stream: it ran (and replayed recordings made with the supported version) without a word.
describe("a case whose agent CLI is another version than its runner's is a setup error naming both", () => {
  it.each([
    ["codex", "codexBin", "@openai/codex", "bin/codex.js", "CodexVersionError", "0.169.0"],
    ["gemini", "geminiBin", "@google/gemini-cli", "bundle/gemini.js", "GeminiVersionError", "0.61.0"],
  ])("%s (%s of %s 9.9.9)", async (cli, option, packageName, binPath, errorName, supported) => {
    // The package as npm installs it, in another version (its executable never runs).
    const installed = join(output, `other-${cli}`, "node_modules", packageName);
    mkdirSync(join(installed, binPath, ".."), { recursive: true });
    writeFileSync(join(installed, "package.json"), JSON.stringify({ name: packageName, version: "9.9.9" }));
    writeFileSync(join(installed, binPath), "#!/bin/sh\nexit 1\n");
    chmodSync(join(installed, binPath), 0o755);
    const outcome = await runWithBin(`other-${cli}`, cli, option, join(installed, binPath));
    const [error] = outcome.setupErrors ?? [];
    expect(error?.name).toBe(errorName);
    expect(error?.message).toContain(`9.9.9 at ${join(installed, binPath)}`);
    expect(error?.message).toContain(`npm install -D ${packageName}@${supported}`);
  });
});
