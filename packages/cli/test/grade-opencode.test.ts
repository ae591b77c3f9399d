import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadStoredRun } from "@evals/evaluators";
import { afterAll, describe, expect, it } from "vitest";
import { runEvals } from "./evals-bin.js";

// Real OpenCode 1.18.33 runs (`opencode run --format json` stdout; fixtures/opencode-1.18.33/README.md).
const fixtures = fileURLToPath(new URL("../../../fixtures/opencode-1.18.33/", import.meta.url));
const stdout = (name: string) => join(fixtures, name, "stdout.jsonl");
const temp = mkdtempSync(join(tmpdir(), "evals-grade-oc-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(temp, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** oc-bash: `bash {command: "ls"}`, then "Done. Tool said: ...". */
const bashCase = write(
  "bash.case.yaml",
  [
    "id: lists",
    "prompt: do the steps",
    "behavior:",
    "  mustUseTools: [Bash]",
    "  mustNotUseTools: [Write]",
    "  expectedResponse:",
    "    contains: [Done]",
    "expectedTrajectory: [Bash]",
  ].join("\n"),
);
const bashLines = readFileSync(stdout("oc-bash"), "utf8").trimEnd().split("\n");

describe("evals grade on OpenCode runs", () => {
  it("detects a bare `opencode run --format json` stream and grades it in the shared vocabulary", async () => {
    const stored = await loadStoredRun(stdout("oc-bash"));
    expect(stored.format).toBe("opencode-json");
    expect(stored.run.agent).toBe("opencode");
    const result = runEvals(["grade", stdout("oc-bash"), "--case", bashCase]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("(opencode-json)");
    expect(result.stdout.trim().endsWith("Verdict: PASS")).toBe(true);
    expect(result.code).toBe(0);
  });

  it("judges the same case differently when the run did otherwise (read/write/edit)", () => {
    const result = runEvals(["grade", stdout("oc-read-write"), "--case", bashCase]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("Verdict: FAIL");
  });

  it("reads a stream named with --agent opencode whatever its first line", async () => {
    // A stream whose first line is an unknown event type: only --agent tells it is OpenCode's.
    const file = write("named.jsonl", [JSON.stringify({ type: "banner" }), ...bashLines].join("\n"));
    // Read as Claude Code stream-json, it holds no tool calls: the case fails.
    expect(runEvals(["grade", file, "--case", bashCase]).code).toBe(1);
    const result = runEvals(["grade", file, "--case", bashCase, "--agent", "opencode"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(runEvals(["grade", file, "--agent", "aider"]).stderr).toContain(
      '--agent must be claude-code, opencode, codex or gemini, not "aider"',
    );
  });

  it("fails a stream cut off before OpenCode finished (its last step asked for tools)", async () => {
    const cut = bashLines.findIndex((line) => line.includes('"reason":"tool-calls"'));
    const file = write("cut.jsonl", `${bashLines.slice(0, cut + 1).join("\n")}\n`);
    const stored = await loadStoredRun(file);
    expect(stored.run.events.some((event) => event.type === "final_result")).toBe(false);
    expect(stored.run.notes.map((note) => note.message).join()).toContain("ends before the run finished");
    const result = runEvals(["grade", file, "--case", bashCase]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("Verdict: FAIL");
  });

  it("fails a stream with an `error` event as an API error", async () => {
    const session = JSON.parse(bashLines[0] as string).sessionID as string;
    const error = {
      type: "error",
      timestamp: 1795421573700,
      sessionID: session,
      error: {
        name: "APIError",
        data: { message: "Bad Request: the test", statusCode: 400, isRetryable: false },
      },
    };
    const file = write("error.jsonl", `${[...bashLines.slice(0, 1), JSON.stringify(error)].join("\n")}\n`);
    const stored = await loadStoredRun(file);
    expect(stored.run.events.at(-1)).toMatchObject({
      type: "final_result",
      is_error: true,
      terminal_reason: "api_error",
      api_error_status: 400,
    });
    const result = runEvals(["grade", file, "--case", bashCase]);
    expect(result.code).toBe(1);
  });

  it("reads a run folder whose manifest names the OpenCode CLI (stream.jsonl without result.json)", async () => {
    const dir = join(temp, "test-output", "oc-run-1");
    write("test-output/oc-run-1/stream.jsonl", readFileSync(stdout("oc-bash"), "utf8"));
    write(
      "test-output/oc-run-1/run-folder.json",
      JSON.stringify({
        version: 1,
        run_id: "oc-run-1",
        written_at: new Date(0).toISOString(),
        agent: { cli: "opencode", prompts: ["do the steps"] },
      }),
    );
    const stored = await loadStoredRun(dir);
    expect(stored.format).toBe("opencode-json");
    expect(stored.run.id).toBe("oc-run-1");
    expect(stored.run.events[0]).toMatchObject({ type: "user_message", text: "do the steps" });
    expect(runEvals(["grade", dir, "--case", bashCase]).code).toBe(0);
  });
});
