import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentRunner,
  type AgentRunOptions,
  parseRunnerOptions,
  RunnerOptionsError,
  resolveOptionPaths,
  UnsupportedOptionError,
} from "../src/index.js";

const EchoOptionsSchema = z.strictObject({
  greeting: z.string().default("hi"),
  loud: z.boolean().optional(),
});

/** A runner that honours no tool list: what a runner does with a shared option its CLI lacks. */
const echoRunner: AgentRunner<z.infer<typeof EchoOptionsSchema>> = {
  cli: "echo",
  modelApi: "anthropic-messages",
  optionsSchema: EchoOptionsSchema,
  async run(shared: AgentRunOptions, options) {
    if (shared.tools !== undefined) throw new UnsupportedOptionError("echo", "tools", "echo has no tools");
    return {
      run_id: shared.runId ?? "r",
      run: { schema_version: 1, run_id: "r", events: [], notes: [] } as never,
      exit_code: 0,
      timed_out: false,
      duration_ms: options.greeting.length,
      origin: "live",
    };
  },
};

describe("parseRunnerOptions", () => {
  it("fills in the schema's defaults, and takes no options as {}", () => {
    expect(parseRunnerOptions(echoRunner, undefined)).toEqual({ greeting: "hi" });
    expect(parseRunnerOptions(echoRunner, { loud: true })).toEqual({ greeting: "hi", loud: true });
  });

  it("names the runner and each field that does not fit", () => {
    let error: unknown;
    try {
      parseRunnerOptions(echoRunner, { greeting: 3, shout: true });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RunnerOptionsError);
    const { cli, issues, message } = error as RunnerOptionsError;
    expect(cli).toBe("echo");
    expect(issues.map((issue) => issue.path.join("."))).toEqual(["greeting", ""]);
    expect(message).toMatch(
      /^echo runner options are invalid:\n {2}- greeting: .*\n {2}- \(options\): .*shout/,
    );
  });
});

describe("UnsupportedOptionError", () => {
  it("names the runner, the one shared option and what to use instead", async () => {
    await expect(echoRunner.run({ prompt: "x", tools: ["Bash"] }, { greeting: "hi" })).rejects.toThrow(
      "echo cannot honour the shared option `tools`: echo has no tools",
    );
    const run = await echoRunner.run({ prompt: "x", runId: "one" }, parseRunnerOptions(echoRunner, {}));
    expect(run.run_id).toBe("one");
  });
});

describe("resolveOptionPaths", () => {
  it("resolves the named options' relative paths (a string or a list's strings) and leaves objects and absolute paths", () => {
    const resolved = resolveOptionPaths(
      { settings: "s.json", pluginDirs: ["p", "/abs/q"], agents: { a: { prompt: "x" } }, model: "m" },
      ["settings", "pluginDirs", "agents", "mcpConfig"],
      "/cases",
    );
    expect(resolved).toEqual({
      settings: "/cases/s.json",
      pluginDirs: ["/cases/p", "/abs/q"],
      agents: { a: { prompt: "x" } },
      model: "m",
    });
  });
});
