// Fault injection: fixture attacks on real `evals record` runs (the built binary, the real claude CLI,
// a scripted loopback model from --model), each with a temp folder (TMPDIR) of its own. Rows:
//  - links inside the fixture (relative, absolute, to a folder) with a trial that writes through them:
//    each file of the fixture changed (content or mtime) and each temp copy left is bad;
//  - links that leave the fixture (relative, absolute, through a linked folder), a dangling link,
//    a FIFO: the run must exit 2 naming the entry; bad when it does not, when it crashes unclearly
//    (a stack or a bare ENOENT), when the file outside changed (content or mtime) or a copy is left;
//  - SIGINT, SIGTERM and SIGKILL of `evals record` mid-trial: each temp copy left 10 s later is bad;
//  - copies failing half-way (copyFixture through the public API; a FIFO after a copied file, an
//    unreadable file when not root): each entry left, in its own folder or in a target, is bad.
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { copyFixture } from "@evals/worktree";
import { CLAUDE_BIN, WORKSPACE } from "../bench-kit.mjs";

const EVALS_CLI = join(WORKSPACE, "packages/cli/dist/cli.js");
const VCR = pathToFileURL(join(WORKSPACE, "packages/vcr/dist/index.js")).href;
const OLD = new Date(Date.UTC(2020, 5, 1));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A suite: a case file whose agent may run Bash in `fixture/`, and a --model module. */
function makeSuite(work, name, model) {
  const dir = join(work, name);
  mkdirSync(join(dir, "fixture"), { recursive: true });
  writeFileSync(
    join(dir, "cases.yaml"),
    `id: ${name}\nprompt: Change the notes.\nagent:\n  fixture: fixture\n  allowedTools: [Bash]\n`,
  );
  writeFileSync(join(dir, "model.mjs"), model);
  return { dir, fixture: join(dir, "fixture"), tmp: join(dir, "tmp") };
}

/** Runs `sh write.sh` (out of sight of Claude Code's own path checks), then says it is done. */
const BASH_MODEL = `import { countToolResults, reply, text, toolUse } from ${JSON.stringify(VCR)};
export default (request) => countToolResults(request) === 0
  ? reply(toolUse("Bash", { command: "sh write.sh", description: "write" }))
  : reply(text("Done."));
`;

function startRecord(suite, extraEnv = {}) {
  mkdirSync(suite.tmp, { recursive: true });
  const child = spawn(
    process.execPath,
    [EVALS_CLI, "record", "cases.yaml", "--model", "model.mjs", "--out", "out", "--cassettes", "cassettes"],
    {
      cwd: suite.dir,
      env: {
        ...process.env,
        EVALS_CLAUDE_BIN: CLAUDE_BIN,
        EVALS_OUTPUT_DIR: join(suite.dir, "output"),
        TMPDIR: suite.tmp,
        CI: "",
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  child.stderr.on("data", (chunk) => (out += chunk));
  const done = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal, out })));
  return { child, done };
}

const copiesLeft = (tmp) =>
  existsSync(tmp) ? readdirSync(tmp).filter((name) => name.startsWith("evals-fixture-")).length : 0;

/** A file the attack must leave alone: old content and an old time, checked afterwards. */
function watched(path) {
  writeFileSync(path, "untouched\n");
  utimesSync(path, OLD, OLD);
  return () => readFileSync(path, "utf8") !== "untouched\n" || statSync(path).mtimeMs !== OLD.getTime();
}

async function linksInside(work) {
  const kinds = {
    relative: (fixture) => symlinkSync("../notes.txt", join(fixture, "docs", "link.txt")),
    absolute: (fixture) => symlinkSync(join(fixture, "notes.txt"), join(fixture, "docs", "link.txt")),
    folder: (fixture) => {
      symlinkSync("..", join(fixture, "docs", "up"));
      symlinkSync("up/notes.txt", join(fixture, "docs", "link.txt"));
    },
  };
  let bad = 0;
  for (const [kind, link] of Object.entries(kinds)) {
    const suite = makeSuite(work, `inside-${kind}`, BASH_MODEL);
    mkdirSync(join(suite.fixture, "docs"));
    const changed = watched(join(suite.fixture, "notes.txt"));
    writeFileSync(join(suite.fixture, "write.sh"), "echo pwned >> docs/link.txt\ntouch docs/link.txt\n");
    link(suite.fixture);
    const run = await startRecord(suite).done;
    if (run.code !== 0) bad++;
    if (changed()) bad++;
    bad += copiesLeft(suite.tmp);
  }
  return {
    label: "links inside + a writing trial (failed runs, fixture files changed, copies left)",
    tried: 3,
    bad,
  };
}

