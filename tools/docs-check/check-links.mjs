#!/usr/bin/env node
// Fails (exit 1) when a tracked Markdown file links to a local file, folder or heading that does not
// exist, printing `file:line:column` of each broken link. remark-validate-links does the checking
// (offline: it reads only the files of the checkout); this script picks the files: every *.md git
// tracks, except test fixtures (data a test feeds an agent, not documentation) and the generated
// API reports.
//
//   node check-links.mjs [--root <git checkout>]   (default: this repository)
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { root: { type: "string" } } });
const root = resolve(values.root ?? join(import.meta.dirname, "..", ".."));

const notDocs = [/(^|\/)__fixtures__\//, /^fixtures\//, /(^|\/)test\/fixtures\//, /\/api\/[^/]+\.api\.md$/];
const listed = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.md"], {
  cwd: root,
  encoding: "utf8",
});
if (listed.status !== 0) {
  console.error(`check-links: git ls-files failed in ${root}: ${listed.stderr.trim()}`);
  process.exit(2);
}
const files = listed.stdout
  .split("\n")
  .filter((file) => file !== "" && !notDocs.some((pattern) => pattern.test(file)));

// remark-cli exports nothing (`"exports": []`), so its bin is looked up as Node looks up a package.
const remark = createRequire(import.meta.url)
  .resolve.paths("remark-cli")
  .map((folder) => join(folder, "remark-cli", "cli.js"))
  .find((file) => existsSync(file));
// remark loads plugins from the folder it runs in (the checked checkout): hand it ours by path.
const validateLinks = fileURLToPath(import.meta.resolve("remark-validate-links"));
// --frail: a warning (a broken link) fails the run; --quiet: only files with problems are printed.
const result = spawnSync(
  process.execPath,
  [
    remark,
    "--no-config",
    "--no-ignore",
    "--no-stdout",
    "--frail",
    "--quiet",
    "--no-color",
    "--use",
    `${validateLinks}=repository:false`,
    ...files,
  ],
  { cwd: root, encoding: "utf8" },
);
// remark prints a file's name, then its warnings as `line:column-line:column warning ...`: one
// `file:line:column: message` line per broken link instead, which editors and CI logs link to.
let file = "";
for (const line of `${result.stdout}${result.stderr}`.split("\n")) {
  const warning = /^\s*(\d+:\d+)(?:-\d+:\d+)?\s+(?:warning|error)\s+(.*)$/.exec(line);
  if (warning)
    console.error(
      `${file}:${warning[1]}: ${warning[2].replace(/\s+missing-[a-z-]+(\s+remark-validate-links:\S+)?\s*$/, "")}`,
    );
  else if (/^\S/.test(line) && !/^[⚠✖]/.test(line)) file = line.trim();
  else if (line.trim() !== "" && !/^[⚠✖]/.test(line.trim())) console.error(line);
}
if (result.status !== 0) {
  console.error(
    `\ncheck-links: broken local links or anchors in the Markdown above (file:line:column); fix them.`,
  );
  process.exit(1);
}
console.log(`check-links: ${files.length} Markdown files, every local link and anchor resolves`);
