// Writes the JSON Schemas of @evals/worktree's file formats to schemas/ (run after build).
import { mkdirSync, writeFileSync } from "node:fs";
import { worktreeFileFormats, worktreeJsonSchema } from "../dist/index.js";

const folder = new URL("../schemas/", import.meta.url);
mkdirSync(folder, { recursive: true });
for (const name of Object.keys(worktreeFileFormats)) {
  writeFileSync(new URL(`${name}.json`, folder), `${JSON.stringify(worktreeJsonSchema(name), null, 2)}\n`);
}
