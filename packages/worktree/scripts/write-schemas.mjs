// Writes the JSON Schemas of @evals/worktree's file formats to schemas/ (run after build).
import { writeJsonSchemaFiles } from "@evals/core";
import { worktreeFileFormats, worktreeJsonSchema } from "../dist/index.js";

writeJsonSchemaFiles(
  new URL("../schemas/", import.meta.url),
  Object.fromEntries(Object.keys(worktreeFileFormats).map((name) => [name, worktreeJsonSchema(name)])),
);
