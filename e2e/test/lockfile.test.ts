import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import semver from "semver";
import { afterAll, describe, expect, it } from "vitest";
import { userEnv, WORKSPACE, workspaceFolders } from "./packed.js";

/**
 * `npm install` on a fresh clone must leave it clean: when package-lock.json is not exactly what npm
 * writes for the package.json files, the first command of the README dirties the clone, `nx affected`
 * then selects every suite and `npm ci` fails. npm recomputes the lockfile here from the manifests
 * alone (`--package-lock-only`), offline, from the package metadata the workspace's install cached.
 */

const scratch = mkdtempSync(join(tmpdir(), "evals-lockfile-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("package-lock.json", () => {
  it("is what npm install writes for the workspace's package.json files", () => {
    const manifests = ["package.json", "package-lock.json", ".npmrc"]
      .concat(workspaceFolders().map((folder) => `${folder}/package.json`))
      .filter((file) => existsSync(join(WORKSPACE, file)));
    for (const file of manifests) {
      mkdirSync(dirname(join(scratch, file)), { recursive: true });
      copyFileSync(join(WORKSPACE, file), join(scratch, file));
    }
    execFileSync(
      "npm",
      ["install", "--package-lock-only", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"],
      { cwd: scratch, env: userEnv(), stdio: ["ignore", "ignore", "pipe"], timeout: 240_000 },
    );
    const committed = readFileSync(join(WORKSPACE, "package-lock.json"), "utf8");
    const written = readFileSync(join(scratch, "package-lock.json"), "utf8");
    // On a difference, show where npm's lockfile first departs from the committed one, not two 200 kB files.
    expect(firstDifference(written, committed)).toBeUndefined();
  });
});

describe("Node versions", () => {
  it("the tested Node (.nvmrc) satisfies every engines field but those of the two packages CONTRIBUTING.md names", () => {
    // CONTRIBUTING.md's "Node" section explains these two EBADENGINE warnings; a new one needs a line there.
    const tested = readFileSync(join(WORKSPACE, ".nvmrc"), "utf8").trim().replace(/^v/, "");
    const lock = JSON.parse(readFileSync(join(WORKSPACE, "package-lock.json"), "utf8")) as {
      packages: Record<string, { engines?: { node?: string } | string[] }>;
    };
    const newer = Object.entries(lock.packages)
      .filter(([, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return range !== undefined && !semver.satisfies(tested, range);
      })
      .map(([path]) => path.replace(/^.*node_modules\//, ""));
    expect(newer.sort()).toEqual(["@anthropic-ai/claude-code", "@sparticuz/chromium"]);
    const contributing = readFileSync(join(WORKSPACE, "CONTRIBUTING.md"), "utf8");
    for (const name of newer) expect(contributing).toContain(`\`${name}@`);
    expect(contributing).toContain(`Tested on Node ${tested}`);
  });
});

/** The lines around the first line where `written` and `committed` differ, or undefined when equal. */
function firstDifference(written: string, committed: string): string | undefined {
  if (written === committed) return undefined;
  const a = written.split("\n");
  const b = committed.split("\n");
  let line = 0;
  while (line < a.length && a[line] === b[line]) line++;
  const around = (lines: string[]) => lines.slice(Math.max(0, line - 3), line + 3).join("\n");
  return `npm writes, from line ${line + 1}:\n${around(a)}\n\nthe committed file has:\n${around(b)}`;
}
