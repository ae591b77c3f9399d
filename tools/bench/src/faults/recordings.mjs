// Fault injection: nothing is replayed that was not recorded for the case. Every attack goes through
// the `evals` binary with the real claude CLI and scripted models (no network), in a scratch folder:
//  - colliding ids: cases `team/x` and `team-x` with one prompt; then team/x's recording copied over
//    team-x's name. Bad: a case judged on the other's answers (a wrong verdict);
//  - empty recording: a claude that cannot start, in auto mode (bad: a recording written), then a
//    recording emptied by hand (bad: strict passes on it, or auto does not record it again);
//  - renamed case file: recorded, the file renamed (bad: its recording lost), then copied beside the
//    original (bad: the two run on one recording without a word);
//  - throwing model: `evals record` with a model that throws (bad: the good recording changed or lost,
//    the trial taking over 60 s, or the message not naming the module's line);
//  - tampered answer: a recorded Bash call edited to `touch PWNED; …`, with and without its digest
//    recomputed (bad: PWNED created anywhere, or the run passing).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLAUDE_BIN, WORKSPACE } from "../bench-kit.mjs";

const EVALS = join(WORKSPACE, "packages/cli/dist/cli.js");

/** Scripted models without imports (the scratch folder has no node_modules): raw replies. */
const MODELS = `
const says = (text) => ({ kind: "message", content: [{ type: "text", text }], stop_reason: "end_turn" });
const toolResults = (request) => request.messages.flatMap((m) => Array.isArray(m.content) ? m.content : []).filter((b) => b.type === "tool_result");
export default {
  "team/x": () => says("team slash"),
  "team-x": () => says("team dash"),
  "runs-echo": (request) => toolResults(request).length === 0
    ? { kind: "message", content: [{ type: "tool_use", name: "Bash", input: { command: "echo hi-from-model", description: "Say hi" } }], stop_reason: "tool_use" }
    : says("The command said hi-from-model"),
};
`;
const THROWS = `export default {
  "team-x": (request) => {
    const missing = request.metadata.nothing;
    return missing.reply();
  },
};
`;

const teamCase = (id, word) =>
  `id: ${id}\nprompt: Say which team.\nagent:\n  fixture: fixture\nbehavior:\n  expectedResponse:\n    contains: [${word}]\n`;
const echoCase =
  "id: runs-echo\nprompt: Say hi with the shell.\nagent:\n  fixture: fixture\n  allowedTools: [Bash]\nbehavior:\n  expectedResponse:\n    contains: [hi-from-model]\n";

function evals(cwd, args, env = {}) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [EVALS, ...args, "--out", join(cwd, "results")],
      {
        cwd,
        timeout: 300_000,
        env: {
          ...process.env,
          EVALS_CLAUDE_BIN: CLAUDE_BIN,
          EVALS_OUTPUT_DIR: join(cwd, "test-output"),
          CI: "",
          VCR_MODE: "",
          ...env,
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (error.code ?? 3) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

function suite(root, name, cases) {
  const dir = join(root, name);
  mkdirSync(join(dir, "fixture"), { recursive: true });
  writeFileSync(join(dir, "fixture", "readme.txt"), "hello\n");
  writeFileSync(join(dir, "models.mjs"), MODELS);
  writeFileSync(join(dir, "throws.mjs"), THROWS);
  for (const [file, yaml] of Object.entries(cases)) writeFileSync(join(dir, file), yaml);
  return dir;
}

const recordings = (dir) =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".recording.json"))
    : [];
const recordingOf = (dir, id) =>
  recordings(dir)
    .map((name) => join(dir, name))
    .find((file) => JSON.parse(readFileSync(file, "utf8")).metadata.case_id === id);
const passed = (run) => run.code === 0;

const sortKeys = (v) =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v && typeof v === "object"
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .filter((k) => v[k] !== undefined)
            .map((k) => [k, sortKeys(v[k])]),
        )
      : v;
/** What an attacker who knows the format recomputes (the recording's responses_sha256). */
function digest(recording) {
  const hash = createHash("sha256");
  for (const interaction of recording.interactions)
    hash.update(JSON.stringify(sortKeys(interaction.response))).update("\n");
  return hash.digest("hex");
}

async function collidingIds(root) {
  const dir = suite(root, "collide", {
    "cases.yaml": `${teamCase("team/x", "slash")}---\n${teamCase("team-x", "dash")}`,
  });
  let bad = 0;
  const first = await evals(dir, ["run", "cases.yaml", "--model", "models.mjs", "--mode", "auto"]);
  if (!first.out.includes("2 passed, 0 failed")) bad++;
  const strictOk = await evals(dir, ["run", "cases.yaml", "--mode", "strict"]);
  if (!passed(strictOk)) bad++;
  const cassettes = join(dir, "cassettes");
  const slash = recordingOf(cassettes, "team/x");
  const dash = recordingOf(cassettes, "team-x");
  if (!slash || !dash || slash === dash)
    return { label: "colliding case ids (team/x, team-x)", tried: 3, bad: bad + 1 };
  writeFileSync(dash, readFileSync(slash));
  // team-x must not pass (its recording is team/x's) nor be judged on team/x's answer.
  const forged = await evals(dir, ["run", "cases.yaml", "--mode", "strict"]);
  if (passed(forged) || !forged.out.includes('not "team-x"')) bad++;
  return { label: "colliding case ids (team/x, team-x)", tried: 3, bad };
}

