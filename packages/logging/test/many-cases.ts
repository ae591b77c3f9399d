import { type CaseResult, caseResult } from "../src/index.js";
import { syntheticRun } from "./demo-results.js";

/** `count` cases of `calls` tool calls each, a tenth of them failing with a violation. */
export function manyCases(count: number, calls: number): CaseResult[] {
  const tools = ["Read", "Grep", "Bash", "Edit", "Glob"];
  return Array.from({ length: count }, (_, n) => {
    const failing = n % 10 === 3;
    const run = syntheticRun(
      Array.from({ length: calls }, (_, i) => {
        const name = tools[i % tools.length]!;
        return {
          name,
          input:
            name === "Bash"
              ? { command: `npm test -- --grep case-${n}-${i}` }
              : { file_path: `/home/dev/project/src/module-${i}.ts`, pattern: `fn${i}` },
          output: `result of call ${i} of case ${n}`,
          ms: 20 + ((n * 7 + i * 13) % 400),
        };
      }),
      { prompt: `Case ${n}: refactor module ${n}` },
    );
    return caseResult({
      id: `case-${n}`,
      name: `case ${n}: refactors module ${n}`,
      suite: `suite ${n % 5}`,
      tags: [`area-${n % 7}`],
      trials: [
        {
          status: failing ? "failed" : "passed",
          scores: [{ scorer: "trajectory", score: failing ? 0.5 : 1, passed: !failing, threshold: 0.8 }],
          violations: failing
            ? [
                {
                  rule: "read-before-write",
                  type: "edit-without-read",
                  severity: "error",
                  message: `Edit of module-${calls - 2}.ts without reading it first`,
                  pointer: { tool_use_id: `toolu_${String(calls - 2).padStart(4, "0")}` },
                },
              ]
            : [],
          duration_ms: 1000 + n,
          cost_usd: 0.01,
          run,
        },
      ],
    });
  });
}
