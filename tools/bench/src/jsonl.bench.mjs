// @evals/core readJsonl: stream a generated 1,000,000-line events file (~300 MB) and report lines
// per second and peak RSS. Target: peak RSS under 150 MB whatever the file size.
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CapturedEventSchema, readJsonl } from "@evals/core";
import { envCount } from "./bench-kit.mjs";

const lines = envCount("BENCH_JSONL_LINES", 1_000_000);
const dir = mkdtempSync(join(tmpdir(), "evals-bench-jsonl-"));
const file = join(dir, "events.jsonl");

await new Promise((resolve, reject) => {
  const out = createWriteStream(file);
  out.on("error", reject);
  let i = 0;
  const write = () => {
    let ok = true;
    while (i < lines && ok) {
      const event = {
        version: 1,
        captured_at: new Date(1_790_000_000_000 + i).toISOString(),
        run_id: "bench-run",
        seq: i,
        pid: 4242,
        event: {
          session_id: "a3e834f3-3b74-4b22-8ceb-500603eb7434",
          transcript_path: "/home/dev/.claude/projects/-home-dev-project/a3e834f3.jsonl",
          cwd: "/home/dev/project",
          hook_event_name: "PreToolUse",
          tool_name: "Bash",
          tool_input: { command: `echo ${i}`, description: "bench" },
          tool_use_id: `toolu_${i.toString(16).padStart(8, "0")}`,
        },
      };
      ok = out.write(`${JSON.stringify(event)}\n`);
      i++;
    }
    if (i < lines) out.once("drain", write);
    else out.end(resolve);
  };
  write();
});

const size = statSync(file).size;
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 20);

async function measure(label, options) {
  const start = process.hrtime.bigint();
  let count = 0;
  for await (const _record of readJsonl(file, options)) {
    count++;
    if ((count & 0xffff) === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(
    `${label}: ${count} lines in ${seconds.toFixed(2)} s = ${Math.round(count / seconds).toLocaleString("en")} lines/s`,
  );
}

console.log(`file: ${lines.toLocaleString("en")} lines, ${(size / 1e6).toFixed(0)} MB`);
await measure("readJsonl (parse only)", {});
await measure("readJsonl (validated with CapturedEventSchema)", { schema: CapturedEventSchema });
clearInterval(sampler);
const peakMb = peakRss / 1024 / 1024;
console.log(`peak RSS: ${peakMb.toFixed(0)} MB (target < 150 MB): ${peakMb < 150 ? "OK" : "OVER"}`);
rmSync(dir, { recursive: true, force: true });
