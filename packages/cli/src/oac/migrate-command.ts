import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { noMoreArguments, parseCommandArgs } from "../args.js";
import type { Command, CommandIo } from "../command.js";
import { BadInputError, UnreadableFileError, UsageError } from "../errors.js";
import { EXIT, EXIT_CODES_HELP } from "../exit-codes.js";
import {
  type FileReport,
  type MigratedFile,
  type MigrationReport,
  migrateOacCases,
  migrationTotals,
} from "./migrate-oac.js";

export const MIGRATE_USAGE = `Usage: evals migrate <OpenAgentsControl folder> --out <folder> [--json] [--force] [--include-archive]

Converts OpenAgentsControl (OAC) YAML test cases into @evals/evaluators case files, one per case, at the
same relative paths under --out, for the OpenCode agent they were written for (agent.cli: opencode).
Every field whose meaning could not be kept is reported per file and field; what is not a case (templates,
workflows, configs, links that lead nowhere) is skipped with the reason, _archive/ copies unless
--include-archive; cases that share an id get their agent folder as a prefix. Each case written loads with
this package's loader. All or nothing: the files are written to a folder beside --out, then moved in.

Options:
  --out <folder>       where the case files go (required)
  --json               print the report as JSON (default: a summary and the files with losses)
  --force              overwrite case files that exist in --out (default: write nothing and report them)
  --include-archive    convert the _archive/ copies too
  -h, --help           this help

${EXIT_CODES_HELP}
Here: 0 every case file was converted (what is not a case is skipped), 1 some case files could not be
converted or are in the way in --out, 2 bad arguments, no case found, --out not a folder or a write
failed (nothing written).`;

/**
 * `evals migrate <dir> --out <dir> [--json] [--force] [--include-archive]`: converts OpenAgentsControl
 * cases and writes them (each file atomically; an existing file only with --force).
 */
export const migrate: Command = {
  name: "migrate",
  summary: "convert OpenAgentsControl YAML cases into case files, reporting every field it could not keep",
  usage: MIGRATE_USAGE,
  run: (args, io) => migrateCommand(args, io),
};

async function migrateCommand(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("migrate", args, {
    out: { type: "string" },
    json: { type: "boolean" },
    force: { type: "boolean" },
    "include-archive": { type: "boolean" },
  });
  noMoreArguments("migrate", positionals, 1);
  const parsed = {
    source: positionals[0],
    out: values.out,
    json: values.json === true,
    force: values.force === true,
    includeArchive: values["include-archive"] === true,
  };
  if (!parsed.source) throw new UsageError("which folder? give the OpenAgentsControl folder (or its evals/)");
  if (!parsed.out) throw new UsageError("--out <folder> is required");
  const source = resolve(parsed.source);
  const sourceKind = kindOf(source);
  if (sourceKind !== "folder") {
    throw new UnreadableFileError(
      parsed.source,
      `${parsed.source} is not a folder${sourceKind === "missing" ? " (it does not exist)" : ""}: give the OpenAgentsControl folder (or its evals/)`,
    );
  }
  const out = resolve(parsed.out);
  if (out === source || out.startsWith(`${source}/`)) {
    throw new UsageError("--out must not be inside the folder migrated");
  }
  const outKind = kindOf(out);
  if (outKind !== "folder" && outKind !== "missing") {
    throw new BadInputError(
      `--out ${parsed.out} is ${outKind}, not a folder: name a folder (it is created when missing)`,
    );
  }
  const { report, outputs } = migrateOacCases(source, { includeArchive: parsed.includeArchive });
  if (report.totals.converted + report.totals.failed === 0) {
    const archived = report.files.some((file) => /--include-archive/.test(file.reason ?? ""));
    throw new UnreadableFileError(
      parsed.source,
      `no OpenAgentsControl case under ${parsed.source} (${report.totals.files} YAML files, ${report.totals.skipped} skipped${
        archived ? "; --include-archive converts the _archive/ copies" : ""
      }): give the OAC repository, its evals/ or an agent's tests/ folder (evals migrate <OpenAgentsControl>/evals --out ${parsed.out})${
        report.files.length > 0 ? `\n${formatMigrationReport(report).trimEnd()}` : ""
      }`,
    );
  }
  const byFile = new Map(report.files.map((file) => [file.file, file]));
  // All or nothing: a case file in the way (without --force) writes none of them.
  const inTheWay = outputs.filter((output) => kindOf(join(out, output.out)) !== "missing");
  const blocked = parsed.force
    ? inTheWay.filter((output) => kindOf(join(out, output.out)) !== "file")
    : inTheWay;
  if (blocked.length > 0) {
    for (const output of blocked) {
      const file = byFile.get(output.source) as FileReport;
      file.status = "failed";
      file.reason = `${output.out} exists in --out${kindOf(join(out, output.out)) === "file" ? "; not overwritten (--force overwrites)" : " and is not a file"}`;
    }
    report.totals = migrationTotals(report.files);
    io.stdout.write(
      parsed.json ? `${JSON.stringify(report, null, 2)}\n` : formatMigrationReport(report, out),
    );
    io.stderr.write(
      `evals migrate: nothing written: ${blocked.length} case file${blocked.length === 1 ? "" : "s"} already in ${parsed.out}${parsed.force ? "" : " (--force overwrites them)"}\n`,
    );
    return EXIT.failed;
  }
  try {
    writeAllOrNothing(out, outputs);
  } catch (error) {
    io.stdout.write(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : formatMigrationReport(report));
    throw new BadInputError(`nothing written to ${parsed.out}: ${(error as Error).message}`);
  }
  io.stdout.write(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : formatMigrationReport(report, out));
  return report.totals.failed > 0 ? EXIT.failed : EXIT.passed;
}

