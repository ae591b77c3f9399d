import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { WORKSPACE, workspaceFolders } from "./packed.js";

/**
 * A workspace package that depends on a sibling with "*" publishes a manifest that takes any version
 * of it from the registry (or none, when it is not published: the 404 of an evaluators-only install);
 * a range the sibling's version does not satisfy makes npm fetch another copy instead of linking the
 * workspace's. Every sibling dependency, in every section, is a real range that the sibling satisfies.
 */

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const SECTIONS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] as const;

/** Each dependency on a sibling whose range has no upper bound ("*", ">=") or misses the sibling's version. */
export function siblingRangeProblems(manifests: readonly Manifest[]): string[] {
  const versions = new Map(manifests.map((manifest) => [manifest.name, manifest.version]));
  const problems: string[] = [];
  for (const manifest of manifests) {
    for (const section of SECTIONS) {
      for (const [name, range] of Object.entries(manifest[section] ?? {})) {
        const version = versions.get(name);
        if (version === undefined) continue;
        const where = `${manifest.name} ${section}["${name}"] = "${range}"`;
        if (semver.validRange(range) === null) problems.push(`${where}: not a version range`);
        else if (semver.satisfies("999.999.999", range))
          problems.push(`${where}: takes any later version, give a range such as "^${version}"`);
        else if (!semver.satisfies(version, range)) problems.push(`${where}: ${name} is ${version}`);
      }
    }
  }
  return problems;
}

function workspaceManifests(): Manifest[] {
  return workspaceFolders()
    .map((folder) => join(WORKSPACE, folder, "package.json"))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, "utf8")) as Manifest);
}

describe("sibling dependencies", () => {
  it("of every workspace package are ranges that the sibling's version satisfies", () => {
    const manifests = workspaceManifests();
    expect(manifests.map((manifest) => manifest.name)).toEqual(
      expect.arrayContaining(["@evals/core", "@evals/evaluators", "@evals/harness", "@evals/e2e"]),
    );
    expect(siblingRangeProblems(manifests)).toEqual([]);
  });

  it("are found when they take any version or miss the sibling's version", () => {
    const core = { name: "@evals/core", version: "0.1.0" };
    expect(
      siblingRangeProblems([
        core,
        { name: "@evals/a", version: "0.1.0", dependencies: { "@evals/core": "*", zod: "*" } },
        { name: "@evals/b", version: "0.1.0", devDependencies: { "@evals/core": ">=0.0.0" } },
        { name: "@evals/c", version: "0.1.0", peerDependencies: { "@evals/core": "^0.2.0" } },
        { name: "@evals/d", version: "0.1.0", dependencies: { "@evals/core": "^0.1.0" } },
      ]),
    ).toEqual([
      '@evals/a dependencies["@evals/core"] = "*": takes any later version, give a range such as "^0.1.0"',
      '@evals/b devDependencies["@evals/core"] = ">=0.0.0": takes any later version, give a range such as "^0.1.0"',
      '@evals/c peerDependencies["@evals/core"] = "^0.2.0": @evals/core is 0.1.0',
    ]);
  });
});
