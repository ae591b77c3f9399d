// Writes what is generated from the default rule registry (run after build): the JSON Schema of the case file
// format (schemas/case.json) and the README's table of rules (`npm run schemas` then lets biome pad the
// table as it formats every README). Tests fail when either is out of date.
import { readFileSync, writeFileSync } from "node:fs";
import { writeJsonSchemaFiles } from "@evals/core";
import { caseJsonSchema, defaultRuleRegistry, rulesMarkdown } from "../dist/index.js";

writeJsonSchemaFiles(new URL("../schemas/", import.meta.url), { case: caseJsonSchema() });

const readmeFile = new URL("../README.md", import.meta.url);
const readme = readFileSync(readmeFile, "utf8");
const table = `<!-- rules:start -->\n${rulesMarkdown(defaultRuleRegistry)}\n<!-- rules:end -->`;
writeFileSync(readmeFile, readme.replace(/<!-- rules:start -->[\s\S]*?<!-- rules:end -->/, table));
