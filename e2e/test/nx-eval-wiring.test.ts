import { appendFileSync, existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, matchesGlob, relative } from "node:path";
import { createWorktree, type Worktree } from "@evals/worktree";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIn, WORKSPACE } from "./packed.js";

/**
 * The eval suites' wiring in Nx: `nx affected -t eval` reruns exactly the suites a change can
 * affect, and the eval task's hash (its cache key) changes with what the suite's runs depend on
 * (skills, subagents, CLAUDE.md, cases, recordings, the claude CLI's version, the checkout it runs in)
 * and with nothing else.
 */

const SUITES = {
  findTodos: "@evals/example-find-todos",
  editAfterRead: "@evals/example-edit-after-read",
  delegation: "@evals/example-delegation",
  buildFailure: "@evals/example-build-failure",
} as const;
const ALL_EXAMPLES = Object.values(SUITES).sort();
const NX = join(WORKSPACE, "node_modules", ".bin", "nx");
/** Nx without its daemon, so every call reads the files as they are now. */
const nxEnv = { NX_DAEMON: "false", NX_NO_CLOUD: "true", NX_TUI: "false" };

function nx(cwd: string, args: string[]): string {
  // Without the daemon each call computes the project graph of 28 projects: minutes on a busy machine.
  return runIn(cwd, NX, args, { env: nxEnv, timeoutMs: 400_000 }).stdout;
}

/** A recording of the suite's (named by its case and a hash of the case's prompt and options). */
function recordingOf(suite: string, caseId: string): string {
  const dir = join("examples", suite, "cassettes", suite);
  const name = readdirSync(join(WORKSPACE, dir)).find((file) => file.startsWith(`${caseId}.`));
  if (!name) throw new Error(`no recording of ${caseId} in ${dir}`);
  return join(dir, name);
}

/** The projects with an eval target that `nx affected -t eval` would run when `files` change. */
function affectedSuites(files: string[]): string[] {
  const out = nx(WORKSPACE, [
    "show",
    "projects",
    "--affected",
    `--files=${files.join(",")}`,
    "--withTarget=eval",
    "--json",
  ]);
  return (JSON.parse(out.trim().split("\n").pop() ?? "[]") as string[]).sort();
}

describe("nx affected -t eval", () => {
  it.each([
    [
      "a skill's SKILL.md",
      "examples/find-todos/__fixtures__/.claude/skills/todo-report/SKILL.md",
      [SUITES.findTodos],
    ],
    [
      "a subagent's definition",
      "examples/delegation/__fixtures__/.claude/agents/changelog-writer.md",
      [SUITES.delegation],
    ],
    ["a project's CLAUDE.md", "examples/delegation/__fixtures__/CLAUDE.md", [SUITES.delegation]],
    ["a case file", "examples/build-failure/cases/build-failure.yaml", [SUITES.buildFailure]],
    ["a recording", recordingOf("edit-after-read", "read-then-edit"), [SUITES.editAfterRead]],
    [
      "a fixture's source file",
      "examples/build-failure/__fixtures__/scripts/build.js",
      [SUITES.buildFailure],
    ],
  ])("reruns exactly the suites that depend on %s", (_what, file, expected) => {
    expect(affectedSuites([file])).toEqual([...expected].sort());
  });

  it("reruns every example suite when the framework they use changes", () => {
    const affected = affectedSuites(["packages/evaluators/src/rules/stop-on-failure.ts"]);
    expect(affected).toEqual(expect.arrayContaining(ALL_EXAMPLES));
  });

  it("reruns no eval suite for a change to the docs or the workspace's own tests", () => {
    expect(affectedSuites(["README.md", "docs/architecture.md", "e2e/test/packed.ts"])).toEqual([]);
  });
});

/** What `nx run-many -t <targets>` would run (nothing runs): each task and the tasks it waits for. */
function taskGraph(targets: string[]): Record<string, string[]> {
  const out = nx(WORKSPACE, ["run-many", "-t", targets.join(","), "--graph=stdout"]);
  const graph = JSON.parse(out.slice(out.indexOf("{"))) as {
    tasks: { dependencies: Record<string, string[]> };
  };
  return graph.tasks.dependencies;
}

