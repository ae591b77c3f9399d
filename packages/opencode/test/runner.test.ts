import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCase } from "@evals/evaluators";
import { caseRunOptions, claudeCodeRunner, resolveAgentRunner, runCases } from "@evals/harness";
import { countToolResults, reply, text, toolUse } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";
import { agentRunner, openCodeOptions, openCodeRunner } from "../src/index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the OpenCode runner for the harness", () => {
  it("maps the shared runAgent options onto runOpenCode's", () => {
    expect(
      openCodeOptions({
        prompt: "hi",
        cwd: "/work",
        runId: "r1",
        maxTurns: 4,
        agentName: "reviewer",
        timeoutMs: 1000,
        baseUrl: "http://127.0.0.1:1",
      }),
    ).toEqual({
      prompt: "hi",
      cwd: "/work",
      runId: "r1",
      maxSteps: 4,
      agent: "reviewer",
      timeoutMs: 1000,
      baseUrl: "http://127.0.0.1:1",
    });
    expect(openCodeOptions({ prompt: "hi" }, { permission: { bash: "deny" } })).toEqual({
      prompt: "hi",
      permission: { bash: "deny" },
    });
  });

  it("refuses Claude Code's own options instead of dropping them", () => {
    expect(() => openCodeOptions({ prompt: "hi", allowedTools: ["Read"], permissionMode: "plan" })).toThrow(
      /OpenCode runs without Claude Code's allowedTools, permissionMode/,
    );
  });

  it("refuses a case's agent.tools (claude --tools) and says what to use instead", () => {
    const evalCase = parseCase({ id: "c", prompt: "p", agent: { cli: "opencode", tools: ["Read"] } }, "case");
    expect(() => openCodeOptions(caseRunOptions(evalCase))).toThrow(
      /OpenCode runs without Claude Code's tools \(a case's agent.tools, claude --tools\): take tools away with OpenCode's own permission instead, e.g. openCodeRunnerWith\(\{ permission: \{ bash: "deny" \} \}\)/,
    );
  });

  it('is what the harness loads for agent "opencode"; other names say which package is missing', async () => {
    const loaded = await resolveAgentRunner("opencode");
    const published = (await import("@evals/opencode")) as { agentRunner: unknown };
    expect(loaded).toBe(published.agentRunner);
    expect(typeof agentRunner).toBe("function");
    expect(await resolveAgentRunner(openCodeRunner)).toBe(openCodeRunner);
    expect(await resolveAgentRunner(undefined)).toBe(claudeCodeRunner);
    await expect(resolveAgentRunner("no-such-cli")).rejects.toThrow(
      /needs its runner package @evals\/no-such-cli/,
    );
    await expect(claudeCodeRunner({ prompt: "hi", agentName: "reviewer" })).rejects.toThrow(
      /Claude Code runs no named agent/,
    );
    // A migrated OpenAgentsControl case's approval mode is OpenCode's: Claude Code refuses it.
    await expect(claudeCodeRunner({ prompt: "hi", autoApprove: true })).rejects.toThrow(
      /agent.autoApprove is OpenCode's \(set agent.cli: opencode\)/,
    );
    await expect(claudeCodeRunner({ prompt: "hi", permission: { bash: "ask" } })).rejects.toThrow(
      /agent.permission is OpenCode's/,
    );
  });

  it("a case names its agent CLI and agent in its agent block", () => {
    const parsed = parseCase({ id: "c", prompt: "p", agent: { cli: "opencode", name: "reviewer" } }, "case");
    expect(parsed.agent).toMatchObject({ cli: "opencode", name: "reviewer" });
    expect(() => parseCase({ id: "c", prompt: "p", agent: { cli: "Open Code" } }, "case")).toThrow(
      /agent CLI name/,
    );
  });

  it("runs a suite's cases with the real opencode CLI when the suite's agent is opencode", async () => {
    const fixture = mkdtempSync(join(tmpdir(), "oc-runner-fixture-"));
    const output = mkdtempSync(join(tmpdir(), "oc-runner-out-"));
    dirs.push(fixture, output);
    writeFileSync(join(fixture, "a.txt"), "alpha\n");
    const result = await runCases(
      [
        parseCase(
          {
            id: "lists",
            prompt: "list the files",
            agent: { fixture },
            behavior: { mustUseTools: ["bash"], expectedResponse: { contains: "a.txt" } },
          },
          "case",
        ),
      ],
      {
        suite: "runner-test",
        agent: "opencode",
        outputRoot: output,
        model: {
          lists: (request) =>
            countToolResults(request) === 0
              ? reply(toolUse("bash", { command: "ls", description: "List files" }))
              : reply(text("Files: a.txt")),
        },
      },
    );
    const outcome = result.outcomes[0];
    expect(outcome?.message).toBeUndefined();
    expect(result.passed).toBe(true);
    const run = outcome?.runs[0]?.run;
    expect(run?.agent).toBe("opencode");
    expect(run?.events.find((event) => event.type === "tool_call")).toMatchObject({
      name: "Bash",
      original_name: "bash",
    });
  }, 300_000);
});
