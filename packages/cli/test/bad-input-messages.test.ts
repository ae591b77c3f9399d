import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BadInputError, SetupError, UnreadableFileError, UsageError } from "../src/errors.js";
import { COMMAND_NAMES, evals, loadCommands } from "../src/evals.js";
import { EXIT, EXIT_CODES_HELP } from "../src/exit-codes.js";
import { runInProcess } from "./command-io.js";

// Every command's bad input ends the same way: exit 2 and one message, "evals <command>: ...", that
// names what is wrong and where, and says the command (or the option) that fixes it.
const temp = mkdtempSync(join(tmpdir(), "evals-bad-input-messages-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const missing = (name: string) => join(temp, name);

/** Per command: a missing argument, and a file or folder that cannot be read, with what its message says. */
const CASES: Record<string, { noArgument: [string[], RegExp]; unreadable?: [string[], RegExp] }> = {
  run: {
    noArgument: [[], /name at least one case file or folder/],
    unreadable: [
      [missing("nothing.yaml")],
      /nothing\.yaml: cannot read the case file: ENOENT.*\n\(`npx evals validate .*nothing\.yaml` checks the case files\)/s,
    ],
  },
  record: {
    noArgument: [[], /name at least one case file or folder/],
    unreadable: [
      [missing("nothing.yaml")],
      /nothing\.yaml: cannot read the case file: ENOENT.*evals validate/s,
    ],
  },
  grade: {
    noArgument: [[], /which run\? .*\(evals grade test-output\/<run id>\)/],
    unreadable: [
      [missing("no-run")],
      /cannot read the run: .*no-run: no such file or folder \(evals grade takes a run folder, test-output\/<run id>/,
    ],
  },
  validate: {
    noArgument: [[], /which case files\?/],
    unreadable: [
      [missing("nothing.yaml")],
      /nothing\.yaml: no such file or folder \(evals validate takes case files/,
    ],
  },
  rules: {
    noArgument: [["extra"], /unexpected argument "extra" \(evals rules --help lists the arguments\)/],
  },
  report: {
    noArgument: [[], /which results\? give a results\.json or a test-output folder/],
    unreadable: [
      [missing("nothing.json")],
      /nothing\.json: no such file or folder \(evals run writes one: <out>\/latest\.json/,
    ],
  },
  merge: {
    noArgument: [[], /name the shards' results files/],
    unreadable: [
      [missing("shard.json")],
      /shard\.json: no such file or folder \(evals run --shard i\/n writes/,
    ],
  },
  compare: {
    noArgument: [[missing("a.json")], /which results\? give two results files, A then B/],
    unreadable: [
      [missing("a.json"), missing("b.json")],
      /a\.json: no such file or folder \(evals run writes one/,
    ],
  },
  history: {
    noArgument: [["import", "--db", missing("db")], /import: name the results files to add/],
    unreadable: [
      ["import", missing("old.json"), "--db", missing("db")],
      /old\.json: cannot read: ENOENT.*nothing was added; evals run writes a results file: results\/latest\.json/,
    ],
  },
  view: {
    noArgument: [["--port"], /--port needs a value \(evals view --help lists the options\)/],
    unreadable: [
      ["--db", missing("no-db")],
      /no results database in .*no-db: evals run records every run there/,
    ],
  },
  migrate: {
    noArgument: [[], /which folder\? give the OpenAgentsControl folder/],
    unreadable: [
      [missing("oac"), "--out", missing("out")],
      /oac is not a folder \(it does not exist\): give the OpenAgentsControl folder/,
    ],
  },
};

const run = (args: string[]) => runInProcess(evals, args);

describe("bad input to every evals command: exit 2, one message naming what, where and the fix", () => {
  it("covers every command", async () => {
    expect(Object.keys(CASES).sort()).toEqual([...COMMAND_NAMES].sort());
    expect((await loadCommands()).map((command) => command.name)).toEqual(COMMAND_NAMES);
  });

  for (const [name, { noArgument, unreadable }] of Object.entries(CASES)) {
    it(`evals ${name}: an unknown option names it and the help that lists the options`, async () => {
      const result = await run([name, "--frobnicate"]);
      expect(result.code).toBe(EXIT.badInput);
      expect(result.out).toBe("");
      expect(result.err).toMatch(
        new RegExp(
          `^evals ${name}: unknown option --frobnicate \\(evals ${name} --help lists the options\\)\n\nUsage: evals ${name}`,
        ),
      );
    });

    it(`evals ${name}: a missing argument says which, then the usage`, async () => {
      const result = await run([name, ...noArgument[0]]);
      expect(result.code, result.err).toBe(EXIT.badInput);
      expect(result.err).toMatch(new RegExp(`^evals ${name}: `));
      expect(result.err).toMatch(noArgument[1]);
      expect(result.err).toContain(`\nUsage: evals ${name}`);
    });

    if (unreadable)
      it(`evals ${name}: a file that cannot be read is named, with the fix`, async () => {
        const result = await run([name, ...unreadable[0]]);
        expect(result.code, result.err).toBe(EXIT.badInput);
        expect(result.err).toMatch(new RegExp(`^evals ${name}( import)?: `));
        expect(result.err).toMatch(unreadable[1]);
        expect(result.err).not.toContain("internal error");
      });

    it(`evals ${name} --help ends with the exit codes`, async () => {
      const help = await run([name, "--help"]);
      expect(help.code).toBe(EXIT.passed);
      expect(help.out).toContain(EXIT_CODES_HELP);
      expect(help.out).toMatch(/\nHere: 0 /);
    });
  }

  it("evals --help says the exit codes", async () => {
    expect((await run(["--help"])).out).toContain(EXIT_CODES_HELP);
  });

  it("every bad-input error is a BadInputError, printed with the command's name (a subclass other than UsageError without the usage)", async () => {
    for (const error of [new UsageError("u"), new UnreadableFileError("f", "f: gone"), new SetupError("s")])
      expect(error).toBeInstanceOf(BadInputError);
    const setup = {
      name: "needs",
      summary: "needs a port",
      usage: "Usage: evals needs",
      run: () => Promise.reject(new SetupError("port 80 is taken: pick another with --port <n>")),
    };
    const result = await runInProcess((args, io) => evals(args, io, [setup]), ["needs"]);
    expect(result).toEqual({
      code: EXIT.badInput,
      out: "",
      err: "evals needs: port 80 is taken: pick another with --port <n>\n",
    });
  });
});
