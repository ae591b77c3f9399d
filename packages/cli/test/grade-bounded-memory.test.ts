import { spawnSync } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fixtureHookInputs, fixturesDir } from "../../evaluators/test/helpers.js";
import { builtIndex, runEvals } from "./evals-bin.js";

const temp = mkdtempSync(join(tmpdir(), "evals-grade-memory-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const caseFile = join(temp, "steps.case.yaml");
writeFileSync(caseFile, "id: steps\nprompt: do the steps\nbehavior:\n  mustUseTools: [Bash, Read]\n");

/** The real multi-tool run's stream-json lines: the Bash call (`ls`) and its result are lines 5 and 6. */
const realLines = readFileSync(`${fixturesDir}multi-tool/stream.jsonl`, "utf8").trimEnd().split("\n");
const bashCall = realLines[4] as string;
const bashResult = JSON.parse(realLines[5] as string);

/** The real run with `copies` more Bash calls, each printing `outputBytes`. */
function writeLongRun(file: string, copies: number, outputBytes: number): void {
  const fd = openSync(file, "w");
  const body = "x".repeat(outputBytes);
  try {
    for (const line of realLines.slice(0, -1)) writeSync(fd, `${line}\n`);
    for (let copy = 0; copy < copies; copy++) {
      const id = `toolu_big${copy}`;
      writeSync(fd, `${bashCall.replaceAll("toolu_fake0002", id)}\n`);
      const result = structuredClone(bashResult);
      result.message.content[0].tool_use_id = id;
      result.message.content[0].content = body;
      writeSync(fd, `${JSON.stringify(result)}\n`);
    }
    writeSync(fd, `${realLines.at(-1)}\n`);
  } finally {
    closeSync(fd);
  }
}

/** `evals grade ...args` in a child of its own, with its peak memory (max RSS). */
function gradeMeasured(args: string[]): { code: number; stdout: string; stderr: string; maxRssMb: number } {
  const child = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { evals } = await import(${JSON.stringify(builtIndex)});
let out = "";
const code = await evals(["grade", ...process.argv.slice(1)], { stdout: { write: (s) => { out += s; return true; } }, stderr: process.stderr });
process.stdout.write(JSON.stringify({ code, out, maxRssKb: process.resourceUsage().maxRSS }));`,
      "--",
      ...args,
    ],
    { encoding: "utf8", timeout: 120_000, env: { ...process.env, FORCE_COLOR: "0" }, maxBuffer: 1 << 26 },
  );
  const result = JSON.parse(child.stdout);
  return { code: result.code, stdout: result.out, stderr: child.stderr, maxRssMb: result.maxRssKb / 1024 };
}

describe("evals grade in bounded memory", () => {
  it("grades a 300 MB stream.jsonl line by line: memory grows with what the rules keep, not the file's bytes", () => {
    const file = join(temp, "long-outputs.jsonl");
    // 1000 Bash calls printing 300 KB each: 300 MB of run (it was refused: more than a stored run holds).
    writeLongRun(file, 1000, 300 * 1024);
    const graded = gradeMeasured([file, "--case", caseFile, "--verbose"]);
    expect(graded.stderr).toBe("");
    expect(graded.stdout).toContain("1005 tool calls, agents: main");
    expect(graded.code).toBe(1);
    expect(graded.maxRssMb).toBeLessThan(300);
  }, 180_000);

  it("refuses a line longer than 256 MiB as bad input naming the file and line, in a run folder or alone (it was exit 3)", () => {
    const folder = join(temp, "run-huge-line");
    mkdirSync(folder);
    const file = join(folder, "stream.jsonl");
    // One Bash call printing 257 MiB: more than one line of a stored run may hold.
    writeLongRun(file, 1, 257 * 1024 * 1024);
    const hugeLine = realLines.length + 1;
    for (const target of [folder, file]) {
      const refused = runEvals(["grade", target, "--case", caseFile]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${file}:${hugeLine}: the line is longer than 256 MiB`);
      expect(refused.stderr).toContain("cut the oversized value out of that line");
      expect(refused.stderr).not.toContain("internal error");
    }
  }, 180_000);

  it("refuses an events.jsonl line longer than 256 MiB the same way, before holding it whole", () => {
    const folder = join(temp, "run-huge-event");
    mkdirSync(folder);
    const file = join(folder, "events.jsonl");
    const lines = fixtureHookInputs("multi-tool").map((event, seq) =>
      JSON.stringify({
        version: 1,
        captured_at: new Date(1_790_000_000_000 + seq).toISOString(),
        run_id: "run-huge-event",
        seq,
        pid: 1,
        event,
      }),
    );
    const fd = openSync(file, "w");
    try {
      writeSync(fd, `${lines.slice(0, 3).join("\n")}\n`);
      // A PostToolUse whose tool_response is 257 MiB.
      const head = JSON.parse(lines[3] as string);
      head.event = { ...head.event, tool_response: "@" };
      const [before, after] = JSON.stringify(head).split('"@"');
      writeSync(fd, `${before}"`);
      const mib = Buffer.alloc(1024 * 1024, "x");
      for (let i = 0; i < 257; i++) writeSync(fd, mib);
      writeSync(fd, `"${after}\n`);
    } finally {
      closeSync(fd);
    }
    const refused = runEvals(["grade", folder, "--case", caseFile]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file}:4: the line is longer than 256 MiB`);
    expect(refused.stderr).not.toContain("internal error");
  }, 180_000);
});
