// Writes the JSON Schemas of @evals/logging's formats to schemas/ (run after build).
import { mkdirSync, writeFileSync } from "node:fs";
import { loggingFormats, loggingJsonSchema } from "../dist/index.js";

const folder = new URL("../schemas/", import.meta.url);
mkdirSync(folder, { recursive: true });
for (const name of Object.keys(loggingFormats)) {
  writeFileSync(new URL(`${name}.json`, folder), `${JSON.stringify(loggingJsonSchema(name), null, 2)}\n`);
}