/** `task` and every task it waits for, directly or not, sorted. */
function tasksOf(graph: Record<string, string[]>, task: string): string[] {
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    if (!graph[id]) throw new Error(`no task ${id} in the task graph`);
    seen.add(id);
    for (const dep of graph[id]) visit(dep);
  };
  visit(task);
  return [...seen].sort();
}

interface ProjectNode {
  root: string;
  targets: Record<
    string,
    { outputs?: string[]; executor?: string; options?: { command?: string; cwd?: string } }
  >;
}

/** Every project's resolved configuration (targets with their outputs, executors...), by name. */
function projectGraph(): Record<string, ProjectNode> {
  const out = nx(WORKSPACE, ["graph", "--file=stdout"]);
  const graph = JSON.parse(out.slice(out.indexOf("{"))) as {
    graph: { nodes: Record<string, { data: ProjectNode }> };
  };
  return Object.fromEntries(Object.entries(graph.graph.nodes).map(([name, node]) => [name, node.data]));
}

/** The workspace packages that @evals/harness loads at run time (its dependencies, itself included). */
const HARNESS_RUNTIME = ["core", "evaluators", "harness", "hooks", "logging", "vcr", "worktree"].map(
  (name) => `@evals/${name}:build-js`,
);

describe("what the first eval run waits for", () => {
  // The eval suites load only JavaScript (vitest runs the packages' dist/*.js): the declaration
  // files, most of a build's time, are their own target, which build, typecheck and publint get.
  let projects: Record<string, ProjectNode>;
  let graph: Record<string, string[]>;
  beforeAll(() => {
    projects = projectGraph();
    graph = taskGraph(["eval", "build", "typecheck", "publint", "test"]);
  }, 900_000);
  const withTarget = (target: string) =>
    Object.keys(projects)
      .filter((name) => projects[name]?.targets[target])
      .sort();

  it("an eval suite waits for the JavaScript builds of what it runs, and for no .d.ts", () => {
    const suites = withTarget("eval");
    expect(suites).toEqual(expect.arrayContaining([...ALL_EXAMPLES, "@evals/harness"]));
    for (const suite of suites) {
      const tasks = tasksOf(graph, `${suite}:eval`);
      expect(tasks, suite).toEqual(expect.arrayContaining(HARNESS_RUNTIME));
      expect(
        tasks.filter((task) => task !== `${suite}:eval` && !task.endsWith(":build-js")),
        suite,
      ).toEqual([]);
    }
    // The plugin's skill runs the plugin's own built scripts (dist/query.js...).
    expect(tasksOf(graph, "@evals/gemini-offloader-plugin:eval")).toContain(
      "@evals/gemini-offloader-plugin:build-js",
    );
  });

  it("Nx runs build-js and eval itself, not through npm, with the command of the package's script", () => {
    // A package.json script is an nx:run-script target: Nx forks an executor process and that runs
    // `npm run <script>`, about 0.5 s of CPU a task before tsup or vitest starts (measured: 13 builds
    // took 17.9 s of CPU that way, 10.2 s as run-commands, which Nx starts itself). The script stays,
    // for `npm run eval` in a project's folder, and says the same.
    const direct = ["build-js", "eval"].flatMap((target) => withTarget(target).map((name) => [name, target]));
    expect(direct.length).toBeGreaterThanOrEqual(HARNESS_RUNTIME.length + ALL_EXAMPLES.length);
    for (const [name, target] of direct as [string, string][]) {
      const { root, targets } = projects[name] as ProjectNode;
      const scripts = JSON.parse(readFileSync(join(WORKSPACE, root, "package.json"), "utf8")).scripts;
      expect(targets[target]?.executor, `${name}:${target}`).toBe("nx:run-commands");
      expect(targets[target]?.options, `${name}:${target}`).toEqual(
        expect.objectContaining({ command: scripts[target], cwd: root }),
      );
    }
  });

  it("the plugin's JavaScript build waits for no other build: its sources import no workspace package", () => {
    // So it runs from the start, beside core's, not after harness's: its eval is the longest suite.
    expect(graph["@evals/gemini-offloader-plugin:build-js"]).toEqual([]);
    const src = join(WORKSPACE, "plugins", "gemini-offloader", "src");
    const importers = readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((file) => /from\s+["']@evals\//.test(readFileSync(file, "utf8")));
    expect(importers).toEqual([]);
  });

  it("build is both parts, and what reads types (typecheck, publint, tests) gets the declarations", () => {
    expect(tasksOf(graph, "@evals/core:build")).toEqual(
      ["@evals/core:build", "@evals/core:build-dts", "@evals/core:build-js"].sort(),
    );
    expect(projects["@evals/core"]?.targets.build?.executor).toBe("nx:noop");
    const typecheck = tasksOf(graph, "@evals/harness:typecheck");
    for (const dep of ["core", "evaluators", "hooks", "logging", "vcr", "worktree"]) {
      expect(typecheck).toContain(`@evals/${dep}:build-dts`);
    }
    expect(tasksOf(graph, "@evals/logging:publint")).toEqual(
      expect.arrayContaining(["@evals/logging:build-js", "@evals/logging:build-dts"]),
    );
    expect(tasksOf(graph, "@evals/harness:test")).toEqual(
      expect.arrayContaining(["@evals/harness:build-dts", "@evals/core:build-dts"]),
    );
  });

  it("the two parts' outputs split every built file between them, none in both", () => {
    const built = withTarget("build-js");
    expect(built).toEqual(expect.arrayContaining(HARNESS_RUNTIME.map((task) => task.split(":")[0])));
    for (const project of built) {
      const { root, targets } = projects[project] as ProjectNode;
      const outputsOf = (target: string) =>
        (targets[target]?.outputs ?? []).map((output) => output.replace("{projectRoot}", root));
      const [js, dts] = [outputsOf("build-js"), outputsOf("build-dts")];
      const dist = join(WORKSPACE, root, "dist");
      // The e2e tests run after every package's full build (their test target depends on ^build).
      expect(existsSync(dist), `${project}: ${dist} is built`).toBe(true);
      const files = readdirSync(dist, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(WORKSPACE, join(entry.parentPath, entry.name)));
      expect(
        files.some((file) => /\.d\.c?ts$/.test(file)),
        project,
      ).toBe(true);
      for (const file of files) {
        const owners = [
          js.some((glob) => matchesGlob(file, glob)) && "build-js",
          dts.some((glob) => matchesGlob(file, glob)) && "build-dts",
        ].filter(Boolean);
        expect(owners, `${project}: ${file}`).toHaveLength(1);
      }
    }
  });
});

describe("the eval task's hash (Nx's cache key)", () => {
  let worktree: Worktree;
  const inTree = (path: string) => join(worktree.path, path);
  const tasks = Object.values(SUITES).map((project) => `${project}:eval`);

  /** The hash of each example suite's eval task in the worktree, as `nx run` would compute it now. */
  function hashes(): Record<string, string> {
    const script = join(WORKSPACE, "e2e", "scripts", "nx-task-hash.cjs");
    const { stdout } = runIn(worktree.path, process.execPath, [script, ...tasks], {
      env: nxEnv,
      timeoutMs: 180_000,
    });
    const byTask = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Record<string, string>;
    return Object.fromEntries(
      Object.entries(SUITES).map(([key, project]) => [key, byTask[`${project}:eval`]!]),
    );
  }

  /** Runs `change` on files of the worktree, then puts them back as they were. */
  function withChanged<T>(files: string[], change: () => void, measure: () => T): T {
    const saved = files.map((file) => [file, readFileSync(inTree(file))] as const);
    try {
      change();
      return measure();
    } finally {
      for (const [file, content] of saved) writeFileSync(inTree(file), content);
    }
  }

  let base: Record<string, string>;
  beforeAll(async () => {
    // A checkout of its own (with the uncommitted changes), so the shared one is never touched.
    worktree = await createWorktree(WORKSPACE, { name: "nx-hash", dirty: "include" });
    symlinkSync(join(WORKSPACE, "node_modules"), inTree("node_modules"), "dir");
    base = hashes();
  }, 900_000);

  afterAll(async () => {
    await worktree?.remove();
  });

  it("is the same when nothing changed", () => {
    expect(Object.values(base).every((hash) => /^\d+$/.test(hash))).toBe(true);
    expect(new Set(Object.values(base)).size).toBe(4);
    expect(hashes()).toEqual(base);
  });

  it("changes for the suite whose skill changed, and for no other suite or for unrelated files", () => {
    const skill = "examples/find-todos/__fixtures__/.claude/skills/todo-report/SKILL.md";
    const unrelated = ["README.md", "docs/architecture.md", "e2e/test/packed.ts"];
    const after = withChanged(
      [skill, ...unrelated],
      () => {
        for (const file of [skill, ...unrelated]) appendFileSync(inTree(file), "\nOne more line.\n");
      },
      hashes,
    );
    expect(after.findTodos).not.toBe(base.findTodos);
    expect({ ...after, findTodos: base.findTodos }).toEqual(base);
  });

  it("changes for the suites whose recording, case or subagent changed", () => {
    const recording = recordingOf("delegation", "does-it-itself");
    const subagent = "examples/delegation/__fixtures__/.claude/agents/changelog-writer.md";
    const cases = "examples/build-failure/cases/build-failure.yaml";
    const after = withChanged(
      [recording, subagent, cases],
      () => {
        writeFileSync(inTree(recording), readFileSync(inTree(recording), "utf8").replace("1.2.0", "1.2.1"));
        appendFileSync(inTree(subagent), "\nKeep entries short.\n");
        appendFileSync(inTree(cases), "\n# a comment\n");
      },
      hashes,
    );
    expect(after.delegation).not.toBe(base.delegation);
    expect(after.buildFailure).not.toBe(base.buildFailure);
    expect(after.findTodos).toBe(base.findTodos);
    expect(after.editAfterRead).toBe(base.editAfterRead);
  });

  it("changes for every suite when the claude CLI is upgraded", () => {
    const lock = "package-lock.json";
    const after = withChanged(
      [lock],
      () => {
        const parsed = JSON.parse(readFileSync(inTree(lock), "utf8"));
        // What `npm install @anthropic-ai/claude-code@<newer>` changes in the lock file.
        const entry = parsed.packages["node_modules/@anthropic-ai/claude-code"];
        entry.version = `${entry.version}-next`;
        entry.integrity = `sha512-${Buffer.from(entry.version).toString("base64")}`;
        writeFileSync(inTree(lock), JSON.stringify(parsed, null, 2));
      },
      hashes,
    );
    for (const key of Object.keys(SUITES) as (keyof typeof SUITES)[]) {
      expect(after[key], key).not.toBe(base[key]);
    }
  });

  it("differs between two checkouts of the same files: one clone's eval results never satisfy another's", () => {
    // Nx 23 shares its cache (~/.nx/<workspace id>/cache) between every clone and worktree of the
    // repository, and an eval's results name the clone's own run folders (trials' output_dir) and
    // git state. The build's hash stays the same, so builds are still shared.
    const script = join(WORKSPACE, "e2e", "scripts", "nx-task-hash.cjs");
    const build = "@evals/core:build";
    const hashIn = (cwd: string) =>
      JSON.parse(
        runIn(cwd, process.execPath, [script, ...tasks, build], { env: nxEnv, timeoutMs: 180_000 })
          .stdout.trim()
          .split("\n")
          .pop() ?? "{}",
      ) as Record<string, string>;
    const here = hashIn(worktree.path);
    const there = hashIn(WORKSPACE);
    for (const task of tasks) expect(here[task], task).not.toBe(there[task]);
    expect(here[build]).toBe(there[build]);
  });

  it("changes with VCR_MODE, so a recording run is never served from the cache", () => {
    const script = join(WORKSPACE, "e2e", "scripts", "nx-task-hash.cjs");
    const { stdout } = runIn(worktree.path, process.execPath, [script, `${SUITES.findTodos}:eval`], {
      env: { ...nxEnv, VCR_MODE: "record" },
      timeoutMs: 180_000,
    });
    expect(JSON.parse(stdout.trim())[`${SUITES.findTodos}:eval`]).not.toBe(base.findTodos);
  });
});
