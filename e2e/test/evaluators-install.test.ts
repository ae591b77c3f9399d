import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  folderBytes,
  installTarballs,
  type PackedPackage,
  pack,
  publishablePackages,
  runIn,
  runScript,
  siblingDependencies,
  tarballsFor,
  WORKSPACE,
} from "./packed.js";

/**
 * What a user who wants only the judges gets: @evals/evaluators installed from its tarball with the
 * packages of ours it depends on (@evals/core), into an empty project outside the workspace, the
 * registry refused for @evals/*. The install is small because agentevals is an optional peer; with
 * agentevals added, importing @evals/evaluators still loads none of it until a trajectory is matched.
 */

const FIXTURE_STREAM = join(WORKSPACE, "fixtures/claude-code-2.1.330/multi-tool/stream.jsonl");
/** The heavy dependencies of agentevals (LangChain, OpenAI's SDK, LangSmith): ~88 MB installed. */
const HEAVY = /\/node_modules\/(agentevals|openevals|langchain|langsmith|openai|@langchain\/[^/]+)\//;
const MB = 1024 * 1024;

let root: string;
let project: string;
let packed: PackedPackage[];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "evals-evaluators-only-"));
  project = join(root, "project");
  packed = publishablePackages().map((pkg) => pack(pkg, join(root, "tarballs")));
  installTarballs(project, tarballsFor(["@evals/evaluators"], packed));
}, 600_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

interface ImportThenMatch {
  loadedByImport: string[];
  loadedByMatch: string[];
  engine: string;
  verdicts: boolean[];
  notes: string[];
}

/**
 * A script that records every module the process resolves (through a module hook) into loads.log,
 * imports @evals/evaluators, then matches a real run's trajectory; prints which modules each step
 * loaded and the verdicts.
 */
function importThenMatch(): ImportThenMatch {
  const hook = join(project, "record-loads.mjs");
  writeFileSync(
    hook,
    `import { appendFileSync } from "node:fs";
     let log;
     export function initialize(data) { log = data.log; }
     export async function resolve(specifier, context, next) {
       const resolved = await next(specifier, context);
       appendFileSync(log, resolved.url + "\\n");
       return resolved;
     }`,
  );
  const log = join(project, "loads.log");
  rmSync(log, { force: true });
  return runScript(
    project,
    "import-then-match.mjs",
    `import { readFileSync } from "node:fs";
     import { register } from "node:module";
     register(${JSON.stringify(pathToFileURL(hook).href)}, import.meta.url, { data: { log: ${JSON.stringify(log)} } });
     const loads = () => readFileSync(${JSON.stringify(log)}, "utf8").trim().split("\\n");
     const heavy = (urls) => [...new Set(urls.map((url) => url.match(${HEAVY})?.[1]).filter(Boolean))].sort();
     const { parseJsonl, runFromStreamJson } = await import("@evals/core");
     const { trajectoryMatch } = await import("@evals/evaluators");
     const loadedByImport = heavy(loads());
     const file = ${JSON.stringify(FIXTURE_STREAM)};
     const run = runFromStreamJson(parseJsonl(readFileSync(file, "utf8"), file));
     const good = await trajectoryMatch(run, { expected: ["Bash", "Read", "Read"] });
     const bad = await trajectoryMatch(run, { expected: ["Grep"] });
     console.log(JSON.stringify({
       loadedByImport,
       loadedByMatch: heavy(loads()),
       engine: good.metadata.engine,
       verdicts: [good.passed, bad.passed],
       notes: good.violations.map((violation) => violation.type),
     }));`,
  ) as ImportThenMatch;
}

describe("an install of @evals/evaluators alone", () => {
  it("takes @evals/core from its tarball, and no package of ours from anywhere else", () => {
    const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string }>;
    };
    const ours = Object.entries(lock.packages).filter(([path]) => /(^|\/)node_modules\/@evals\//.test(path));
    const byPath = Object.fromEntries(ours.map(([path, entry]) => [path, entry.resolved]));
    const tarball = (name: string) =>
      `file:${relative(project, packed.find((pkg) => pkg.name === name)?.tarball ?? "")}`;
    expect(byPath).toEqual({
      "node_modules/@evals/core": tarball("@evals/core"),
      "node_modules/@evals/evaluators": tarball("@evals/evaluators"),
    });
  });

  it("is small: no agentevals, LangChain or OpenAI SDK (about 9 MB of files, zod the most of it)", () => {
    const modules = join(project, "node_modules");
    for (const heavy of ["agentevals", "langchain", "openai", "@langchain"]) {
      expect(existsSync(join(modules, heavy)), heavy).toBe(false);
    }
    expect(folderBytes(modules)).toBeLessThan(20 * MB);
  });

  it("matches trajectories with the builtin matcher, quietly", () => {
    const out = importThenMatch();
    expect(out).toEqual({
      loadedByImport: [],
      loadedByMatch: [],
      engine: "builtin",
      verdicts: [true, false],
      notes: [],
    });
  });

  it("type-checks a user's file against declarations that name no agentevals (libraries checked too)", () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          typeRoots: [join(WORKSPACE, "node_modules", "@types")],
          types: ["node"],
        },
        files: ["judge.mts"],
      }),
    );
    writeFileSync(
      join(project, "judge.mts"),
      `import type { Run } from "@evals/core";
       import { type AgentevalsMatcher, loadAgentevals, trajectoryMatch } from "@evals/evaluators";
       export const passed = async (run: Run): Promise<boolean> => (await trajectoryMatch(run, { expected: ["Read"] })).passed;
       export const matcher: Promise<AgentevalsMatcher> = loadAgentevals();
      `,
    );
    const tsc = join(WORKSPACE, "node_modules", "typescript", "bin", "tsc");
    const result = runIn(project, process.execPath, [tsc, "-p", "tsconfig.json"], { allowFailure: true });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("fails to install, naming @evals/core, when @evals/core's tarball is not given: never from a registry", () => {
    expect(() =>
      tarballsFor(
        ["@evals/evaluators"],
        packed.filter((pkg) => pkg.name !== "@evals/core"),
      ),
    ).toThrow("@evals/evaluators depends on @evals/core, which is not among the packed tarballs");
    const evaluators = packed.filter((pkg) => pkg.name === "@evals/evaluators");
    expect(Object.keys(siblingDependencies(evaluators[0] as PackedPackage))).toEqual(["@evals/core"]);
    const result = installTarballs(join(root, "without-core"), evaluators, {
      npmArgs: ["--fetch-retries=0"],
      allowFailure: true,
    });
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/@evals(%2f|\/)core/);
  });
});

describe("with agentevals added by the user", () => {
  beforeAll(() => {
    const manifest = JSON.parse(readFileSync(join(WORKSPACE, "packages/evaluators/package.json"), "utf8"));
    const range = manifest.peerDependencies.agentevals as string;
    runIn(
      project,
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", `agentevals@${range}`],
      {
        timeoutMs: 540_000,
      },
    );
  }, 600_000);

  it("importing @evals/evaluators loads none of it; the first trajectory match loads it and agentevals decides", () => {
    const out = importThenMatch();
    expect(out.loadedByImport).toEqual([]);
    expect(out.loadedByMatch).toEqual(expect.arrayContaining(["agentevals", "@langchain/core", "openai"]));
    expect(out).toMatchObject({ engine: "agentevals", verdicts: [true, false], notes: [] });
    // What the user chose to pay for: agentevals and its dependencies, several times the rest.
    expect(folderBytes(join(project, "node_modules"))).toBeGreaterThan(50 * MB);
  });
});
