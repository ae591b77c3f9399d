// Started by leftovers.claude.test.ts: the next test process after one that was SIGKILLed with its
// watchdog. It runs one short agent run (a model that answers at once) and prints "next-run-done".
import { reply, scripted, startModelServer, text } from "@evals/vcr";
import { runAgent } from "@evals/claude-code";

const [claudeBin, cwd, outputRoot] = process.argv.slice(2);
const server = await startModelServer({ source: scripted(() => reply(text("done"))) });
try {
  const result = await runAgent({ prompt: "say done", claudeBin, cwd, outputRoot, baseUrl: server.url });
  console.log(`next-run-done ${result.run.events.length}`);
} finally {
  await server.close();
}
