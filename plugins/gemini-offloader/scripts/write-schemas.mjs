// Writes the JSON Schemas of the plugin's file formats to schemas/ (run after the build).
import { mkdirSync, writeFileSync } from "node:fs";
import { fileFormats, jsonSchemaFor } from "../dist/lib/index.js";

const folder = new URL("../schemas/", import.meta.url);
mkdirSync(folder, { recursive: true });
for (const name of Object.keys(fileFormats)) {
  writeFileSync(new URL(`${name}.json`, folder), `${JSON.stringify(jsonSchemaFor(name), null, 2)}\n`);
}
