import { mkdtempSync, rmSync } from "node:fs";
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

describe("a case whose agent CLI is not installed is a setup error, for every runner", () => {
  it.each([
    ["claude-code", "claudeBin", "ClaudeNotFoundError"],
    ["opencode", "opencodeBin", "OpenCodeNotFoundError"],
    ["codex", "codexBin", "CodexNotFoundError"],
    ["gemini", "geminiBin", "GeminiNotFoundError"],
  ])("%s (%s pointing nowhere): %s among the setup errors", async (cli, option, errorName) => {
    const id = `no-${cli}`;
    const evalCase = parseCase(
      { id, prompt: "Say hi.", agent: { cli, options: { [option]: join(output, "nowhere", cli) } } },
      `${id}.yaml`,
    );
    const result = await runCases([evalCase], {
      suite: "missing-agent-cli",
      runners: cliRunners(),
      outputRoot: output,
      model: { [id]: () => reply(text("hi")) },
    });
    const outcome = result.outcomes[0]!;
    expect(outcome.passed).toBe(false);
    expect(outcome.setupErrors?.map((error) => error.name)).toEqual([errorName]);
  });
});
