import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentRunResult,
  parseHookInput,
  RUN_FOLDER_FILES,
  RunBuilder,
  RunFolderError,
  RunSchema,
  readRunFolder,
  readRunFolderStream,
  runFromHookEvents,
  runResultInto,
  writeRunFolder,
} from "../src/index.js";
import { fixtureHookInputs } from "./fixtures.js";

/**
 * A run folder's result.json read into a sink one event at a time (runResultInto): the run it fills
 * is the one readRunFolder reads whole, and what cannot be read is a RunFolderError naming the file
 * and the field (or byte), never a crash.
 */
const temp = mkdtempSync(join(tmpdir(), "run-result-stream-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const run = runFromHookEvents(fixtureHookInputs("multi-tool").map(parseHookInput), { runId: "r1" });
const result: AgentRunResult & { error: string } = {
  run_id: "r1",
  run: { ...run, notes: [{ kind: "other", message: "a note after the events" }] },
  exit_code: 1,
  timed_out: false,
  duration_ms: 12,
  origin: "live",
  error: "claude exited with code 1",
};

let folders = 0;
/** A run folder as runAgent writes it (writeRunFolder), its result.json then given `text` when told. */
function folder(text?: (written: string) => string): { dir: string; file: string } {
  const dir = join(temp, `run-${folders++}`);
  writeRunFolder(dir, "r1", { result });
  const file = join(dir, RUN_FOLDER_FILES.result);
  if (text) writeFileSync(file, text(readFileSync(file, "utf8")));
  return { dir, file };
}

/** runResultInto's run, built by a RunBuilder as a whole read builds it. */
function streamed(file: string, options?: { maxValueBytes?: number }) {
  const builder = new RunBuilder(run.sources);
  const read = runResultInto(file, builder, options);
  return { run: builder.build(), ...read };
}

/** What streamed() threw for `file`: a RunFolderError (the test fails on anything else). */
function refusal(file: string, options?: { maxValueBytes?: number }): RunFolderError {
  let thrown: unknown;
  try {
    streamed(file, options);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(RunFolderError);
  return thrown as RunFolderError;
}

/** The line (from 1) that `at` in `text` is on. */
function linesUpTo(text: string, at: number): number {
  return text.slice(0, at).split("\n").length;
}

/** The index of the first event of `type` in a result.json's text. */
function indexOfFirst(text: string, type: string): number {
  return (JSON.parse(text) as AgentRunResult).run.events.findIndex((event) => event.type === type);
}

/** The file's byte just after run.events' closing `]` line in writeRunFolder's layout. */
function eventsEnd(file: string): number {
  const text = readFileSync(file, "utf8");
  return text.indexOf("\n    ]", text.indexOf('"events": [')) + 1;
}

describe("runResultInto", () => {
  it("fills the sink with the run readRunFolder reads whole, and returns the result's other fields", async () => {
    const { dir, file } = folder();
    const stream = await readRunFolderStream(dir);
    expect(stream).toMatchObject({ source: "result", file, runId: "r1" });
    const whole = await readRunFolder(dir);
    const { run: read, fields, inOrder } = streamed(file);
    expect(read).toEqual(whole.run);
    expect(inOrder).toBe(true);
    const { run: _run, ...rest } = whole.result as AgentRunResult & Record<string, unknown>;
    expect(fields).toEqual(rest);
    expect(fields.error).toBe("claude exited with code 1");
  });

  it("says when the run's facts came after its events (the sink saw them late)", () => {
    const { file } = folder((text) => {
      const value = JSON.parse(text);
      const { cwd, ...others } = value.run;
      return JSON.stringify({ ...value, run: { ...others, cwd } });
    });
    expect(streamed(file).inOrder).toBe(false);
  });

  it("checks events with code zod can generate for the Run schema (else z.compile would quietly hand back the slow walk)", () => {
    expect(() => z.compile(RunSchema.shape.events.element, { strict: true })).not.toThrow();
  });

  it("keeps of each event what the Run schema keeps, as readRunFolder does: a key it does not know is dropped", async () => {
    const { dir, file } = folder((text) =>
      text.replace(/"index": 2\n/, '"index": 2,\n        "unknown": [1, 2]\n'),
    );
    const { run: read } = streamed(file);
    expect(read).toEqual((await readRunFolder(dir)).run);
    expect(read.events[2]).not.toHaveProperty("unknown");
  });

  it.each<[string, (text: string) => string, (text: string) => string]>([
    ["an index below 0", (text) => text.replace(/"index": 4\b/, '"index": -4'), () => "run.events.4.index"],
    [
      "a tool call's input that is not an object",
      (text) => text.replace('"input": {', '"input": "rm -rf /",\n        "was": {'),
      (text) => `run.events.${indexOfFirst(text, "tool_call")}.input`,
    ],
    [
      "an event of a type the Run has not",
      (text) => text.replace(/"type": "tool_result"/, '"type": "tool_output"'),
      (text) => `run.events.${indexOfFirst(text, "tool_result")}.type`,
    ],
  ])("%s: named by the field the Run schema names", (_name, edit, field) => {
    const original = readFileSync(folder().file, "utf8");
    const { file } = folder(edit);
    expect(refusal(file).message).toContain(`${file} (field ${field(original)}): not a valid AgentRunResult`);
  });

  it.each<[string, (text: string) => string, string]>([
    [
      "cut off in the middle of an event",
      (text) => text.slice(0, text.search(/"index": 5\b/)),
      "(field run.events.5): not valid JSON: the file ends in the middle of the result",
    ],
    ["empty", () => "", "(byte 0): not valid JSON: the file ends in the middle of the result"],
    [
      "an invalid character in an event",
      (text) => text.replace(/"index": 3\b/, '"index": 3 x'),
      "(field run.events.3): not valid JSON: ",
    ],
    [
      "an event the Run schema rejects",
      (text) => text.replace(/"index": 4\b/, '"index": "four"'),
      "(field run.events.4.index): not a valid AgentRunResult",
    ],
    [
      "no run",
      (text) => JSON.stringify({ ...JSON.parse(text), run: undefined }),
      "(field run): not a valid AgentRunResult: a required field is missing",
    ],
    [
      "no exit code",
      (text) => JSON.stringify({ ...JSON.parse(text), exit_code: undefined }),
      "(field exit_code): not a valid AgentRunResult",
    ],
  ])("%s: a RunFolderError naming the file and where", (_name, edit, message) => {
    const { file } = folder(edit);
    expect(refusal(file).message).toContain(`${file} ${message}`);
  });

  it("refuses one value longer than it may be, before holding it whole", () => {
    const big = "x".repeat(3 * 1024 * 1024);
    const { file } = folder((text) => text.replace(/"index": 2\b/, `"index": 2, "huge": "${big}"`));
    expect(() => streamed(file, { maxValueBytes: 1024 * 1024 })).toThrow(
      new RegExp(`^${file} \\(field run\\.events\\.2\\): one value of more than 1 MiB of JSON text`),
    );
    // Under the limit the value is read (and dropped by the event's schema).
    expect(streamed(file, { maxValueBytes: 4 * 1024 * 1024 }).run.events).toHaveLength(run.events.length);
  });

  it("caps each value after the events, not all of them together, in writeRunFolder's layout as in any other", () => {
    const note = "n".repeat(700 * 1024);
    const stderr = "e".repeat(700 * 1024);
    const written = (edit?: (text: string) => string) =>
      folder((text) => {
        const value = JSON.parse(text);
        const laidOut = JSON.stringify(
          { ...value, run: { ...value.run, notes: [{ kind: "other", message: note }] }, stderr },
          null,
          2,
        );
        return edit ? edit(laidOut) : laidOut;
      }).file;
    // 1.4 MiB after the events, each value under 1 MiB: read (the line reader refused the whole tail).
    for (const file of [written(), written((text) => JSON.stringify(JSON.parse(text)))]) {
      const read = streamed(file, { maxValueBytes: 1024 * 1024 });
      expect(read.run.notes).toEqual([{ kind: "other", message: note }]);
      expect(read.fields.stderr).toBe(stderr);
      expect(read.run.events).toHaveLength(run.events.length);
    }
    // One value after the events over the cap: refused, from a byte after the events' end.
    const file = written();
    const at = Number(
      /\(byte (\d+)\): one value of more than 524288 bytes of JSON text/.exec(
        refusal(file, { maxValueBytes: 512 * 1024 }).message,
      )?.[1],
    );
    expect(at).toBeGreaterThanOrEqual(eventsEnd(file));
    // The first value after the events over the cap, past the chunk the events end in: the same.
    const long = folder((laidOut) =>
      laidOut.replace(
        '"message": "a note after the events"',
        `"message": "${"n".repeat(2.5 * 1024 * 1024)}"`,
      ),
    ).file;
    const from = Number(
      /one value of more than 1 MiB of JSON text \(from byte (\d+)\)/.exec(
        refusal(long, { maxValueBytes: 1024 * 1024 }).message,
      )?.[1],
    );
    expect(from).toBeGreaterThanOrEqual(eventsEnd(long));
    // Text after the events that is no JSON: refused, naming the byte.
    const broken = written((laidOut) => laidOut.replace('"timed_out": false', '"timed_out": nope'));
    expect(() => streamed(broken)).toThrow(new RegExp(`^${broken} \\(byte \\d+\\): not valid JSON: `));
  });

  it("reads writeRunFolder's layout through one reused buffer: no garbage outside the heap a chunk", () => {
    // 10,000 events of 4 KB: 40 MB of result.json read in 1 MiB chunks (a new buffer a chunk piled
    // up outside the heap until the GC came round: 30 MB at once for a 300 MB file).
    const text = "t".repeat(4000);
    const events = Array.from({ length: 10_000 }, (_, index) => ({
      index,
      agent: "main",
      type: "assistant_text" as const,
      text,
    }));
    const dir = join(temp, "long-run");
    writeRunFolder(dir, "r1", { result: { ...result, run: { ...result.run, events } } });
    let pushed = 0;
    let mostOutsideHeap = 0;
    const builder = new RunBuilder(run.sources);
    const sink = Object.assign(Object.create(builder), {
      push() {
        if (++pushed % 500 === 0)
          mostOutsideHeap = Math.max(mostOutsideHeap, process.memoryUsage().arrayBuffers);
      },
    });
    const before = process.memoryUsage().arrayBuffers;
    runResultInto(join(dir, RUN_FOLDER_FILES.result), sink);
    expect(pushed).toBe(events.length);
    // The reused buffer (2 MiB) and the chunk's (1 MiB), whatever the file's size (it was 10 MB here).
    expect(mostOutsideHeap - before).toBeLessThan(6 * 1024 * 1024);
  });

  // writeRunFolder's layout (2-space indentation) is read line by line; any other with the tokenizer.
  describe("the layout writeRunFolder writes, and any other", () => {
    const other: [string, (text: string) => string][] = [
      ["on one line", (text) => JSON.stringify(JSON.parse(text))],
      ["indented by 4", (text) => JSON.stringify(JSON.parse(text), null, 4)],
      ["indented by tabs", (text) => JSON.stringify(JSON.parse(text), null, "\t")],
      ["with a byte order mark", (text) => `\ufeff${text}`],
      ["with CRLF line ends", (text) => text.replaceAll("\n", "\r\n")],
    ];
    it.each(other)("%s: the same run and fields as writeRunFolder's layout", (_name, edit) => {
      const laidOut = streamed(folder().file);
      const { run: read, fields, inOrder } = streamed(folder(edit).file);
      expect(read).toEqual(laidOut.run);
      expect(fields).toEqual(laidOut.fields);
      expect(inOrder).toBe(true);
    });

    it.each<[string, (text: string) => string]>([["laid out", (text) => text], ...other])(
      "%s, text after the result's end: refused at the file's byte of it",
      (_name, edit) => {
        const { file } = folder((text) => {
          const value = JSON.parse(text);
          // Multi-byte characters before it: the byte is not the character's index.
          const laidOut = JSON.stringify({ ...value, stderr: "é€😀" }, null, 2);
          return `${edit(laidOut)}\n x`;
        });
        const at = readFileSync(file).lastIndexOf("x");
        expect(() => streamed(file)).toThrow(
          `${file} (byte ${at}): not valid JSON: Unexpected "x" at byte ${at} `,
        );
      },
    );

    it("a run without events, written as [] on the events' line", () => {
      const { file } = folder((text) => {
        const value = JSON.parse(text);
        return `${JSON.stringify({ ...value, run: { ...value.run, events: [] } }, null, 2)}\n`;
      });
      expect(streamed(file).run.events).toEqual([]);
    });

    it("an event's insides indented otherwise: read as the JSON they are", () => {
      const laidOut = streamed(folder().file);
      const { file } = folder((text) => text.replace(/\n {8}"index": 3\b/, '\n   "index": 3'));
      expect(streamed(file).run).toEqual(laidOut.run);
    });

    it("a line between events that breaks the layout: the event and the line named", () => {
      let line = 0;
      const { file } = folder((text) => {
        // A line that is no JSON before the one that opens event 3.
        const open = text.lastIndexOf("\n      {\n", text.search(/"index": 3\b/)) + 1;
        line = linesUpTo(text, open);
        return `${text.slice(0, open)}      x\n${text.slice(open)}`;
      });
      expect(() => streamed(file)).toThrow(
        `(field run.events.3): not valid JSON as a run folder's result.json is written (2-space indentation): line ${line} breaks its layout`,
      );
    });

    it("an event that is no JSON: the lines it spans named", () => {
      let lines = "";
      const { file } = folder((text) => {
        const index = text.search(/"index": 3\b/);
        const open = text.lastIndexOf("\n      {\n", index) + 1;
        const close = text.indexOf("\n      }", index) + 1;
        lines = `${linesUpTo(text, open)}-${linesUpTo(text, close)}`;
        return text.replace(/"index": 3\b/, '"index": 3 x');
      });
      expect(() => streamed(file)).toThrow(
        new RegExp(`\\(field run\\.events\\.3\\): not valid JSON: .* \\(in the event on lines ${lines}\\)$`),
      );
    });

    // An event is found by the newline, 6 spaces and `}` its closing line starts with: the file is
    // read 1 MiB at a time, so that text can be cut anywhere by a chunk's end.
    it.each([1, 2, 4, 7, 8, 9])(
      "an event whose closing line starts %i bytes before a chunk's end: the same run",
      (before) => {
        const CHUNK = 1024 * 1024;
        const padded = (pad: number) => {
          // Event 1: the first chunk also holds a whole event before it.
          const events = result.run.events.map((event, i) =>
            i === 1 ? { ...event, padding: "p".repeat(pad) } : event,
          );
          return JSON.stringify({ ...result, run: { ...result.run, events } }, null, 2);
        };
        // Where event 1's closing newline is with no padding tells how much moves it to CHUNK - before.
        const unpadded = padded(0);
        const close = unpadded.indexOf("\n      }", unpadded.indexOf('"padding"'));
        const text = padded(CHUNK - before - close);
        expect(text.indexOf("\n      }", text.indexOf('"padding"'))).toBe(CHUNK - before);
        const laidOut = folder(() => text);
        const oneLine = folder(() => JSON.stringify(JSON.parse(text)));
        const read = streamed(laidOut.file);
        expect(read.run.events).toHaveLength(result.run.events.length);
        expect(read.run).toEqual(streamed(oneLine.file).run);
      },
    );

    it("cut off after an event: the next event named", () => {
      // Up to the line that would open event 4.
      const { file } = folder((text) =>
        text.slice(0, text.lastIndexOf("\n      {\n", text.search(/"index": 4\b/)) + 1),
      );
      expect(() => streamed(file)).toThrow(
        /\(field run\.events\.4\): not valid JSON: the file ends in the middle of the result/,
      );
    });
  });
});