/** What is at a path: "folder", "file", "missing", or what else it is. */
function kindOf(path: string): "folder" | "file" | "missing" | string {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      try {
        lstatSync(path);
        return "a symbolic link that leads nowhere";
      } catch {
        return "missing";
      }
    }
    return code === "ENOTDIR" ? "under a file" : `unreadable (${code ?? (error as Error).message})`;
  }
  if (stats.isDirectory()) return "folder";
  return stats.isFile() ? "file" : "not a regular file";
}

/**
 * Writes every case file or none: they are written into a staging folder beside `out` first, then
 * moved into place (the whole folder when `out` is new, else file by file, putting back what was
 * there if a move fails). Throws, with `out` as it was, when anything cannot be written.
 */
function writeAllOrNothing(out: string, outputs: MigratedFile[]): void {
  const parent = dirname(out);
  let stage: string;
  try {
    mkdirSync(parent, { recursive: true });
    stage = mkdtempSync(join(parent, `.${basename(out)}.evals-migrate-`));
  } catch (error) {
    throw new Error(`cannot create ${parent}: ${errorText(error)}`);
  }
  try {
    for (const output of outputs) {
      const target = join(stage, output.out);
      try {
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, output.text);
      } catch (error) {
        throw new Error(`cannot write ${output.out}: ${errorText(error)}`);
      }
    }
    if (kindOf(out) === "missing") {
      renameSync(stage, out);
      return;
    }
    const backups = join(stage, ".replaced");
    const moved: { target: string; backup?: string }[] = [];
    try {
      for (const output of outputs) {
        const target = join(out, output.out);
        mkdirSync(dirname(target), { recursive: true });
        let backup: string | undefined;
        if (kindOf(target) !== "missing") {
          backup = join(backups, output.out);
          mkdirSync(dirname(backup), { recursive: true });
          renameSync(target, backup);
        }
        moved.push({ target, ...(backup ? { backup } : {}) });
        renameSync(join(stage, output.out), target);
      }
    } catch (error) {
      for (const { target, backup } of moved.reverse()) {
        rmSync(target, { force: true });
        if (backup && kindOf(backup) !== "missing") renameSync(backup, target);
      }
      throw new Error(`cannot move the case files into ${out}: ${errorText(error)}`);
    }
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function errorText(error: unknown): string {
  const { code, path } = error as NodeJS.ErrnoException;
  return code ? `${code}${path ? ` (${path})` : ""}` : (error as Error).message;
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
