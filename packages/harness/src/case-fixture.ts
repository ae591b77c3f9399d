import { existsSync, realpathSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import type { EvalCase, LoadedCase } from "@evals/evaluators";
import { checkFixture } from "@evals/worktree";

/**
 * The one check of a case's fixture, shared by `evals validate` and `evals run` (through the case
 * loader's `check`), so what validate passes, run never refuses as bad input: the fixture must be a
 * folder inside the case's project (see caseProject) unless `agent.fixtureOutsideProject: true`, and
 * copyable (@evals/worktree's checkFixture: no link leaving it or pointing at nothing, no FIFO,
 * socket or device, every file readable).
 */
export function caseFixtureProblems(evalCase: EvalCase): { path: string[]; message: string }[] {
  const fixture = evalCase.agent.fixture;
  if (fixture === undefined) return [];
  const file = (evalCase as Partial<LoadedCase>).file;
  const path = ["agent", "fixture"];
  const at = `case ${JSON.stringify(evalCase.id)}: `;
  const absolute = resolveCaseFixture(evalCase, fixture);
  // Checked first: a fixture outside the project is not walked (`fixture: ../../..` may be /).
  if (file !== undefined && !evalCase.agent.fixtureOutsideProject) {
    // Real paths: a fixture that is a link inside the project to a folder outside it is outside.
    const project = realPath(caseProject(file));
    const real = realPath(absolute);
    if (real !== project && !real.startsWith(project + sep)) {
      return [
        {
          path,
          message: `${at}the fixture ${absolute} is outside the case's project ${project} (its git checkout, else its package, else the folder above the case file's): move it into the project, or set agent.fixtureOutsideProject: true to allow it`,
        },
      ];
    }
  }
  return checkFixture(absolute).map((problem) => ({ path, message: at + problem.message }));
}

/** The case's fixture as an absolute path: relative to its file (or the current folder for a case in code). */
export function resolveCaseFixture(evalCase: EvalCase, fixture: string): string {
  const file = (evalCase as Partial<LoadedCase>).file;
  return resolve(file ? dirname(resolve(file)) : process.cwd(), fixture);
}

/**
 * The project a case file belongs to: the git checkout it is in; outside any, the nearest folder
 * above it with a package.json; else the folder above its own (`cases/` beside `fixture/`).
 */
function caseProject(file: string): string {
  const own = dirname(resolve(file));
  let pkg: string | undefined;
  for (let folder = own; ; folder = dirname(folder)) {
    if (existsSync(resolve(folder, ".git"))) return folder;
    if (pkg === undefined && existsSync(resolve(folder, "package.json"))) pkg = folder;
    if (dirname(folder) === folder) return pkg ?? dirname(own);
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
