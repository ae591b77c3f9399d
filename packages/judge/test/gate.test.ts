import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { reply, scripted, startModelServer, toolUse } from "@evals/vcr";
import { describe, expect, it } from "vitest";
import { judgeEnabled, whenJudging } from "../src/index.js";

const run = promisify(execFile);
const script = fileURLToPath(new URL("./__fixtures__/sdk-loading.mjs", import.meta.url));
const judgeDist = new URL("../dist/index.js", import.meta.url).href;

/** Runs the fixture with EVAL_LLM_JUDGE as given: how many judges it got, and whether the SDK loaded. */
async function loadCheck(
  judgeEnv: string | undefined,
  action: "build" | "score",
  baseURL = "http://127.0.0.1:9",
) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.EVAL_LLM_JUDGE;
  if (judgeEnv !== undefined) env.EVAL_LLM_JUDGE = judgeEnv;
  const { stdout } = await run(process.execPath, [script, judgeDist, baseURL, action], {
    env,
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split("\n").pop()!) as { scorers: number; sdkLoaded: boolean };
}

describe("the judge gate", () => {
  it("is on with EVAL_LLM_JUDGE=1 or when a suite turns it on", () => {
    expect(judgeEnabled(undefined, {})).toBe(false);
    expect(judgeEnabled(undefined, { EVAL_LLM_JUDGE: "0" })).toBe(false);
    expect(judgeEnabled(undefined, { EVAL_LLM_JUDGE: "1" })).toBe(true);
    expect(judgeEnabled(true, {})).toBe(true);
    expect(judgeEnabled(false, { EVAL_LLM_JUDGE: "1" })).toBe(false);
    let made = 0;
    const make = () => {
      made++;
      return [{ name: "a" }, { name: "b" }];
    };
    expect(whenJudging(make, { env: {} })).toEqual([]);
    expect(made).toBe(0);
    expect(whenJudging(make, { env: { EVAL_LLM_JUDGE: "1" } })).toHaveLength(2);
    expect(whenJudging(make, { enabled: true, env: {} })).toHaveLength(2);
  });

  it("never loads the Anthropic SDK when judging is off, nor before a judge scores", async () => {
    expect(await loadCheck(undefined, "score")).toEqual({ scorers: 0, sdkLoaded: false });
    expect(await loadCheck("1", "build")).toEqual({ scorers: 1, sdkLoaded: false });
  });

  it("loads it when a judge scores", async () => {
    const server = await startModelServer({
      source: scripted(() =>
        reply(
          toolUse("record_rubric_verdict", {
            criteria: [{ criterion: 1, met: true, reasoning: "says done" }],
            summary: "fine",
          }),
        ),
      ),
    });
    try {
      expect(await loadCheck("1", "score", server.url)).toEqual({ scorers: 1, sdkLoaded: true });
      expect(server.interactions).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
