// Writes the JSON Schema of the case file format to schemas/case.json (run after build).
import { mkdirSync, writeFileSync } from "node:fs";
import { caseJsonSchema } from "../dist/index.js";

const folder = new URL("../schemas/", import.meta.url);
mkdirSync(folder, { recursive: true });
writeFileSync(new URL("case.json", folder), `${JSON.stringify(caseJsonSchema(), null, 2)}\n`);
