// Writes the JSON Schemas of @evals/vcr's file formats to schemas/ (run after build).
import { mkdirSync, writeFileSync } from "node:fs";
import { vcrFileFormats, vcrJsonSchemaFor } from "../dist/index.js";

const folder = new URL("../schemas/", import.meta.url);
mkdirSync(folder, { recursive: true });
for (const name of Object.keys(vcrFileFormats)) {
  writeFileSync(new URL(`${name}.json`, folder), `${JSON.stringify(vcrJsonSchemaFor(name), null, 2)}\n`);
}
