import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { writeFileAtomic } from "@evals/core";
import { type FileReport, type MigrationReport, migrateOacCases } from "./migrate-oac.js";

interface Output {
  write(text: string): unknown;
}

/** The exit codes of `evals migrate`. */
export const MIGRATE_EXIT = {
  /** Every case found was converted (fields it could not keep are reported) or skipped on purpose. */
  ok: 0,
  /** Some files could not be converted, or not written (an --out file exists and --force was not given). */
  incomplete: 1,
  /** Bad arguments, or the folder cannot be read. */
  usage: 2,
} as const;

export const MIGRATE_USAGE = `Usage: evals migrate <OpenAgentsControl folder> --out <folder> [--json] [--force] [--include-archive]

Converts OpenAgentsControl (OAC) YAML test cases into @evals/evaluators case files, one per case, at the
same relative paths under --out. Every field that could not be converted as it was meant is reported per
file and field; templates are skipped, _archive/ copies are skipped unless --include-archive, and cases
that share an id get their agent folder as a prefix. Each case written loads with this package's loader.

Options:
  --out <folder>       where the case files go (required)
  --json               print the report as JSON (default: a summary and the files with losses)
  --force              overwrite case files that exist in --out (default: leave them and report)
  --include-archive    convert the _archive/ copies too
  -h, --help           this help

Exit codes: 0 every case was converted or skipped on purpose, 1 some could not be converted or
written, 2 bad arguments or an unreadable folder, 3 internal error (a bug in evals: one line).`;

interface MigrateArguments {
  source?: string;
  out?: string;
  json: boolean;
  force: boolean;
  includeArchive: boolean;
  help: boolean;
}

function parseArguments(argv: string[]): MigrateArguments | string {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: "string" },
        json: { type: "boolean" },
        force: { type: "boolean" },
        "include-archive": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (positionals.length > 1) return `unexpected argument ${JSON.stringify(positionals[1])}`;
    if (values.out === "") return "--out needs a folder";
    return {
      ...(positionals[0] !== undefined ? { source: positionals[0] } : {}),
      ...(values.out !== undefined ? { out: values.out } : {}),
      json: values.json ?? false,
      force: values.force ?? false,
      includeArchive: values["include-archive"] ?? false,
      help: values.help ?? false,
    };
  } catch (error) {
    // node's parseArgs: "Unknown option '--x'. To specify a positional argument ...": its first sentence.
    return (error as Error).message.split(". ")[0] as string;
  }
}

/**
 * `evals migrate <dir> --out <dir> [--json] [--force] [--include-archive]`: converts OpenAgentsControl
 * cases and writes them (each file atomically; an existing file only with --force). Returns the exit
 * code (MIGRATE_EXIT).
 */
export async function migrateCommand(
  args: string[],
  io: { stdout: NodeJS.WritableStream | Output; stderr: NodeJS.WritableStream | Output },
): Promise<number> {
  const parsed = parseArguments(args);
  if (typeof parsed === "string") {
    io.stderr.write(`evals migrate: ${parsed}\n\n${MIGRATE_USAGE}\n`);
    return MIGRATE_EXIT.usage;
  }
  if (parsed.help) {
    io.stdout.write(`${MIGRATE_USAGE}\n`);
    return MIGRATE_EXIT.ok;
  }
  if (!parsed.source || !parsed.out) {
    io.stderr.write(
      `evals migrate: ${parsed.source ? "--out <folder> is required" : "which folder? give the OpenAgentsControl folder (or its evals/)"}\n\n${MIGRATE_USAGE}\n`,
    );
    return MIGRATE_EXIT.usage;
  }
  const source = resolve(parsed.source);
  if (!existsSync(source) || !statSync(source).isDirectory()) {
    io.stderr.write(`evals migrate: ${parsed.source} is not a folder\n`);
    return MIGRATE_EXIT.usage;
  }
  const out = resolve(parsed.out);
  if (out === source || out.startsWith(`${source}/`)) {
    io.stderr.write("evals migrate: --out must not be inside the folder migrated\n");
    return MIGRATE_EXIT.usage;
  }
  const { report, outputs } = migrateOacCases(source, { includeArchive: parsed.includeArchive });
  const byFile = new Map(report.files.map((file) => [file.file, file]));
  let notWritten = 0;
  for (const output of outputs) {
    const target = join(out, output.out);
    const file = byFile.get(output.source) as FileReport;
    if (existsSync(target) && !parsed.force) {
      notWritten++;
      file.status = "failed";
      file.reason = `${output.out} exists in --out; not overwritten (--force overwrites)`;
      continue;
    }
    writeFileAtomic(target, output.text);
  }
  if (notWritten > 0) {
    report.totals.converted -= notWritten;
    report.totals.failed += notWritten;
  }
  io.stdout.write(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : formatMigrationReport(report, out));
  return report.totals.failed > 0 ? MIGRATE_EXIT.incomplete : MIGRATE_EXIT.ok;
}

/** The report for a terminal: counts, then every file and field that was not converted as it was. */
export function formatMigrationReport(report: MigrationReport, out?: string): string {
  const { totals } = report;
  const lines: string[] = [];
  lines.push(
    `evals migrate: ${totals.files} files: ${totals.converted} converted (${totals.convertedWithLosses} with fields not converted), ${totals.skipped} skipped, ${totals.failed} not converted${out ? ` -> ${out}` : ""}`,
  );
  lines.push(
    `fields: ${totals.fields.converted} converted, ${totals.fields.changed} converted with a change of meaning, ${totals.fields.dropped} dropped (they did nothing in OAC), ${totals.fields.unconverted} not converted`,
  );
  for (const duplicate of report.duplicateIds)
    lines.push(
      `duplicate id ${JSON.stringify(duplicate.id)} in ${duplicate.files.length} files: ${duplicate.files.join(", ")}`,
    );
  for (const file of report.files) {
    if (file.status !== "converted") {
      lines.push(`${file.file}: ${file.status === "skipped" ? "skipped" : "NOT CONVERTED"}: ${file.reason}`);
    }
    for (const field of file.fields) {
      if (field.status !== "unconverted") continue;
      lines.push(
        `${file.file}${field.line ? `:${field.line}` : ""} (field ${field.field}): not converted: ${field.note ?? ""}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
