// Started by run-agent.claude.test.ts: a test process that is killed in the middle of a run.
// It prints the CLI's pid once the CLI is up, then waits on a model that never answers.
import { scripted, startModelServer } from "@evals/vcr";
import { runAgent } from "@evals/claude-code";

const [claudeBin, cwd, outputRoot] = process.argv.slice(2);
const server = await startModelServer({ source: scripted(() => new Promise(() => {})) });
await runAgent({
  prompt: "hang",
  claudeBin,
  cwd,
  outputRoot,
  baseUrl: server.url,
  timeoutMs: 120_000,
  onStreamLine: (line) => {
    if (line.type === "system" && line.subtype === "init") console.log(`cli-started ${process.pid}`);
  },
});
