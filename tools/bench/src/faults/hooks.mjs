// Faults of the capture hook (@evals/hooks), both entries: the shell entry (bin/evals-hook.sh under
// dash, the default) and the Node entry (dist/evals-hook.cjs).
//   - malformed hook inputs: the hook exits 0, prints nothing, leaves no torn line, and each input
//     is either captured or explained (hook-errors.log, or the reader's bad-input report);
//   - concurrent writers, 16 x 500: no line lost or torn;
//   - traversal and symlink run ids: no write outside the output root;
//   - a full disk (a 64 KiB tmpfs when this process may mount one, else a stub of fs.writeSync):
//     no event lost silently (each is in events.jsonl, whole, or named in hook-errors.log).
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findDash, hookBinPath, hookShellPath, readEvents, readHookErrors } from "@evals/hooks";

const dash = findDash();
const ENTRIES = dash ? ["shell", "node"] : ["node"];

/** Runs one hook call; resolves with what a hook must never do wrong. */
function runHook(entry, stdin, env, { timeoutMs = 30_000, nodeOptions } = {}) {
  return new Promise((resolve) => {
    const [command, args] =
      entry === "shell" ? [dash, [hookShellPath(), process.execPath]] : [process.execPath, [hookBinPath()]];
    const child = spawn(command, args, {
      cwd: tmpdir(),
      env: {
        PATH: process.env.PATH,
        TEST_MODE: "true",
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
        ...env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.stdin.on("error", () => {});
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ ok: code === 0 && signal === null && output === "", code, signal, output });
    });
    child.stdin.end(stdin);
  });
}

async function pool(limit, tasks) {
  const results = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]();
      }
    }),
  );
  return results;
}

/** A seeded PRNG (mulberry32): the same inputs on every run. */
function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fixturePayloads() {
  const payloads = [];
  for (const name of ["multi-tool", "subagent"]) {
    const file = new URL(`../../../../fixtures/claude-code-2.1.330/${name}/hooks.jsonl`, import.meta.url);
    for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
      payloads.push(JSON.stringify(JSON.parse(line).input));
    }
  }
  return payloads;
}

/** `count` malformed, random or odd stdin payloads. */
function malformedInputs(count) {
  const random = prng(17);
  const int = (max) => Math.floor(random() * max);
  const pick = (items) => items[int(items.length)];
  const payloads = fixturePayloads();
  const text = (value) => Buffer.from(value, "utf8");
  const makers = [
    () => text(""),
    () => text(pick([" ", "\n", "\r\n\t  ", "\n\n\n"])),
    () => Buffer.from(Array.from({ length: 1 + int(3000) }, () => int(256))),
    () => {
      const payload = pick(payloads);
      return text(payload.slice(0, int(payload.length - 1)));
    },
    () => text(`${pick(payloads)}${pick(["x", "}", "{}", ",", "]", "\n{}"])}`),
    () => text(pick(["0", "-1.5e300", '"PreToolUse"', "null", "true", "[]", "[1,2,3]", '""'])),
    () => text(JSON.stringify({ session_id: "s", cwd: "/x", tool_name: "Bash" })),
    () => text(JSON.stringify({ hook_event_name: pick([1, null, true, {}, [], ""]) })),
    () => text(`${"[".repeat(1000 + int(100_000))}${"]".repeat(int(2) ? 0 : 1)}`),
    () =>
      text(
        `{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"X","tool_input":{"d":${"[".repeat(6000)}${"]".repeat(6000)}}}`,
      ),
    () =>
      text(
        JSON.stringify({
          hook_event_name: pick(["PreToolUse", "PostToolUse"]),
          tool_name: pick([42, null, "Bash"]),
          tool_input: pick(["ls", 7, null, [1], { ok: true }]),
        }),
      ),
    () =>
      text(
        JSON.stringify({ session_id: "s", cwd: "/p", hook_event_name: `Future${int(1000)}`, x: random() }),
      ),
    () =>
      text(
        '{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"__proto__":{"polluted":1}}}',
      ),
    () =>
      Buffer.concat([
        Buffer.from('{"session_id":"s","cwd":"/p","hook_event_name":"Stop","last_assistant_message":"'),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from('"}'),
      ]),
    () =>
      text(
        '{"session_id":"s","cwd":"/p","hook_event_name":"Notification","message":"a\\u0000b\\u001f\\ud800"}',
      ),
    () => text(`\ufeff${pick(payloads)}`),
    () => {
      const payload = Buffer.from(pick(payloads));
      payload[int(payload.length)] = int(256);
      return payload;
    },
    // Shaped like a hook input to the shell entry, but not one JSON object.
    () => text(`{"hook_event_name":"Stop"},"run_id":"forged","event":${pick(payloads)}`),
    () => text(`{"session_id":"s","cwd":"/p","hook_event_name":"Stop","x":"${"y".repeat(300_000)}"}`),
    () => text(`{"session_id":"s","hook_event_name":"Stop"\n,"cwd":"/p"}`),
  ];
  return Array.from({ length: count }, (_, index) => makers[index % makers.length]());
}

