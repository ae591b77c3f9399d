import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Command } from "../src/command.js";
import { evals as evalsInProcess } from "../src/evals.js";
import { EXIT } from "../src/exit-codes.js";
import { runInProcess } from "./command-io.js";

// Bad input given to the `evals` binary: every one ends quickly, with exit code 2 and one clear
// message, before any trial runs.
const manifest = JSON.parse(readFileSync(resolve(__dirname, "../package.json"), "utf8")) as {
  bin: Record<string, string>;
};
const evalsBin = resolve(__dirname, "..", manifest.bin.evals as string);
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const temp = mkdtempSync(join(tmpdir(), "evals-bad-input-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** The binary, killed (SIGKILL: a hang may ignore SIGTERM) after 30 s; a hang shows as code null. */
function evals(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawnSync(process.execPath, [evalsBin, ...args], {
    encoding: "utf8",
    timeout: 30_000,
    killSignal: "SIGKILL",
    cwd: temp,
    env: { ...process.env, FORCE_COLOR: "0", EVALS_CLAUDE_BIN: claudeBin, EVALS_OUTPUT_DIR: temp, ...env },
  });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

function write(name: string, text: string): string {
  const path = join(temp, name);
  mkdirSync(resolve(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const caseFile = write("hello.yaml", "id: hello\nprompt: Say hi.\n");

describe("evals run and report: the output location is checked before anything runs", () => {
  it("--out under /proc exits 2 at once (it looped on mkdir at 100% CPU)", () => {
    for (const command of [
      ["run", caseFile],
      ["report", join(temp, "test-output")],
    ]) {
      mkdirSync(join(temp, "test-output"), { recursive: true });
      const result = evals([...command, "--out", "/proc/evals-out"]);
      expect(result.code, result.stderr).toBe(EXIT.badInput);
      expect(result.stderr).toContain("cannot write in /proc/evals-out");
    }
  });

  it("--out naming an existing file exits 2 before any trial runs (it ran every trial, then exited 3)", () => {
    const file = write("results-file", "not a folder");
    const result = evals(["run", caseFile, "--mode", "strict", "--out", file]);
    expect(result.code).toBe(EXIT.badInput);
    expect(result.stderr).toBe(`evals run: ${file} is not a folder\n`);
    expect(result.stdout).toBe("");
    // No trial ran: no run folder was written.
    expect(existsSync(join(temp, "test-output", "hello-hello-t1"))).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("not a folder");
  });
});

describe("evals report, compare and grade refuse what never ends", () => {
  it("report <fifo> exits 2 (it hung)", () => {
    const fifo = join(temp, "results.fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const result = evals(["report", fifo]);
    expect(result.code).toBe(EXIT.badInput);
    expect(result.stderr).toContain("results.fifo: not a regular file");
  });

  it("grade --case, validate and run given a FIFO exit 2 (each waited for a writer forever)", () => {
    const fifo = join(temp, "case.fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const run = write("fifo-run.jsonl", `${JSON.stringify({ type: "result", subtype: "success" })}\n`);
    for (const args of [
      ["grade", run, "--case", fifo],
      ["validate", fifo],
      ["run", fifo],
    ]) {
      const result = evals(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(EXIT.badInput);
      expect(result.stderr).toContain(`${fifo}: cannot read the case file: not a regular file`);
    }
  });

  it("compare /dev/zero exits 2 (its memory grew without bound)", () => {
    const result = evals(["compare", "/dev/zero", "/dev/zero"]);
    expect(result.code).toBe(EXIT.badInput);
    expect(result.stderr).toContain("evals compare: /dev/zero: not a regular file");
  });

  it("compare and grade refuse a file too big to read (a 560 MB single line made grade exit 3)", () => {
    const big = join(temp, "big.jsonl");
    writeFileSync(big, "");
    truncateSync(big, 560 * 1024 * 1024);
    const graded = evals(["grade", big]);
    expect(graded.code).toBe(EXIT.badInput);
    // Read line by line: its one line is refused before it is held, naming the file and line.
    expect(graded.stderr).toContain(`${big}:1: the line is longer than 256 MiB`);
    const compared = evals(["compare", big, big]);
    expect(compared.code).toBe(EXIT.badInput);
    expect(compared.stderr).toContain("560 MiB is more than a results file holds");
    rmSync(big);
  });
});

describe("evals run: limits and the case files, before any trial runs", () => {
  it("--trials 1000000000 exits 2 at once, naming the documented bound (memory grew silently)", () => {
    const result = evals(["run", caseFile, "--trials", "1000000000"]);
    expect(result.code).toBe(EXIT.badInput);
    expect(result.stderr).toContain(`--trials must be a whole number from 1 to 1000, got "1000000000"`);
    expect(evals(["run", "--help"]).stdout).toContain("--trials <n>        runs per case, at most 1000");
  });

  it("what validate passes run does not reject as bad input: no prompt and trials: 100000 fail both", () => {
    const noPrompt = write("no-prompt.yaml", "id: no-prompt\n");
    const tooMany = write("too-many.yaml", "id: too-many\nprompt: Say hi.\ntrials: 100000\n");
    const validated = evals(["validate", noPrompt, tooMany]);
    expect(validated.code).toBe(EXIT.failed);
    expect(validated.stderr).toContain(`${noPrompt} (field prompt): case "no-prompt" has no prompt`);
    expect(validated.stderr).toContain(
      `${tooMany} (field trials): case "too-many" asks for 100000 trials; at most 1000`,
    );
    const ran = evals(["run", noPrompt, tooMany]);
    expect(ran.code).toBe(EXIT.badInput);
    expect(ran.stderr).toContain(`${noPrompt} (field prompt)`);
    expect(ran.stderr).toContain(`${tooMany} (field trials)`);
    expect(ran.stderr).toContain("nothing ran (`npx evals validate");
    expect(ran.stdout).toBe("");
  });

  it("validate on a folder reports every file's problems when one file has a YAML error", () => {
    write("folder/broken.yaml", "id: broken\nprompt: [unclosed\n");
    write("folder/no-prompt.yaml", "id: lonely\n");
    const result = evals(["validate", join(temp, "folder")]);
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toContain("broken.yaml:");
    expect(result.stderr).toContain('no-prompt.yaml (field prompt): case "lonely" has no prompt');
  });
});

describe("evals grade --case: a case file that cannot be read is not an invalid one", () => {
  it("a missing file or a folder says why it cannot be read, and not to validate it", () => {
    const run = write(
      "missing-case-run.jsonl",
      `${JSON.stringify({ type: "result", subtype: "success" })}\n`,
    );
    const nothing = join(temp, "no-such-case.yaml");
    const missing = evals(["grade", run, "--case", nothing]);
    expect(missing.code).toBe(EXIT.badInput);
    expect(missing.stderr).toBe(`evals grade: ${nothing}: cannot read the case file: no such file\n`);
    const folder = join(temp, "a-folder");
    mkdirSync(folder, { recursive: true });
    const notFile = evals(["grade", run, "--case", folder]);
    expect(notFile.code).toBe(EXIT.badInput);
    expect(notFile.stderr).toContain(`${folder}: cannot read the case file: not a regular file`);
    expect(notFile.stderr).not.toContain("invalid case file");
  });
});

describe("evals: user modules that cannot be imported", () => {
  it("--model with a syntax error: one line with the module's file:line, no usage below it", () => {
    const model = write("models-broken.mjs", "export default {\n  a: () => {\n    return ;;; )\n  },\n};\n");
    const result = evals(["run", caseFile, "--model", model]);
    expect(result.code).toBe(EXIT.badInput);
    expect(result.stderr).toBe(
      `evals run: --model ${model}: cannot be imported: ${model}:3: SyntaxError: Unexpected token ')'\n`,
    );
  });

  it("--rules that throws when imported: the module's file:line", () => {
    const rules = write("rules-throw.mjs", 'const x = 1;\nthrow new Error(["boom", x].join(" "));\n');
    const result = evals(["rules", "--rules", rules]);
    expect(result.code).toBe(EXIT.badInput);
    expect(result.stderr).toBe(`evals: --rules ${rules}: cannot be imported: ${rules}:2: Error: boom 1\n`);
  });
});

describe("evals: terminal output", () => {
  it("shows escape sequences in user text (a case name) escaped, never raw", () => {
    const file = write("escapes.yaml", 'id: esc\nname: "x\\e]0;pwned\\a\\e[2J\\e[31m"\nprompt: Say hi.\n');
    const result = evals(["run", file, "--mode", "strict", "--cassettes", join(temp, "none")]);
    const printed = result.stdout + result.stderr;
    expect(printed).toContain("x\\x1b]0;pwned\\x07\\x1b[2J");
    expect(printed).not.toContain("\x1b]");
    expect(printed).not.toContain("\x07");
    expect(printed).not.toContain("\x1b[2J");
  });
});

describe("evals history, compare and view: a results database this user may not write", () => {
  // Root writes anywhere: the commands run as nobody then (setpriv), as a user reads a shared checkout.
  const asRoot = process.getuid?.() === 0;
  it.runIf(!asRoot || existsSync("/usr/bin/setpriv"))(
    "exit 2 saying to run as its owner or copy it, never to move the database (and its history) away",
    () => {
      const parent = mkdtempSync(join(temp, "read-only-"));
      const db = join(parent, "db");
      mkdirSync(db);
      chmodSync(temp, 0o755);
      chmodSync(parent, 0o555);
      const user = asRoot ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
      for (const command of [
        ["history"],
        ["history", "--flaky"],
        ["compare", "--baseline", "main"],
        ["view"],
      ]) {
        const [program = "", ...args] = [...user, process.execPath, evalsBin, ...command, "--db", db];
        const child = spawnSync(program, args, { encoding: "utf8", timeout: 30_000, cwd: parent });
        expect(child.stderr, command.join(" ")).toContain(
          `evals ${command[0]}: the results database ${db} cannot be opened: EACCES: permission denied, open '${db}.lock'; `,
        );
        expect(child.stderr, command.join(" ")).toContain("run as the user who owns it");
        expect(child.stderr, command.join(" ")).not.toContain("away");
        expect(child.status, command.join(" ")).toBe(EXIT.badInput);
      }
    },
  );
});

describe("evals: exit code 3 is a bug", () => {
  it("a command that throws exits 3 with one line (the stack with --verbose)", async () => {
    const broken: Command = {
      name: "broken",
      summary: "throws",
      usage: "Usage: evals broken",
      run: () => Promise.reject(new Error("something inside broke")),
    };
    const run = await runInProcess((args, io) => evalsInProcess(args, io, [broken]), ["broken"]);
    expect(run.code).toBe(EXIT.internalError);
    expect(run.err).toBe(
      "evals broken: internal error: Error: something inside broke (this is a bug in evals broken; --verbose shows the stack)\n",
    );
  });
});
