// One of the concurrent writers of reliability.test.ts: captures `count` PreToolUse events with
// the built library (the same capture code as the evals-hook executable), starting at `startAt`.
import { captureHookEvent } from "../dist/index.js";

const [worker, count, startAt] = process.argv.slice(2).map(Number);
while (Date.now() < startAt) await new Promise((resolve) => setTimeout(resolve, 5));
let failures = 0;
for (let i = 0; i < count; i++) {
  // Mostly small lines, some far over PIPE_BUF (4 KiB), a few over the 256 KiB field limit.
  const size =
    i % 125 === 0 ? 300_000 : i % 50 === 0 ? 100_000 : 100 + ((i * 7919 + worker * 104_729) % 6000);
  const outcome = captureHookEvent({
    session_id: `session-${worker}`,
    cwd: "/project",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: `echo ${worker}:${i}`, worker, i, pad: "é".repeat(size / 2) },
    tool_use_id: `toolu_${worker}_${i}`,
  });
  if (!outcome.captured || !outcome.toolCallWritten) failures++;
}
process.exit(failures === 0 ? 0 : 1);