function isCapturable(stdin) {
  try {
    const value = JSON.parse(stdin.toString("utf8"));
    return (
      value !== null &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      typeof value.hook_event_name === "string" &&
      value.hook_event_name !== ""
    );
  } catch {
    return false;
  }
}

const RAW_PREFIX =
  /^\{"version":2,"captured_at":"[^"]*","run_id":"[A-Za-z0-9._-]*","seq":\d+,"pid":\d+,"event":/;

/** Lines of a file that are neither JSON nor a raw line: torn or merged. */
function tornLines(file) {
  if (!existsSync(file)) return 0;
  const text = readFileSync(file, "utf8");
  let torn = text === "" || text.endsWith("\n") ? 0 : 1;
  for (const line of text.split("\n").filter(Boolean)) {
    try {
      JSON.parse(line);
    } catch {
      if (!RAW_PREFIX.test(line)) torn++;
    }
  }
  return torn;
}

async function malformed(work) {
  const root = join(work, "malformed");
  const inputs = malformedInputs(1000);
  const results = await pool(
    4,
    inputs.map(
      (stdin, index) => () =>
        runHook(ENTRIES[index % ENTRIES.length], stdin, {
          TEST_RUN_ID: `fuzz-${index}`,
          EVALS_OUTPUT_DIR: root,
        }),
    ),
  );
  let bad = 0;
  for (const [index, stdin] of inputs.entries()) {
    const runDir = join(root, "test-output", `fuzz-${index}`);
    const file = join(runDir, "events.jsonl");
    const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
    const badInputs = [];
    const badLines = [];
    let events = [];
    if (lines.length > 0) {
      events = await readEvents(runDir, {
        onError: "skip",
        onBadLine: (error) => badLines.push(error),
        onBadInput: (problem) => badInputs.push(problem),
      });
    }
    const logged = (await readHookErrors(runDir, { onError: "skip" })).some((error) =>
      ["bad_input", "input_too_large"].includes(error.kind),
    );
    // Captured (an event, or a known event whose fields the reader rejects, as it always has), or
    // explained: by the Node entry in hook-errors.log, or by the reader as a bad input.
    const explained = isCapturable(stdin)
      ? (events.length + badLines.length === 1 && badInputs.length === 0) || (lines.length === 0 && logged)
      : events.length === 0 && badLines.length === 0 && (logged || badInputs.length === 1);
    if (!results[index].ok || tornLines(file) > 0 || !explained) bad++;
  }
  return {
    label: `malformed hook inputs (${ENTRIES.join(" + ")} entries): failures`,
    tried: inputs.length,
    bad,
  };
}

