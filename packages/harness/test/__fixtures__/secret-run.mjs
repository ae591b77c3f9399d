// Started by leftovers.claude.test.ts: a run that delegates with a prompt naming a planted token (the
// capture hook writes the Agent call's PreToolUse, raw, to events.jsonl), then prints it (Bash `env`),
// then waits on a model that never answers, when its test process is killed.
// Usage: node secret-run.mjs <claudeBin> <cwd> <outputRoot> <token>
import { countToolResults, isSubagentRequest, reply, scripted, startModelServer, text, toolUse } from "@evals/vcr";
import { runAgent } from "@evals/claude-code";

const [claudeBin, cwd, outputRoot, token] = process.argv.slice(2);
const server = await startModelServer({
  source: scripted((request) => {
    if (isSubagentRequest(request)) return reply(text("child done"));
    if (countToolResults(request) === 0) {
      const prompt = `the token is ${token}`;
      return reply(toolUse("Agent", { subagent_type: "general-purpose", description: "child", prompt, run_in_background: false }));
    }
    if (countToolResults(request) === 1) return reply(toolUse("Bash", { command: "env", description: "env" }));
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
  allowedTools: ["Bash", "Agent"],
  timeoutMs: 120_000,
  env: { GITHUB_TOKEN: token },
});
