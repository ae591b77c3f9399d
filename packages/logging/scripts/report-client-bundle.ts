import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * The name the library's build (tsup.config.ts) and the package's tests (vitest.config.ts) define as
 * the report's browser script: src/report-client-script.ts reads it.
 */
export const REPORT_CLIENT_GLOBAL = "__EVALS_REPORT_CLIENT__";

/**
 * The HTML report's browser script, src/report-client/main.ts and what it imports (the formatters of
 * src/format.ts among them), bundled into one minified IIFE for the page's inline <script>.
 */
export async function bundleReportClient(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("../src/report-client/main.ts", import.meta.url))],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    charset: "utf8",
    write: false,
    logLevel: "silent",
  });
  const code = result.outputFiles[0]!.text.trim();
  // Inline in a <script> element, these would end it (or change how it is parsed).
  const unsafe = /<\/script|<!--/i.exec(code);
  if (unsafe) throw new Error(`the report client's bundle contains "${unsafe[0]}": it cannot be inlined`);
  return code;
}

/** The `define` that puts the bundled script in the library (or in the tests' view of src/). */
export async function reportClientDefine(): Promise<Record<string, string>> {
  return { [REPORT_CLIENT_GLOBAL]: JSON.stringify(await bundleReportClient()) };
}
