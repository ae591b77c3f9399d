#!/usr/bin/env node
// Runs every benchmark in src/ (or those named: `npm run bench -- jsonl hooks`), one after another.
// `faults` is the fault suite: faults.bench.mjs runs every module in src/faults/ and prints one table.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const wanted = process.argv.slice(2);
const benches = readdirSync(new URL("./src/", import.meta.url))
  .filter((file) => file.endsWith(".bench.mjs"))
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.startsWith(name)))
  .sort();
let failed = 0;
for (const file of benches) {
  console.log(`\n=== ${file} ===`);
  const result = spawnSync(
    process.execPath,
    ["--expose-gc", new URL(`./src/${file}`, import.meta.url).pathname],
    {
      stdio: "inherit",
      env: { ...process.env, FORCE_COLOR: "0" },
    },
  );
  if (result.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