async function concurrent(work, entry) {
  const root = join(work, `concurrent-${entry}`);
  const workers = 16;
  const count = 500;
  const startAt = Date.now() + 1000;
  const nodeWriter = `
    import { captureHookEvent } from "@evals/hooks";
    const [worker, count, startAt] = process.argv.slice(1).map(Number);
    while (Date.now() < startAt) await new Promise((resolve) => setTimeout(resolve, 5));
    for (let i = 0; i < count; i++) {
      const size = i % 125 === 0 ? 300000 : 100 + ((i * 7919 + worker * 104729) % 6000);
      captureHookEvent({ session_id: "w" + worker, cwd: "/p", hook_event_name: "PreToolUse", tool_name: "Bash",
        tool_use_id: "t" + worker + "-" + i, tool_input: { worker, i, pad: "é".repeat(size / 2) } },
        { env: { TEST_RUN_ID: "concurrent", EVALS_OUTPUT_DIR: ${JSON.stringify(root)} } });
    }`;
  // The shell entry, called as Claude Code calls it: one process per event.
  const shellWriter = `
    worker=$1; i=0
    while [ "$(date +%s%3N)" -lt ${startAt} ]; do sleep 0.01; done
    while [ $i -lt ${count} ]; do
      size=$(( i % 125 == 0 ? 300000 : 100 + (i * 7919 + worker * 104729) % 6000 ))
      pad=$(printf "%\${size}s" "")
      printf '{"session_id":"w%s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t%s-%s","tool_input":{"worker":%s,"i":%s,"pad":"%s"}}' \\
        "$worker" "$worker" "$i" "$worker" "$i" "$pad" | TEST_MODE=true TEST_RUN_ID=concurrent EVALS_OUTPUT_DIR=${JSON.stringify(root)} ${dash} ${JSON.stringify(hookShellPath())} ${JSON.stringify(process.execPath)}
      i=$((i + 1))
    done`;
  const codes = await Promise.all(
    Array.from(
      { length: workers },
      (_, worker) =>
        new Promise((resolve) => {
          const child =
            entry === "shell"
              ? spawn(dash, ["-c", shellWriter, "writer", String(worker)], { stdio: "ignore" })
              : spawn(
                  process.execPath,
                  ["--input-type=module", "-e", nodeWriter, String(worker), String(count), String(startAt)],
                  {
                    stdio: "ignore",
                    cwd: new URL("../../", import.meta.url).pathname,
                  },
                );
          child.on("close", resolve);
        }),
    ),
  );
  const file = join(root, "test-output", "concurrent", "events.jsonl");
  const seen = new Set();
  if (existsSync(file)) {
    for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
      try {
        const input = JSON.parse(line).event.tool_input;
        seen.add(`${input.worker}:${input.i}`);
      } catch {}
    }
  }
  const lost = workers * count - seen.size + tornLines(file) + codes.filter((code) => code !== 0).length;
  return {
    label: `concurrent writers ${workers} x ${count} (${entry} ${entry === "node" ? "writer" : "entry"}): lines lost`,
    tried: workers * count,
    bad: lost,
  };
}

/** Every file under `dir`, with its size and mtime, to see whether anything was written there. */
function snapshot(dir) {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((file) => {
      const stats = statSync(join(dir, file));
      return `${file}:${stats.size}:${stats.mtimeMs}`;
    })
    .sort()
    .join("|");
}

async function traversal(work) {
  const outside = join(work, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "sentinel"), "untouched\n");
  const ids = [
    "../escape",
    "../../escape",
    "../../../../../../tmp/escape",
    `${outside}/x`,
    "a/../../escape",
    "..",
    ".",
    "",
    "x".repeat(129),
    "a/b",
    "ok/../../escape",
    "..\\escape",
    "%2e%2e%2fescape",
    "~",
    "$(touch escape)",
    "`touch escape`",
    "a b",
    "ü",
    "-rf",
    "*",
    "run\nid",
    "../outside",
    "./../outside",
    "test-output/../../escape",
  ];
  const scenarios = [];
  for (const id of ids) scenarios.push({ id, setup: () => {} });
  // Links at every level below the root, pointing out of it.
  scenarios.push({
    id: "linked-run",
    setup: (root) => {
      mkdirSync(join(root, "test-output"), { recursive: true });
      symlinkSync(outside, join(root, "test-output", "linked-run"));
    },
  });
  scenarios.push({ id: "r", setup: (root) => symlinkSync(outside, join(root, "test-output")) });
  for (const name of ["events.jsonl", "hook-errors.log", "tool-calls.jsonl", ".hook-reserve"]) {
    scenarios.push({
      id: "r",
      setup: (root) => {
        mkdirSync(join(root, "test-output", "r"), { recursive: true });
        symlinkSync(join(outside, "sentinel"), join(root, "test-output", "r", name));
      },
    });
  }
  const payload = JSON.stringify({
    session_id: "s",
    cwd: "/p",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_use_id: "t",
    tool_input: { command: "ls" },
  });
  const before = snapshot(outside);
  let tried = 0;
  let bad = 0;
  for (const entry of ENTRIES) {
    for (const [index, scenario] of scenarios.entries()) {
      const root = join(work, `traversal-${entry}-${index}`);
      mkdirSync(root);
      scenario.setup(root);
      // An unparseable input too, for the error path.
      for (const stdin of [payload, "{not json"]) {
        tried++;
        const result = await runHook(
          entry,
          stdin,
          { TEST_RUN_ID: scenario.id, EVALS_OUTPUT_DIR: root },
          { timeoutMs: 15_000 },
        );
        const escaped =
          snapshot(outside) !== before ||
          existsSync(join(work, "escape")) ||
          existsSync(join(tmpdir(), "escape"));
        if (!result.ok || escaped) bad++;
      }
    }
  }
  return { label: "traversal and symlink run ids: writes outside the root", tried, bad };
}

