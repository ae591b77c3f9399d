// Started by leftovers.claude.test.ts: a run whose prompt names a planted token (the capture hook
// writes the prompt, raw, to events.jsonl) and that prints it (Bash `env`), then waits on a model
// that never answers, when its test process is killed.
// Usage: node secret-run.mjs <claudeBin> <cwd> <outputRoot> <token>
import { countToolResults, reply, scripted, startModelServer, toolUse } from "@evals/vcr";
import { runAgent } from "@evals/claude-code";

const [claudeBin, cwd, outputRoot, token] = process.argv.slice(2);
const server = await startModelServer({
  source: scripted((request) => {
    if (countToolResults(request) === 0) return reply(toolUse("Bash", { command: "env", description: "env" }));
    console.log("printed");
    return new Promise(() => {});
  }),
});
await runAgent({
  prompt: `print env, GITHUB_TOKEN is ${token}`,
  claudeBin,
  cwd,
  outputRoot,
  baseUrl: server.url,
  allowedTools: ["Bash"],
  timeoutMs: 120_000,
  env: { GITHUB_TOKEN: token },
});
