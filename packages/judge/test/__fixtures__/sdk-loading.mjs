// Imports @evals/judge's built package, builds the judges through whenJudging, optionally scores a
// run with them, and prints whether the Anthropic SDK was loaded: {"scorers": n, "sdkLoaded": bool}.
import { MessageChannel } from "node:worker_threads";
import { register } from "node:module";

const [judgeDist, baseURL, action] = process.argv.slice(2);
const resolved = [];
const { port1, port2 } = new MessageChannel();
port1.on("message", (specifier) => resolved.push(specifier));
port1.unref();
register("./resolve-hook.mjs", { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });

const { whenJudging, rubricJudge } = await import(judgeDist);
const scorers = whenJudging(() => rubricJudge({ baseURL, recording: false, criteria: ["Says done"], maxRetries: 0 }));
if (action === "score") {
  for (const scorer of scorers) {
    await scorer.score({
      run: {
        version: 1,
        sources: ["stream"],
        agents: [{ id: "main", type: "main" }],
        notes: [],
        events: [
          { index: 0, type: "user_message", agent: "main", text: "Say done." },
          { index: 1, type: "final_result", agent: "main", subtype: "success", is_error: false, result: "done" },
        ],
      },
    });
  }
}
// Let the hook thread's last messages arrive.
await new Promise((resolve) => setTimeout(resolve, 200));
console.log(JSON.stringify({ scorers: scorers.length, sdkLoaded: resolved.some((s) => s.includes("@anthropic-ai/sdk")) }));
