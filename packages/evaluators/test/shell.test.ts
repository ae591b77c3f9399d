import { parse as shellQuote } from "shell-quote";
import { describe, expect, it } from "vitest";
import { callKind, commandsMatch, isReadOnlyCommand, parseShell } from "../src/index.js";
import { tokenizeShell } from "../src/shell.js";

describe("the shell reader", () => {
  it("splits commands, removes quotes and keeps redirections apart", () => {
    const commands = parseShell(
      `cd app && FOO=1 npm test -- --grep "a b" 2>&1 | tee out.log; echo 'done' > /dev/null`,
    );
    expect(commands.map((command) => command.words)).toEqual([
      ["cd", "app"],
      ["npm", "test", "--", "--grep", "a b"],
      ["tee", "out.log"],
      ["echo", "done"],
    ]);
    expect(commands[1]?.assignments).toEqual(["FOO=1"]);
    expect(commands[1]?.redirects).toEqual([{ op: ">&", fd: 2, target: "1" }]);
    expect(commands[2]?.piped).toBe(true);
    expect(commands[3]?.redirects).toEqual([{ op: ">", target: "/dev/null" }]);
  });

  it("drops heredoc bodies and comments, keeps command substitutions whole", () => {
    const commands = parseShell("cat <<'EOF' > notes.md\nrm -rf /\nEOF\necho $(date) # stamp");
    expect(commands.map((command) => command.words)).toEqual([["cat"], ["echo", "$(date)"]]);
    expect(commands[0]?.heredoc).toBe(true);
    expect(commands[0]?.redirects).toEqual([
      { op: "<<", target: "EOF" },
      { op: ">", target: "notes.md" },
    ]);
    expect(tokenizeShell(`echo "it's \\"quoted\\""`).map((token) => token.value)).toEqual([
      "echo",
      `it's "quoted"`,
    ]);
  });

  it("splits plain command lines (words only) as shell-quote does, without it", () => {
    for (const command of [
      "npm test -- --grep case-12",
      "  git log --oneline -5\t",
      "FOO=1 node dist/cli.js grade out/run-1 --case a.yaml",
      "curl -u user:pass@host:8080/path,x %20 +1",
    ]) {
      expect(tokenizeShell(command)).toEqual(shellQuote(command).map((value) => ({ type: "word", value })));
    }
  });

  it("tells read-only commands from the rest", () => {
    for (const command of [
      "ls -la",
      "git status",
      "git log --oneline | head -5",
      "grep -rn TODO src",
      "cat a.txt",
      "find . -name '*.ts'",
      "echo hi",
      "git diff HEAD~1",
      "sed -n 1,5p a.txt",
    ]) {
      expect(isReadOnlyCommand(command), command).toBe(true);
    }
    for (const command of [
      "rm a.txt",
      "npm test",
      "echo x > a.txt",
      "git commit -m x",
      "find . -delete",
      "sed -i s/a/b/ a.txt",
      "ls $(rm x)",
      "git branch -D x",
      "sudo ls",
      "cat a | tee b",
    ]) {
      expect(isReadOnlyCommand(command), command).toBe(false);
    }
    expect(callKind({ name: "Bash", input: { command: "git status" } })).toBe("read");
    expect(callKind({ name: "Bash", input: { command: "git push" } })).toBe("execute");
    expect(callKind({ name: "Grep", input: {} })).toBe("read");
    // Delegating and loading a skill change nothing themselves.
    expect(callKind({ name: "Task", input: {} })).toBe("other");
    expect(callKind({ name: "Agent", input: {} })).toBe("other");
    expect(callKind({ name: "Skill", input: {} })).toBe("other");
    expect(callKind({ name: "Write", input: {} })).toBe("execute");
    expect(callKind({ name: "TodoWrite", input: {} })).toBe("other");
  });

  it("reads a program named with its folder as the name after the last slash of its first line", () => {
    expect(isReadOnlyCommand("/bin/ls -la")).toBe(true);
    expect(isReadOnlyCommand("  ./node_modules/.bin/tsc --noEmit")).toBe(false);
    expect(isReadOnlyCommand("sudo /bin/ls")).toBe(false);
    // A quoted word with a line break: only the first line's folder goes (as `replace(/^.*\//, "")`).
    expect(isReadOnlyCommand(`"x\ny/ls" a`)).toBe(false);
    expect(isReadOnlyCommand(`"/bin/ls\nx" a`)).toBe(false);
    expect(isReadOnlyCommand(`"/usr/x/y/ls" a`)).toBe(true);
  });

  it("matches Bash commands by words or by /regex/", () => {
    expect(commandsMatch("cd app && npm test -- --run", "npm test")).toBe(true);
    expect(commandsMatch("npm test", "npm  test")).toBe(true);
    expect(commandsMatch("npm run test", "npm test")).toBe(false);
    expect(commandsMatch("git commit -m 'fix: x'", "/^git commit/")).toBe(true);
    expect(commandsMatch("/^npm (run )?test/", "npm run test")).toBe(true);
    expect(commandsMatch("python3 scripts/query.py --prompt 'hi there'", "scripts/query.py --prompt")).toBe(
      true,
    );
    expect(commandsMatch("ls", "ls -la")).toBe(true);
    expect(commandsMatch("ls", "cat")).toBe(false);
  });
});
