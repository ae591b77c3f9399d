// Faults of the `evals` binary (@evals/cli's dist/cli.js): bad input given on the command line.
// Each input runs the binary with a time limit (SIGKILL: a hang may ignore SIGTERM) and counts as bad:
//   - a hang: killed by the time limit;
//   - an exit code that contradicts --help (2 = bad input or setup, 1 = an agent failed a case,
//     3 = a bug): every input here is bad input or setup, so anything but 2;
//   - an escape sequence printed raw (other than the colour codes evals paints with);
//   - a whole prompt printed (a prompt over 128 KiB, and a system prompt over it, through real runs
//     of claude against a scripted loopback model; skipped without claude).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const evalsBin = fileURLToPath(new URL("../../../../packages/cli/dist/cli.js", import.meta.url));
const claudeBin = fileURLToPath(new URL("../../../../node_modules/.bin/claude", import.meta.url));
const TIME_LIMIT_MS = 60_000;

/** Runs the binary; resolves with its exit code (null when killed), signal and everything printed. */
function evals(args, cwd, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [evalsBin, ...args], {
      cwd,
      env: {
        ...process.env,
        FORCE_COLOR: "0",
        CI: "",
        EVALS_OUTPUT_DIR: cwd,
        EVALS_CLAUDE_BIN: claudeBin,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let printed = "";
    child.stdout.on("data", (chunk) => {
      printed += chunk;
    });
    child.stderr.on("data", (chunk) => {
      printed += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), TIME_LIMIT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, printed, hung: signal === "SIGKILL" });
    });
  });
}

/** An escape sequence a terminal would act on: ESC not starting a colour code, BEL, CSI (C1). */
const RAW_ESCAPE = /\x1b(?!\[[0-9;]*m)|\x07|\x9b/;

export default async () => {
  const dir = mkdtempSync(join(tmpdir(), "faults-cli-"));
  const write = (name, text) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  try {
    const hello = write("hello.yaml", "id: hello\nprompt: Say hi.\n");
    write("a-file", "not a folder\n");
    const fifo = join(dir, "results.fifo");
    spawnSync("mkfifo", [fifo]);
    const big = join(dir, "big.jsonl");
    writeFileSync(big, "");
    truncateSync(big, 560 * 1024 * 1024);
    mkdirSync(join(dir, "test-output"));
    write("no-prompt.yaml", "id: no-prompt\n");
    write("too-many.yaml", "id: too-many\nprompt: Hi.\ntrials: 100000\n");
    write("no-fixture.yaml", "id: nf\nprompt: Hi.\nagent:\n  fixture: nowhere\n");
    write("escapes.yaml", 'id: esc\nname: "x\\e]0;pwned\\a\\e[2J"\nprompt: Hi.\n');
    write("broken-model.mjs", "export default {\n  a: () => { return ;;; ) },\n};\n");
    write(
      "other-model.mjs",
      'export default { "someone-else": () => ({ kind: "message", content: [] }) };\n',
    );

    /** Bad input: each must end in time with exit code 2. */
    const inputs = [
      ["run", hello, "--out", "/proc/evals-out"],
      ["report", join(dir, "test-output"), "--out", "/proc/evals-out"],
      ["run", hello, "--mode", "strict", "--out", join(dir, "a-file")],
      ["report", fifo],
      ["compare", "/dev/zero", "/dev/zero"],
      ["compare", fifo, fifo],
      ["grade", big],
      ["run", hello, "--trials", "1000000000"],
      ["run", "no-prompt.yaml"],
      ["run", "too-many.yaml"],
      ["run", "no-fixture.yaml"],
      ["run", hello, "--mode", "strict", "--cassettes", join(dir, "no-cassettes")],
      ["record", hello, "--cassettes", join(dir, "no-cassettes")],
      ["record", hello, "--model", "other-model.mjs", "--cassettes", join(dir, "no-cassettes")],
      ["run", hello, "--model", "broken-model.mjs"],
      ["run", "escapes.yaml", "--mode", "strict", "--cassettes", join(dir, "no-cassettes")],
    ];
    const runs = [];
    for (const args of inputs) runs.push(await evals(args, dir, { ANTHROPIC_API_KEY: "" }));
    runs.push(
      await evals(["run", hello, "--mode", "strict"], dir, { EVALS_CLAUDE_BIN: join(dir, "no-claude") }),
    );

    // Prompts over 128 KiB, through real runs (E2BIG printed the whole command line).
    const prompts = [];
    if (existsSync(claudeBin)) {
      const prompt = `FIRST ${"a long prompt that goes on. ".repeat(6000)}LAST`;
      write(
        "models.mjs",
        'export default { big: () => ({ kind: "message", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" }) };\n',
      );
      write("big-prompt.yaml", `id: big\nprompt: ${JSON.stringify(prompt)}\n`);
      write(
        "big-system.yaml",
        `id: big\nprompt: Hi.\nagent:\n  options:\n    appendSystemPrompt: ${JSON.stringify(prompt)}\n`,
      );
      for (const file of ["big-prompt.yaml", "big-system.yaml"]) {
        const run = await evals(
          ["record", file, "--model", "models.mjs", "--cassettes", join(dir, "c")],
          dir,
        );
        prompts.push({ ...run, whole: run.printed.includes(prompt.slice(0, 2000)) });
      }
    }

    const all = [...runs, ...prompts];
    return [
      {
        label: "bad CLI input that hangs (killed by the time limit)",
        tried: all.length,
        bad: all.filter((run) => run.hung).length,
      },
      {
        label: "bad CLI input whose exit code contradicts --help (not 2)",
        tried: runs.length,
        bad: runs.filter((run) => run.code !== 2).length,
      },
      {
        label: "escape sequences of user text printed raw",
        tried: all.length,
        bad: all.filter((run) => RAW_ESCAPE.test(run.printed)).length,
      },
      {
        label: "whole prompts (over 128 KiB) printed",
        tried: prompts.length,
        bad: prompts.filter((run) => run.whole).length,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
