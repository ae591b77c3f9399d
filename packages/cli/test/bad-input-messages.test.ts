import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BadInputError, SetupError, UnreadableFileError, UsageError } from "../src/errors.js";
import { COMMAND_NAMES, evals, loadCommands } from "../src/evals.js";
import { EXIT, EXIT_CODES_HELP } from "../src/exit-codes.js";
import { runInProcess } from "./command-io.js";
import { runEvals } from "./evals-bin.js";

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
      /nothing\.yaml: cannot read the case file: no such file\n\(`npx evals validate .*nothing\.yaml` checks the case files\)/s,
    ],
  },
  record: {
    noArgument: [[], /name at least one case file or folder/],
    unreadable: [
      [missing("nothing.yaml")],
      /nothing\.yaml: cannot read the case file: no such file\n.*evals validate/s,
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

  it("an option followed by a value that starts with a dash says how to give it, not that it takes no value", async () => {
    for (const [name, option] of [
      ["view", "--port"],
      ["history", "--last"],
    ] as const) {
      const result = await run([name, option, "-1"]);
      expect(result.code).toBe(EXIT.badInput);
      expect(result.err).toMatch(
        new RegExp(
          `^evals ${name}: ${option} needs a value; one that starts with a dash is written ${option}=-… \\(`,
        ),
      );
    }
  });

  it("every numeric option takes decimal digits only (--port 0x50 served on port 80, --last 1e3 read 1000 runs)", async () => {
    const options = [
      [["view", "--db", missing("db")], "--port", "from 0 to 65535"],
      [["history", "--db", missing("db")], "--last", "from 1"],
      [["run", missing("a.yaml")], "--trials", "from 1 to 1000"],
      [["record", missing("a.yaml")], "--trials", "from 1 to 1000"],
      [["run", missing("a.yaml")], "--concurrency", "from 1"],
    ] as const;
    for (const [args, option, range] of options)
      for (const value of [
        "1e3",
        "1.5",
        "0x10",
        " 3",
        "3 ",
        "+3",
        "-1",
        "",
        "3abc",
        "99999999999999999999",
      ]) {
        const result = await run([...args, `${option}=${value}`]);
        expect(result.code, `${args[0]} ${option}=${value}`).toBe(EXIT.badInput);
        expect(result.err.split("\n")[0]).toBe(
          `evals ${args[0]}: ${option} must be a whole number ${range}, got ${JSON.stringify(value)}`,
        );
      }
    // Through the binary: the red team's `evals history --last 1e3` (it read each case's last 1000 runs).
    const history = runEvals(["history", "--last", "1e3", "--db", missing("db")]);
    expect(history.code).toBe(EXIT.badInput);
    expect(history.stderr.split("\n")[0]).toBe(
      `evals history: --last must be a whole number from 1, got "1e3"`,
    );
  });

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

/** A file of `text` in the scratch folder. */
function write(name: string, text: string): string {
  const file = join(temp, name);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** The binary's stderr is one bad-input message of `command`: exit 2, printed once, by `evals`. */
function expectOneMessage(result: ReturnType<typeof runEvals>, command: string): string {
  expect(result.code, result.stderr).toBe(EXIT.badInput);
  expect(result.stderr).toMatch(new RegExp(`^evals ${command}: `));
  // Printed by the one place that prints bad input: no second "evals ...:" message, no stack.
  expect(result.stderr.split("\n").filter((line) => line.startsWith("evals "))).toHaveLength(1);
  expect(result.stderr).not.toContain("internal error");
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result.stderr;
}

describe("bad input found inside a command is thrown as a typed error, printed once through the binary", () => {
  const notResults = () => write("not-results.json", `${JSON.stringify({ hello: "world" })}\n`);

  it("evals compare: the first results file that cannot be read, in one message (not one per file)", () => {
    const err = expectOneMessage(runEvals(["compare", missing("a.json"), missing("b.json")]), "compare");
    expect(err).toMatch(/a\.json: no such file or folder \(evals run writes one: <out>\/latest\.json/);
    const invalid = expectOneMessage(runEvals(["compare", notResults(), notResults()]), "compare");
    expect(invalid).toMatch(
      /not-results\.json.*\n\(expected a results file of @evals\/logging: evals run writes one, results\/latest\.json by default, and evals report test-output\/ makes one from run folders\)\n$/,
    );
  });

  it("evals report: a results file that is not one names it and the commands that write one", () => {
    const err = expectOneMessage(
      runEvals(["report", notResults(), "--out", join(temp, "reports")]),
      "report",
    );
    expect(err).toMatch(/^evals report: .*not-results\.json/);
    expect(err).toContain(
      "evals run writes one, results/latest.json by default, and evals report test-output/",
    );
  });

  it("evals history: a database that cannot be opened names it, why, and how to go on", () => {
    const notADatabase = write("db-is-a-file", "not a database\n");
    for (const args of [["history"], ["history", "import", notResults()], ["history", "--flaky"]]) {
      const err = expectOneMessage(runEvals([...args, "--db", notADatabase]), "history");
      expect(err).toContain(`the results database ${notADatabase} cannot be opened: `);
      expect(err).toContain(
        `name another with --db <folder | postgres:// URL>, or move ${notADatabase} away and the next evals run starts a new one there`,
      );
    }
  });

  it("evals compare --baseline: the same message for a database that cannot be opened", () => {
    const notADatabase = write("baseline-db-is-a-file", "not a database\n");
    const err = expectOneMessage(
      runEvals(["compare", "--baseline", "main", "--db", notADatabase]),
      "compare",
    );
    expect(err).toContain(`the results database ${notADatabase} cannot be opened: `);
    expect(err).toContain("name another with --db <folder | postgres:// URL>");
  });

  it("evals migrate: a folder with no OpenAgentsControl case names it and the command to run", () => {
    const empty = join(temp, "no-oac");
    mkdirSync(empty, { recursive: true });
    const out = join(temp, "migrated");
    const err = expectOneMessage(runEvals(["migrate", empty, "--out", out]), "migrate");
    expect(err).toMatch(
      new RegExp(
        `^evals migrate: no OpenAgentsControl case under ${empty} \\(0 YAML files, 0 skipped\\): give the OAC repository, its evals/ or an agent's tests/ folder \\(evals migrate <OpenAgentsControl>/evals --out ${out}\\)\n$`,
      ),
    );
  });

  it("evals run: case files that cannot run are one message, its first line the count and the command that checks them", () => {
    const noPrompt = write("cases/no-prompt.yaml", "id: no-prompt\n");
    const tooMany = write("cases/too-many.yaml", "id: too-many\nprompt: Say hi.\ntrials: 100000\n");
    const err = expectOneMessage(runEvals(["run", noPrompt, tooMany, "--out", join(temp, "run-out")]), "run");
    expect(err.split("\n")[0]).toBe(
      `evals run: 2 problems in the case files; nothing ran (\`npx evals validate ${noPrompt} ${tooMany}\` checks them)`,
    );
    expect(err).toContain(`${noPrompt} (field prompt): case "no-prompt" has no prompt`);
    expect(err).toContain(`${tooMany} (field trials)`);
  });

  it("evals run: the setup problems found while running (no recordings) are one message after the reports, each case with its fix", () => {
    const first = write("setup/first.yaml", "id: first\nprompt: Say hi.\n");
    const second = write("setup/second.yaml", "id: second\nprompt: Say bye.\n");
    const out = join(temp, "setup-out");
    const result = runEvals(
      ["run", first, second, "--mode", "strict", "--cassettes", join(temp, "no-cassettes"), "--out", out],
      120_000,
    );
    const err = expectOneMessage(result, "run");
    expect(err.split("\n")[0]).toBe("evals run: 2 setup problems kept cases from running:");
    for (const id of ["first", "second"])
      expect(err).toMatch(
        new RegExp(
          `\\n- no recording for case "${id}": expected .*${id}\\.[0-9a-f]+\\.recording\\.json\\. Record it: npx evals record `,
        ),
      );
    // The run's table and reports come first: nothing is lost.
    expect(result.stdout).toContain("2 case(s), 2 trial(s): 0 passed, 2 failed");
    expect(result.stdout).toContain("Reports: ");
  });
});
