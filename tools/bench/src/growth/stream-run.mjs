// A generated Claude Code stream-json run, for the growth and grade benchmarks.
import { createWriteStream } from "node:fs";

/**
 * A Claude Code stream-json run of `lines` lines, shaped like the CLI's (system/init, assistant
 * tool_use lines and user tool_result lines in pairs, a result line): Reads, Edits of what was read,
 * Bash commands, some failing.
 */
export async function writeStream(file, lines) {
  const out = createWriteStream(file);
  const write = (value) =>
    out.write(`${JSON.stringify(value)}\n`)
      ? undefined
      : new Promise((resolve) => out.once("drain", resolve));
  const session = "6f1c1d2e-bench-growth";
  const time = (i) => new Date(Date.parse("2026-11-21T10:00:00Z") + i * 50).toISOString();
  await write({
    type: "system",
    subtype: "init",
    cwd: "/home/dev/project",
    session_id: session,
    model: "claude-sonnet-4-5",
    tools: ["Bash", "Read", "Edit", "Grep"],
    claude_code_version: "2.1.330",
  });
  const pairs = Math.max(0, Math.floor((lines - 2) / 2));
  for (let i = 0; i < pairs; i++) {
    const id = `toolu_${i.toString(36)}`;
    const kind = i % 4;
    // Edits change the file the call before read (reads, then an edit of what was read, then a test).
    const file = `/home/dev/project/src/module-${(kind === 2 ? i - 1 : i) % 500}.ts`;
    const call =
      kind === 0 || kind === 1
        ? { name: "Read", input: { file_path: file } }
        : kind === 2
          ? { name: "Edit", input: { file_path: file, old_string: `a${i}`, new_string: `b${i}` } }
          : {
              name: "Bash",
              input: { command: `npm test -- --grep case-${i}`, description: "run the tests" },
            };
    await write({
      type: "assistant",
      message: {
        id: `msg_${i.toString(36)}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "tool_use", id, ...call }],
        usage: { input_tokens: 100, output_tokens: 10 },
      },
      parent_tool_use_id: null,
      session_id: session,
      timestamp: time(2 * i),
    });
    const failed = kind === 3 && i % 20 === 3;
    await write({
      type: "user",
      message: {
        role: "user",
        content: [
          {
            tool_use_id: id,
            type: "tool_result",
            content: failed ? "Error: 1 test failed" : `1\texport const value${i} = ${i};\n2\t`,
            is_error: failed,
          },
        ],
      },
      parent_tool_use_id: null,
      session_id: session,
      timestamp: time(2 * i + 1),
    });
  }
  await write({
    type: "result",
    subtype: "success",
    is_error: false,
    num_turns: pairs,
    duration_ms: pairs * 100,
    total_cost_usd: 1.5,
    session_id: session,
    result: "Done.",
    usage: { input_tokens: pairs * 100, output_tokens: pairs * 10 },
  });
  await new Promise((resolve) => out.end(resolve));
}