function smallDisk(work, name) {
  const root = join(work, name);
  mkdirSync(root);
  if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", root]).status === 0) {
    const { bavail, bsize } = statfsSync(root);
    writeFileSync(join(root, "filler"), Buffer.alloc(Math.max(0, bavail * bsize - 20 * 1024)));
    return { root, method: "tmpfs", cleanup: () => spawnSync("umount", [root]) };
  }
  const stub = join(work, `${name}-enospc.cjs`);
  writeFileSync(
    stub,
    `const fs = require("node:fs"); const writeSync = fs.writeSync; let used = 0;
fs.writeSync = function (fd, buffer, offset = 0, length = buffer.length - offset, ...rest) {
  if (Buffer.isBuffer(buffer) && buffer.includes("toolu_disk_") && used + length > 20 * 1024) {
    writeSync.call(fs, fd, buffer, offset, Math.floor(length / 2), ...rest);
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  }
  used += length; return writeSync.call(fs, fd, buffer, offset, length, ...rest);
};`,
  );
  return { root, method: "stub", nodeOptions: `--require ${stub}`, cleanup: () => {} };
}

async function diskFull(work) {
  let tried = 0;
  let bad = 0;
  const methods = new Set();
  for (const entry of ENTRIES) {
    const disk = smallDisk(work, `disk-${entry}`);
    try {
      // The stub reaches the Node entry only.
      if (disk.method === "stub" && entry === "shell") continue;
      methods.add(disk.method);
      const ids = [];
      for (let index = 0; index < 30; index++) {
        const id = `toolu_disk_${index}`;
        ids.push(id);
        const stdin = JSON.stringify({
          session_id: "s",
          cwd: "/p",
          hook_event_name: "PreToolUse",
          tool_name: "Bash",
          tool_use_id: id,
          tool_input: { command: `echo ${"x".repeat(300 + ((index * 1777) % 7000))}` },
        });
        const result = await runHook(
          entry,
          stdin,
          { TEST_RUN_ID: "full", EVALS_OUTPUT_DIR: disk.root },
          disk.nodeOptions ? { nodeOptions: disk.nodeOptions } : {},
        );
        tried++;
        if (!result.ok) bad++;
      }
      const runDir = join(disk.root, "test-output", "full");
      const file = join(runDir, "events.jsonl");
      bad += tornLines(file);
      const captured = existsSync(file)
        ? readFileSync(file, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((line) => {
              try {
                return JSON.parse(line).event.tool_use_id;
              } catch {
                return undefined;
              }
            })
        : [];
      const logged = (await readHookErrors(runDir, { onError: "skip" })).map(
        (error) => /toolu_disk_\d+/.exec(error.input_head ?? "")?.[0],
      );
      bad += ids.filter((id) => !captured.includes(id) && !logged.includes(id)).length;
    } finally {
      disk.cleanup();
    }
  }
  return { label: `disk full (${[...methods].join(", ")}): events lost silently`, tried, bad };
}

export default async function hookFaults() {
  const work = mkdtempSync(join(tmpdir(), "evals-faults-hooks-"));
  try {
    return [
      await malformed(work),
      await concurrent(work, "node"),
      ...(dash ? [await concurrent(work, "shell")] : []),
      await traversal(work),
      await diskFull(work),
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