async function refusedFixtures(work) {
  const attacks = {
    "escaping relative link": (s, outside) => symlinkSync(`../${outside}`, join(s.fixture, "escape.txt")),
    "escaping absolute link": (s, outside) =>
      symlinkSync(join(s.dir, outside), join(s.fixture, "escape.txt")),
    "link through a folder outside": (s, outside) => {
      symlinkSync("..", join(s.fixture, "escape.txt"));
      writeFileSync(join(s.fixture, "write.sh"), `echo pwned >> escape.txt/${outside}\n`);
    },
    "dangling link": (s) => symlinkSync("gone.txt", join(s.fixture, "escape.txt")),
    FIFO: (s) => execFileSync("mkfifo", [join(s.fixture, "escape.txt")]),
  };
  let bad = 0;
  for (const [name, attack] of Object.entries(attacks)) {
    const suite = makeSuite(work, `refused-${name.replaceAll(" ", "-")}`, BASH_MODEL);
    const changed = watched(join(suite.dir, "outside.txt"));
    writeFileSync(join(suite.fixture, "write.sh"), "echo pwned >> escape.txt\n");
    attack(suite, "outside.txt");
    const run = await startRecord(suite).done;
    const clear = run.code === 2 && run.out.includes("escape.txt") && !/\n\s+at |ENOENT/.test(run.out);
    if (!clear) bad++;
    if (changed()) bad++;
    bad += copiesLeft(suite.tmp);
  }
  return {
    label: "escaping/dangling links, FIFOs (unclear or no refusal, outside changed, copies left)",
    tried: Object.keys(attacks).length,
    bad,
  };
}

/** The model is asked, says so in a file, and never answers: the trial is mid-way until the signal. */
const HANGING_MODEL = (asked) => `import { writeFileSync } from "node:fs";
export default () => { writeFileSync(${JSON.stringify(asked)}, "asked"); return new Promise(() => {}); };
`;

async function signalsMidTrial(work) {
  const signals = ["SIGINT", "SIGTERM", "SIGKILL"];
  let bad = 0;
  for (const signal of signals) {
    const asked = join(work, `asked-${signal}`);
    const suite = makeSuite(work, `signal-${signal}`, HANGING_MODEL(asked));
    writeFileSync(join(suite.fixture, "notes.txt"), "notes\n");
    const { child, done } = startRecord(suite);
    for (let waited = 0; waited < 90_000 && !existsSync(asked); waited += 100) await sleep(100);
    if (!existsSync(asked) || copiesLeft(suite.tmp) !== 1) bad++;
    child.kill(signal);
    await done;
    // After SIGKILL the watchdog removes the copy: give it a moment.
    for (let waited = 0; waited < 10_000 && copiesLeft(suite.tmp) > 0; waited += 100) await sleep(100);
    bad += copiesLeft(suite.tmp);
  }
  return { label: "SIGINT/SIGTERM/SIGKILL mid-trial (temp copies left)", tried: signals.length, bad };
}

function halfWayCopies(work) {
  const fixture = join(work, "half-way");
  mkdirSync(fixture);
  writeFileSync(join(fixture, "a.txt"), "a\n");
  execFileSync("mkfifo", [join(fixture, "b-pipe")]);
  const attempts = [() => fixture];
  if (process.getuid?.() !== 0) {
    // Root reads any file: the unreadable one is tried as another user only.
    attempts.push(() => {
      const locked = join(work, "unreadable");
      mkdirSync(locked, { recursive: true });
      writeFileSync(join(locked, "a.txt"), "a\n");
      writeFileSync(join(locked, "b.txt"), "b\n");
      chmodSync(join(locked, "b.txt"), 0o000);
      return locked;
    });
  }
  let bad = 0;
  let tried = 0;
  for (const attempt of attempts) {
    const source = attempt();
    const parent = mkdtempSync(join(work, "copies-"));
    const target = mkdtempSync(join(work, "target-"));
    for (const options of [{ parent }, { target }]) {
      tried++;
      try {
        copyFixture(source, options);
        bad++; // Copied a fixture that cannot be copied.
      } catch (error) {
        if (error?.code !== "INVALID_FIXTURE") bad++;
      }
    }
    bad += readdirSync(parent).length + readdirSync(target).length;
  }
  return { label: "copies failing half-way (refused unclearly, entries left)", tried, bad };
}

export default async function fixtureFaults() {
  const work = mkdtempSync(join(tmpdir(), "bench-fixture-faults-"));
  try {
    return [
      await linksInside(work),
      await refusedFixtures(work),
      await signalsMidTrial(work),
      halfWayCopies(work),
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
