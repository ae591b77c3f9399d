// Started by leftovers.claude.test.ts: a run that prints a planted token (Bash `env`), then waits on a
// model that never answers, when its test process is killed.
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
  prompt: "print env",
  claudeBin,
  cwd,
  outputRoot,
  baseUrl: server.url,
  allowedTools: ["Bash"],
  timeoutMs: 120_000,
  env: { GITHUB_TOKEN: token },
});
