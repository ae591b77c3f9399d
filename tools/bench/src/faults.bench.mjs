// The fault suite: every module in src/faults/*.mjs default-exports
// `async () => Array<{ label: string, tried: number, bad: number }>`; this runs them all, one after
// another, and prints every row in one table. Fails (exit 1) when a row has bad > 0 or a module throws.
import { readdirSync } from "node:fs";

const folder = new URL("./faults/", import.meta.url);
const modules = readdirSync(folder)
  .filter((file) => file.endsWith(".mjs"))
  .sort();
const rows = [];
for (const file of modules) {
  const started = performance.now();
  try {
    const { default: run } = await import(new URL(file, folder).href);
    for (const row of await run()) rows.push({ module: file, ...row });
  } catch (error) {
    rows.push({ module: file, label: `module failed: ${error?.stack ?? error}`, tried: 1, bad: 1 });
  }
  console.log(`${file}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const width = Math.max(...rows.map((row) => row.label.length), 5);
const line = (module, label, tried, bad) =>
  `${module.padEnd(16)} ${label.padEnd(width)} ${String(tried).padStart(8)} ${String(bad).padStart(6)}`;
console.log(`\n${line("module", "fault", "tried", "bad")}`);
console.log("-".repeat(16 + width + 17));
for (const row of rows) console.log(line(row.module, row.label, row.tried, row.bad));
const failed = rows.filter((row) => row.bad > 0);
console.log(
  failed.length === 0 ? "\nall faults handled: OK" : `\n${failed.length} row(s) with bad > 0: FAIL`,
);
process.exit(failed.length === 0 ? 0 : 1);
