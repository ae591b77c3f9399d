// Writes the files generated from the built package (run after build): the plugin's
// hooks/hooks.json and the JSON Schemas in schemas/. A test fails when they are out of date.
import { mkdirSync, writeFileSync } from "node:fs";
import { hookFileFormats, hookJsonSchemaFor, pluginHooksFile } from "../dist/index.js";

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

writeFileSync(new URL("../hooks/hooks.json", import.meta.url), json(pluginHooksFile()));
const schemas = new URL("../schemas/", import.meta.url);
mkdirSync(schemas, { recursive: true });
for (const name of Object.keys(hookFileFormats)) {
  writeFileSync(new URL(`${name}.json`, schemas), json(hookJsonSchemaFor(name)));
}