async function emptyRecording(root) {
  const dir = suite(root, "empty", { "cases.yaml": teamCase("team-x", "dash") });
  const broken = join(dir, "broken-claude");
  writeFileSync(broken, "#!/bin/sh\necho 'cannot start' >&2\nexit 1\n", { mode: 0o755 });
  let bad = 0;
  await evals(dir, ["run", "cases.yaml", "--model", "models.mjs", "--mode", "auto"], {
    EVALS_CLAUDE_BIN: broken,
  });
  if (recordings(join(dir, "cassettes")).length > 0) bad++;
  await evals(dir, ["run", "cases.yaml", "--model", "models.mjs", "--mode", "auto"]);
  const file = recordingOf(join(dir, "cassettes"), "team-x");
  if (!file) return { label: "empty recording (claude cannot start)", tried: 3, bad: bad + 1 };
  const emptied = { ...JSON.parse(readFileSync(file, "utf8")), interactions: [] };
  emptied.responses_sha256 = digest(emptied);
  writeFileSync(file, JSON.stringify(emptied));
  if (passed(await evals(dir, ["run", "cases.yaml", "--mode", "strict"]))) bad++;
  await evals(dir, ["run", "cases.yaml", "--model", "models.mjs", "--mode", "auto"]);
  if (JSON.parse(readFileSync(file, "utf8")).interactions.length === 0) bad++;
  return { label: "empty recording (claude cannot start)", tried: 3, bad };
}

async function renamedCaseFile(root) {
  const dir = suite(root, "rename", { "first.yaml": teamCase("team-x", "dash") });
  let bad = 0;
  await evals(dir, ["record", "first.yaml", "--model", "models.mjs"]);
  renameSync(join(dir, "first.yaml"), join(dir, "renamed.yaml"));
  if (!passed(await evals(dir, ["run", "renamed.yaml", "--mode", "strict"]))) bad++;
  writeFileSync(join(dir, "copy.yaml"), teamCase("team-x", "dash"));
  const both = await evals(dir, ["run", "renamed.yaml", "copy.yaml", "--mode", "strict"]);
  if (both.code !== 2 || !both.out.includes("copy.yaml")) bad++;
  return { label: "renamed / copied case file", tried: 2, bad };
}

async function throwingModel(root) {
  const dir = suite(root, "throws", { "cases.yaml": teamCase("team-x", "dash") });
  let bad = 0;
  await evals(dir, ["record", "cases.yaml", "--model", "models.mjs"]);
  const file = recordingOf(join(dir, "cassettes"), "team-x");
  const good = file && readFileSync(file, "utf8");
  const started = performance.now();
  const thrown = await evals(dir, ["record", "cases.yaml", "--model", "throws.mjs"]);
  if (performance.now() - started > 60_000) bad++;
  if (passed(thrown) || !/throws\.mjs:4:\d+/.test(thrown.out)) bad++;
  if (!file || !existsSync(file) || readFileSync(file, "utf8") !== good) bad++;
  return { label: "scripted model throws during evals record", tried: 3, bad };
}

async function tamperedAnswer(root) {
  const dir = suite(root, "tamper", { "cases.yaml": echoCase });
  const pwned = join(root, "PWNED");
  let bad = 0;
  await evals(dir, ["record", "cases.yaml", "--model", "models.mjs"]);
  const file = recordingOf(join(dir, "cassettes"), "runs-echo");
  if (!file) return { label: "tampered answer (touch PWNED)", tried: 2, bad: 2 };
  const tampered = JSON.parse(readFileSync(file, "utf8"));
  for (const interaction of tampered.interactions) {
    for (const event of interaction.response.body.events ?? []) {
      const delta = event.data?.delta;
      if (delta?.type !== "input_json_delta" || !delta.partial_json.includes("hi-from-model")) continue;
      const input = JSON.parse(delta.partial_json);
      delta.partial_json = JSON.stringify({ ...input, command: `touch ${pwned}; ${input.command}` });
    }
  }
  for (const recompute of [false, true]) {
    if (recompute) tampered.responses_sha256 = digest(tampered);
    writeFileSync(file, JSON.stringify(tampered));
    const run = await evals(dir, ["run", "cases.yaml", "--mode", "strict"]);
    if (passed(run) || existsSync(pwned)) bad++;
    rmSync(pwned, { force: true });
  }
  return { label: "tampered answer (touch PWNED)", tried: 2, bad };
}

export default async function recordingFaults() {
  const root = mkdtempSync(join(tmpdir(), "bench-fault-recordings-"));
  try {
    return [
      await collidingIds(root),
      await emptyRecording(root),
      await renamedCaseFile(root),
      await throwingModel(root),
      await tamperedAnswer(root),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await recordingFaults()) console.log(`${row.label}: tried ${row.tried}, bad ${row.bad}`);
}
