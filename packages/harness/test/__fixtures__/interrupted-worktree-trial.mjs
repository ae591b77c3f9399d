// Started by leftovers.claude.test.ts: a worktree trial whose agent has written a file and waits on a
// model that never answers, when the test process gets Ctrl-C.
// Usage: node interrupted-worktree-trial.mjs <claudeBin> <repo> <outputRoot>
import { countToolResults, reply, scripted, toolUse } from "@evals/vcr";
import { claudeCodeRunner } from "@evals/claude-code";
import { runTrial } from "../../dist/index.js";

const [claudeBin, repo, outputRoot] = process.argv.slice(2);
await runTrial(
  {
    suite: "interrupt",
    caseId: "ctrl-c",
    caseValue: {},
    trial: 0,
    trials: 1,
    runId: `ctrl-c-${process.pid}`,
    signal: new AbortController().signal,
    outputRoot,
    agent: claudeCodeRunner,
    worktree: { repo },
    model: () =>
      scripted((request) => {
        if (countToolResults(request) === 0) {
          return reply(toolUse("Bash", { command: "echo work > agent-was-here.txt", description: "work" }));
        }
        console.log("ready");
        return new Promise(() => {});
      }),
  },
  (context) =>
    context.runAgent({ prompt: "work", options: { claudeBin }, allowedTools: ["Bash"], timeoutMs: 120_000 }),
).catch((error) => console.error(String(error)));
