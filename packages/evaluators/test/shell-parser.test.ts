import { readFileSync } from "node:fs";
import type { ToolCallView } from "@evals/core";
import { describe, expect, it } from "vitest";
import {
  cleanupConfirmation,
  destructiveOperations,
  isReadOnlyCommand,
  parseShell,
  type SimpleCommand,
} from "../src/index.js";
import { filesRead } from "../src/rules/context-loading.js";
import { programOf } from "../src/shell.js";
import { script, types } from "./helpers.js";

/**
 * Every Bash command of the real runs kept in the repo (fixtures/, the examples' and the plugin's
 * recordings, /work/shared/fixtures), with what the hand-written reader made of it before the
 * parser became shell-quote: the simple commands, read-only or not, the destructive operations.
 */
const golden = JSON.parse(
  readFileSync(new URL("./__fixtures__/shell/real-commands.json", import.meta.url), "utf8"),
) as { command: string; commands: SimpleCommand[]; readOnly: boolean; destructive: string[] }[];

const words = (command: string) => parseShell(command).map((simple) => simple.words);

describe("the shell parser (shell-quote) on commands from real runs", () => {
  it("reads every real command as the hand-written reader did", () => {
    expect(golden.length).toBeGreaterThan(30);
    for (const item of golden) {
      expect(parseShell(item.command), item.command).toEqual(item.commands);
      expect(isReadOnlyCommand(item.command), item.command).toBe(item.readOnly);
      expect(
        destructiveOperations(item.command).map((operation) => operation.type),
        item.command,
      ).toEqual(item.destructive);
    }
  });
});

describe("what the hand-written reader got wrong", () => {
  it("keeps quoted operators and a # inside a word in their word", () => {
    expect(words(`grep -E "a && b|c; d" src # look`)).toEqual([["grep", "-E", "a && b|c; d", "src"]]);
    expect(words("git log --format=%h#%s")).toEqual([["git", "log", "--format=%h#%s"]]);
    expect(words(`echo 'it''s' "a\\"b"`)).toEqual([["echo", "its", 'a"b']]);
  });

  it("drops heredoc bodies, however they are quoted, and reads the commands after them", () => {
    const commands = parseShell(
      "cat <<-'EOF' > notes.md\n\tdon't rm -rf /\n\tEOF\nls -la\n# done\ngit status",
    );
    expect(commands.map((command) => command.words)).toEqual([["cat"], ["ls", "-la"], ["git", "status"]]);
    expect(commands[0]?.heredoc).toBe(true);
    expect(commands[0]?.redirects).toEqual([
      { op: "<<", target: "EOF" },
      { op: ">", target: "notes.md" },
    ]);
    // A here-string is no heredoc: the next line is a command.
    expect(words(`cat <<< "x"\nrm -rf build`)).toEqual([["cat"], ["rm", "-rf", "build"]]);
  });

  it("reads the script of bash -c '…' as commands", () => {
    expect(words(`bash -c 'rm -rf build && echo done'`)).toEqual([
      ["bash", "-c", "rm -rf build && echo done"],
      ["rm", "-rf", "build"],
      ["echo", "done"],
    ]);
    expect(destructiveOperations(`sh -lc "rm -rf dist"`).map((operation) => operation.type)).toEqual([
      "recursive-delete",
    ]);
    expect(isReadOnlyCommand("bash -c 'ls'")).toBe(false);
  });

  it("looks through env prefixes and wrappers with options that take a value", () => {
    const program = (command: string) => programOf(parseShell(command)[0] as SimpleCommand).program;
    expect(program("FOO=1 BAR='x y' npm test")).toBe("npm");
    expect(parseShell("FOO=1 BAR='x y' npm test")[0]?.assignments).toEqual(["FOO=1", "BAR=x y"]);
    expect(program("env -u HOME NODE_ENV=test rm -f x")).toBe("rm");
    expect(program("sudo -u deploy rm -rf /srv/app")).toBe("rm");
    expect(program("timeout 30 make clean")).toBe("make");
    expect(program("nice -n 10 rm x")).toBe("rm");
  });

  it("sees the command xargs runs", () => {
    expect(destructiveOperations("find . -name '*.tmp' | xargs rm -f").length).toBe(1);
    expect(destructiveOperations("git ls-files -z | xargs -0 -n 1 rm").length).toBe(1);
    expect(isReadOnlyCommand("find src -name '*.ts' | xargs grep -l TODO")).toBe(true);
    expect(isReadOnlyCommand("find src -name '*.ts' | xargs -I {} rm {}")).toBe(false);
  });

  it("keeps $(...) as one word, and 2>&1 as a redirect of descriptor 2", () => {
    const [command] = parseShell("echo $(date +%s) 2>&1 >/dev/null");
    expect(command?.words).toEqual(["echo", "$(date +%s)"]);
    expect(command?.redirects).toEqual([
      { op: ">&", fd: 2, target: "1" },
      { op: ">", target: "/dev/null" },
    ]);
    expect(isReadOnlyCommand("ls $(rm x)")).toBe(false);
    // A word 2 before a spaced redirect stays a word.
    expect(parseShell("echo 2 > out.txt")[0]?.words).toEqual(["echo", "2"]);
  });

  it("makes cleanup-confirmation see an rm run through bash -c", () => {
    const run = script().prompt("clean up").call("Bash", { command: "bash -c 'rm -rf build'" }).build();
    expect(types(cleanupConfirmation(run))).toEqual(["unconfirmed-destructive-command"]);
  });
});

describe("plain command lines told apart without a parse", () => {
  it("reads the program of a plain line through assignments, wrappers and paths as the parse does", () => {
    for (const command of [
      "FOO=1 ls -la",
      "env ls",
      "/bin/ls src",
      "timeout 10 cat a.txt",
      "  git   status  ",
    ])
      expect(isReadOnlyCommand(command), command).toBe(true);
    for (const command of [
      "npm test -- --grep case-1",
      "sudo ls",
      "./node_modules/.bin/vitest run",
      "bash -c ls",
    ])
      expect(isReadOnlyCommand(command), command).toBe(false);
  });

  it("parses a line the same however often and in whatever order it is asked (no cache of plain lines)", () => {
    const lines = ["bash -c ls", "ls", "bash -c ls", "FOO=1 npm test", "FOO=1 npm test", "ls"];
    expect(lines.map(words)).toEqual([
      [["bash", "-c", "ls"], ["ls"]],
      [["ls"]],
      [["bash", "-c", "ls"], ["ls"]],
      [["npm", "test"]],
      [["npm", "test"]],
      [["ls"]],
    ]);
    expect(parseShell("FOO=1 npm test")[0]?.assignments).toEqual(["FOO=1"]);
  });

  it("finds the files a reader reads when quotes or escapes spell its name", () => {
    const bash = (command: string) => ({
      id: "t1",
      name: "Bash",
      input: { command },
      agent: "main",
      index: 0,
      status: "ok" as const,
    });
    const read = (command: string) => filesRead(bash(command) as unknown as ToolCallView);
    expect(read("c'a't notes.md")).toEqual(["notes.md"]);
    expect(read('"head" -n 5 a.md')).toEqual(["a.md"]);
    expect(read("c\\at x.md")).toEqual(["x.md"]);
    expect(read("/usr/bin/tail -f log.txt")).toEqual(["log.txt"]);
    expect(read("npm test -- --grep case-1")).toEqual([]);
  });
});
