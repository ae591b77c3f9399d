import { describe, expect, it } from "vitest";
import { chooseRunId } from "../src/index.js";

describe("the capture hook's run folder name", () => {
  it("falls back to a stable safe id and says why", () => {
    const nul = chooseRunId("x\0y", "s");
    expect(nul.id).toMatch(/^invalid-[0-9a-f]{8}$/);
    expect(chooseRunId("x\0y", "s").id).toBe(nul.id);
    expect(chooseRunId("x\0z", "s").id).not.toBe(nul.id);
    expect(nul.problem).toMatch(/contains "\\u0000"/);
    expect(chooseRunId(undefined, "abc-123")).toEqual({
      id: "session-abc-123",
      problem: "TEST_RUN_ID is not set; captured to session-abc-123 instead",
    });
    expect(chooseRunId("", "../bad").id).toBe("no-run-id");
    expect(chooseRunId("", undefined).id).toBe("no-run-id");
    expect(chooseRunId("good", "s")).toEqual({ id: "good" });
  });
});
