// Writes the files generated from the built package (run after build): the plugin's
// hooks/hooks.json and the JSON Schemas in schemas/. A test fails when they are out of date.
import { writeFileSync } from "node:fs";
import { writeJsonSchemaFiles } from "@evals/core";
import { hookFileFormats, hookJsonSchemaFor, pluginHooksFile } from "../dist/index.js";

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

writeFileSync(new URL("../hooks/hooks.json", import.meta.url), json(pluginHooksFile()));
writeJsonSchemaFiles(
  new URL("../schemas/", import.meta.url),
  Object.fromEntries(Object.keys(hookFileFormats).map((name) => [name, hookJsonSchemaFor(name)])),
);
