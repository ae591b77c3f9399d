import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeAvailable } from "@evals/claude-code";
import { ResultsFileSchema } from "@evals/logging";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { evalsCommand, runInProcess } from "./command-io.js";

/*
 * behavior.mustUseSkills / mustNotUseSkills (the skill-usage rule) and agent.tools (`--tools`), on
 * real runs: `evals run` starts the real claude CLI against a scripted loopback model (--model,
 * --mode off) in a fixture that has a real project skill (.claude/skills/internal-comms/SKILL.md).
 */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const available = claudeAvailable({ claudeBin }).available;
const scratch = mkdtempSync(join(tmpdir(), "harness-skills-tools-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SKILL = `---
name: internal-comms
description: Use when writing an internal update, announcement or status report for the team.
---
Write internal updates as three bullet points: progress, plans, problems.
`;

// Per case id, what the scripted model answers at each step (a module, as `evals run --model` takes it).
const MODELS = `import { countToolResults, lastToolResult, reply, text, toolUse } from "@evals/vcr";
const loadSkill = (request) =>
  countToolResults(request) === 0
    ? reply(toolUse("Skill", { skill: "internal-comms" }))
    : reply(text("Update drafted: progress, plans, problems."));
const answerOnly = () => reply(text("Update drafted without any skill."));
const askForBash = (request) =>
  countToolResults(request) === 0
    ? reply(toolUse("Bash", { command: "echo BASH-RAN", description: "echo" }))
    : reply(text("Tool said: " + lastToolResult(request)?.text));
export default {
  "loads-skill": loadSkill,
  "skips-skill": answerOnly,
  "loads-forbidden-skill": loadSkill,
  "bash-allowed-only": askForBash,
  "bash-not-among-tools": askForBash,
};
`;

const CASES = `id: loads-skill
prompt: Draft this week's internal update.
agent: { fixture: fixture }
behavior: { mustUseSkills: [internal-comms] }
---
id: skips-skill
prompt: Draft this week's internal update.
agent: { fixture: fixture }
behavior: { mustUseSkills: [internal-comms, release-notes] }
---
id: loads-forbidden-skill
prompt: Draft this week's internal update.
agent: { fixture: fixture }
behavior: { mustNotUseSkills: [internal-comms] }
`;

// allowedTools pre-approves Bash; only tools takes it away. Both cases expect Bash to have run.
const TOOLS_CASES = `id: bash-allowed-only
prompt: Say something through Bash.
agent: { allowedTools: [Bash, Read] }
behavior: { expectedResponse: { contains: "Tool said: BASH-RAN" } }
---
id: bash-not-among-tools
prompt: Say something through Bash.
agent: { allowedTools: [Bash, Read], tools: [Read] }
behavior: { expectedResponse: { contains: "Tool said: BASH-RAN" } }
`;

/** `evals run <file> --model models.mjs --mode off`, and the results it wrote. */
async function evalsRun(file: string, out: string) {
  const previous = process.env.EVALS_CLAUDE_BIN;
  process.env.EVALS_CLAUDE_BIN = claudeBin;
  process.env.EVALS_OUTPUT_DIR ??= scratch;
  try {
    const run = await runInProcess(evalsCommand("run"), [
      file,
      "--model",
      join(scratch, "models.mjs"),
      "--mode",
      "off",
      "--out",
      out,
    ]);
    const latest = ResultsFileSchema.parse(JSON.parse(readFileSync(join(out, "latest.json"), "utf8")));
    return { ...run, cases: new Map(latest.cases.map((item) => [item.id, item])) };
  } finally {
    if (previous === undefined) delete process.env.EVALS_CLAUDE_BIN;
    else process.env.EVALS_CLAUDE_BIN = previous;
  }
}

beforeAll(() => {
  mkdirSync(join(scratch, "fixture", ".claude", "skills", "internal-comms"), { recursive: true });
  writeFileSync(join(scratch, "fixture", ".claude", "skills", "internal-comms", "SKILL.md"), SKILL);
  writeFileSync(join(scratch, "fixture", "README.md"), "A project.\n");
  // The module imports @evals/vcr: it must sit where this workspace's node_modules resolve it.
  writeFileSync(join(scratch, "models.mjs"), MODELS.replace("@evals/vcr", import.meta.resolve("@evals/vcr")));
  writeFileSync(join(scratch, "skills.yaml"), CASES);
  writeFileSync(join(scratch, "tools.yaml"), TOOLS_CASES);
});

describe.skipIf(!available)("skills and tools on real claude runs through evals run", () => {
  it("behavior.mustUseSkills passes when the skill was loaded, and says which were loaded and available when not", async () => {
    const run = await evalsRun(join(scratch, "skills.yaml"), join(scratch, "skills-results"));
    expect(run.err).toBe("");
    const violations = (id: string) =>
      run.cases
        .get(id)
        ?.trials[0]?.violations.filter((item) => item.rule === "skill-usage")
        .map((item) => `${item.type}: ${item.message}`);

    expect(run.cases.get("loads-skill")?.status).toBe("passed");
    expect(violations("loads-skill")).toEqual([]);

    const skipped = run.cases.get("skips-skill")!;
    expect(skipped.status).toBe("failed");
    // The init line lists the project's skill among the available ones.
    expect(skipped.trials[0]?.run?.skills).toContain("internal-comms");
    expect(violations("skips-skill")).toEqual([
      expect.stringMatching(
        /^missing-skill: skill internal-comms was expected but never loaded \(loaded: none; available: .*\binternal-comms\b.*\)$/,
      ),
      expect.stringMatching(
        /^skill-not-available: skill release-notes was expected but is not even available to the agent \(loaded: none; available: .*\binternal-comms\b/,
      ),
    ]);

    expect(run.cases.get("loads-forbidden-skill")?.status).toBe("failed");
    expect(violations("loads-forbidden-skill")).toEqual([
      expect.stringMatching(
        /^forbidden-skill: skill internal-comms was loaded, but internal-comms must not be \(loaded: internal-comms; available: /,
      ),
    ]);

    // The HTML report says it without JavaScript: the failing row leads with the rule and its message.
    const html = readFileSync(join(scratch, "skills-results", "report.html"), "utf8");
    const staticReport = /<section id="static-report"[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
    expect(staticReport).toContain("<b>1 of 3 cases passed</b>");
    const skipsRow = /<tr data-status="failed">.*?skips-skill.*?<\/tr>/.exec(staticReport)?.[0] ?? "";
    expect(skipsRow).toMatch(
      /<ul class="static-failures"><li><b>skill-usage\/missing-skill<\/b>: skill internal-comms was expected but never loaded/,
    );

    // The CLI's table and messages name the rule and its diagnostic.
    expect(run.out).toContain("skill-usage");
    expect(run.out).toContain("skill release-notes was expected but is not even available to the agent");
    expect(run.out).toContain("3 case(s), 3 trial(s): 1 passed, 2 failed");
    expect(run.code).toBe(EXIT.failed);
  }, 300_000);

  it("agent.tools restricts the tools the agent has; allowedTools only pre-approves", async () => {
    const run = await evalsRun(join(scratch, "tools.yaml"), join(scratch, "tools-results"));
    expect(run.err).toBe("");

    // allowedTools: [Bash, Read] restricts nothing: Bash ran (its output is in the answer).
    expect(run.cases.get("bash-allowed-only")?.status).toBe("passed");

    // tools: [Read]: the CLI offers Read alone, and refuses the model's Bash call as an unknown tool.
    const restricted = run.cases.get("bash-not-among-tools")!;
    expect(restricted.status).toBe("failed");
    const restrictedRun = restricted.trials[0]?.run;
    expect(restrictedRun?.tools).toEqual(["Read"]);
    const bashResult = restrictedRun?.events.find((event) => event.type === "tool_result");
    expect(bashResult).toMatchObject({ is_error: true });
    expect(String(bashResult && "output" in bashResult ? bashResult.output : "")).toContain(
      "No such tool available: Bash",
    );
    expect(run.out).toContain("No such tool available: Bash");
    expect(run.code).toBe(EXIT.failed);
  }, 300_000);
});
