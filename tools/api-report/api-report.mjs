#!/usr/bin/env node
// The public API of every package under packages/, as published, written by Microsoft API Extractor
// with the workspace's one config (api-extractor.json): one report per types entry of the package's
// `exports` ("." → api/<name>.api.md, "./process" → api/<name>-process.api.md), checked in so that
// every change to what a package exports shows in review. A new package gets its report by being
// built: nothing to register.
//   node tools/api-report/api-report.mjs          rewrites the reports (after `nx run-many -t build-dts`)
//   node tools/api-report/api-report.mjs --check  only compares; lists the stale reports, exits 1
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

export const WORKSPACE = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const CONFIG_FILE = join(WORKSPACE, "api-extractor.json");
/** The command that rewrites stale reports. */
export const FIX_COMMAND = "npm run api";

/**
 * The types entries of a package: `[{ subpath, types }]` from its package.json `exports` (the ESM
 * `types` of each), or its `types` field; only the built ones (a package not built yet has none).
 */
export function typesEntries(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const exportsField =
    manifest.exports && typeof manifest.exports === "object" ? manifest.exports : { ".": manifest.exports };
  const entries = [];
  for (const [subpath, target] of Object.entries(exportsField)) {
    const types = typeof target === "object" ? (target?.import?.types ?? target?.types) : undefined;
    if (typeof types === "string" && types.endsWith(".d.ts")) entries.push({ subpath, types });
  }
  if (entries.length === 0 && typeof manifest.types === "string")
    entries.push({ subpath: ".", types: manifest.types });
  return entries.filter((entry) => existsSync(join(packageDir, entry.types)));
}

/** The report's file name of one entry: `core.api.md`, `core-process.api.md`. */
export function reportName(packageName, subpath) {
  const unscoped = packageName.replace(/^@[^/]+\//, "");
  const suffix = subpath === "." ? "" : `-${subpath.replace(/^\.\//, "").replace(/[^A-Za-z0-9_.-]+/g, "-")}`;
  return `${unscoped}${suffix}`;
}

/**
 * Runs API Extractor on every built types entry of `packageDir`. `check: true` compares the checked-in
 * reports with the build and writes none (the would-be report goes to a folder under the OS's temp folder, never into dist, which belongs to the builds); otherwise
 * the reports are rewritten. Returns one `{ report, changed, errors }` per entry.
 */
export function extractPackage(packageDir, { check = false, log = () => {} } = {}) {
  const { name } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  return typesEntries(packageDir).map(({ subpath, types }) => {
    const configObject = ExtractorConfig.loadFile(CONFIG_FILE);
    configObject.projectFolder = packageDir;
    configObject.mainEntryPointFilePath = join(packageDir, types);
    configObject.apiReport = {
      ...configObject.apiReport,
      reportFileName: reportName(name, subpath),
      reportTempFolder: join(tmpdir(), "evals-api-report", reportName(name, subpath)),
    };
    const config = ExtractorConfig.prepare({
      configObject,
      configObjectFullPath: CONFIG_FILE,
      packageJsonFullPath: join(packageDir, "package.json"),
    });
    if (!check) mkdirSync(config.reportFolder, { recursive: true });
    const errors = [];
    const result = Extractor.invoke(config, {
      localBuild: !check,
      messageCallback: (message) => {
        // Only problems reach the console; what goes into the report is seen in review.
        if (message.logLevel === "error") errors.push(message.formatMessageWithLocation(packageDir));
        // console-* messages say what was (not) written, which this script reports itself.
        else if (message.logLevel === "warning" && !message.messageId.startsWith("console-"))
          log(`${name}: ${message.formatMessageWithLocation(packageDir)}`);
        message.handled = true;
      },
    });
    const report = config.reportConfigs[0]
      ? join(config.reportFolder, config.reportConfigs[0].fileName)
      : join(packageDir, "api");
    return { report, changed: result.apiReportChanged, errors };
  });
}

/** Every package folder under packages/ with built types. */
export function publishedPackages() {
  const dir = join(WORKSPACE, "packages");
  return readdirSync(dir)
    .map((entry) => join(dir, entry))
    .filter(
      (packageDir) => existsSync(join(packageDir, "package.json")) && typesEntries(packageDir).length > 0,
    );
}

/** The reports that differ from the build (or are missing), as workspace-relative paths. */
export function staleReports(packages = publishedPackages()) {
  return packages
    .flatMap((packageDir) => extractPackage(packageDir, { check: true }))
    .filter((entry) => entry.changed || entry.errors.length > 0)
    .map((entry) => relative(WORKSPACE, entry.report));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  let failed = false;
  for (const packageDir of publishedPackages()) {
    for (const entry of extractPackage(packageDir, { check, log: console.warn })) {
      const path = relative(WORKSPACE, entry.report);
      for (const error of entry.errors) console.error(`${path}: ${error}`);
      if (entry.errors.length > 0) failed = true;
      if (check && entry.changed) {
        console.error(`${path} differs from the build: run \`${FIX_COMMAND}\` and commit it`);
        failed = true;
      } else if (!check) console.log(`${entry.changed ? "wrote" : "unchanged"} ${path}`);
    }
  }
  process.exit(failed ? 1 : 0);
}
