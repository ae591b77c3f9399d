import { resolve } from "node:path";
import { readResults } from "@evals/logging";
import type { Store } from "./store.js";

export interface ImportedFile {
  file: string;
  runId: string;
  /** False when the run was already in the database. */
  added: boolean;
}

/**
 * Adds past results files (latest.json, results/history/…) to the database, each in its own
 * transaction. A file already recorded (the run recorded itself when it ran) is not added twice.
 * Throws ResultsFileError, naming the file and field, for a file that is not a valid results file.
 */
export async function importResults(store: Store, files: string[]): Promise<ImportedFile[]> {
  // Every file is read and checked first: a bad file adds nothing.
  const all = files.map((file) => ({ file: resolve(file), results: readResults(resolve(file)) }));
  const imported: ImportedFile[] = [];
  for (const { file, results } of all) {
    const { runId, added } = await store.record(results, "import", { history: file });
    imported.push({ file, runId, added });
  }
  return imported;
}
