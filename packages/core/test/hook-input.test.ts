import { describe, expect, it } from "vitest";
import { HookInputSchema, KNOWN_HOOK_EVENTS } from "../src/hook-input.js";
import { CapturedEventSchema, parseHookInput } from "../src/index.js";
import { fixtureHookInputs } from "./fixtures.js";

describe("hook inputs", () => {
  for (const name of ["multi-tool", "subagent"] as const) {
    it(`parses every real ${name} payload without losing a field`, () => {
      const inputs = fixtureHookInputs(name);
      expect(inputs.length).toBeGreaterThan(10);
      for (const input of inputs) expect(parseHookInput(input)).toEqual(input);
    });
  }

  it("covers every event the real runs fired", () => {
    const fired = new Set(
      [...fixtureHookInputs("multi-tool"), ...fixtureHookInputs("subagent")].map(
        (input) => (input as { hook_event_name: string }).hook_event_name,
      ),
    );
    for (const name of fired) expect(KNOWN_HOOK_EVENTS).toContain(name);
  });

  it("keeps an unknown event as a generic one, with its fields", () => {
    const input = { session_id: "s", cwd: "/x", hook_event_name: "FutureEvent", novel: { a: 1 } };
    expect(parseHookInput(input)).toEqual(input);
  });

  it("keeps unknown fields of a known event", () => {
    const input = {
      session_id: "s",
      cwd: "/x",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_1",
      brand_new_field: [1, 2],
    };
    expect(parseHookInput(input)).toEqual(input);
  });

  it("names the field that is wrong in a malformed known event", () => {
    const result = HookInputSchema.safeParse({ session_id: "s", cwd: "/x", hook_event_name: "PreToolUse" });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toContain("tool_name");
  });

  it("rejects a payload without an event name", () => {
    expect(() => parseHookInput({ session_id: "s", cwd: "/x" })).toThrow(/hook_event_name/);
  });

  it("validates a captured event line around the hook input", () => {
    const line = {
      version: 1,
      captured_at: new Date(0).toISOString(),
      run_id: "run-1",
      seq: 3,
      event: fixtureHookInputs("multi-tool")[0],
    };
    expect(CapturedEventSchema.parse(line)).toEqual(line);
    const broken = CapturedEventSchema.safeParse({ ...line, event: { hook_event_name: "PostToolUse" } });
    expect(broken.success).toBe(false);
    expect(broken.error?.issues[0]?.path[0]).toBe("event");
  });
});
