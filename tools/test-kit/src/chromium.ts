import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import bundledChromium from "@sparticuz/chromium";
import { type BrowserContext, chromium, type Locator } from "playwright-core";

// Real headless Chromium for the browser tests of the HTML report (@evals/logging) and the viewer.

/**
 * A system Chromium to use instead of the bundled one (e.g. `EVALS_CHROMIUM=/usr/bin/chromium`).
 * Optional: by default the test runs the Chromium that `npm install` brought (@sparticuz/chromium).
 */
const SYSTEM_CHROMIUM = process.env.EVALS_CHROMIUM;

const SYSTEM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * The Chromium shipped (brotli-compressed) inside the @sparticuz/chromium npm package, unpacked once per
 * version into the temp folder. Unpacking goes to a private folder that is renamed into place, so test
 * processes of several checkouts starting together never run a half-written binary (the package's own
 * `executablePath()` unpacks straight into `$TMPDIR/chromium` and trusts whatever is there).
 */
function bundledChromiumPath(): string {
  const entry = createRequire(import.meta.url).resolve("@sparticuz/chromium");
  const { version } = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8"));
  const home = join(tmpdir(), `evals-chromium-${version}`);
  const executable = join(home, "chromium");
  if (existsSync(executable)) return executable;
  const staging = mkdtempSync(`${home}.unpacking-`);
  try {
    // The package unpacks into os.tmpdir(): a child process with TMPDIR set points it at the staging folder.
    execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { default: c } = await import(${JSON.stringify(pathToFileURL(entry).href)}); await c.executablePath();`,
      ],
      { env: { ...process.env, TMPDIR: staging }, stdio: ["ignore", "ignore", "inherit"] },
    );
    renameSync(staging, home);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process renamed its copy into place first: use that one.
    if (!existsSync(executable)) throw error;
  }
  return executable;
}

/** Real headless Chromium with a fresh profile, removed on close; `javaScriptEnabled: false` turns scripts off. */
export async function launchChromium({ javaScriptEnabled = true } = {}): Promise<Browser> {
  if (SYSTEM_CHROMIUM !== undefined && !existsSync(SYSTEM_CHROMIUM)) {
    throw new Error(
      `EVALS_CHROMIUM names ${SYSTEM_CHROMIUM}, which does not exist: unset it to use the Chromium bundled by npm install (@sparticuz/chromium).`,
    );
  }
  const executablePath = SYSTEM_CHROMIUM ?? bundledChromiumPath();
  const args = SYSTEM_CHROMIUM ? SYSTEM_ARGS : bundledChromium.args;
  const profile = mkdtempSync(join(tmpdir(), "evals-chromium-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args,
    viewport: { width: 1360, height: 900 },
    javaScriptEnabled,
    timeout: 30_000,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Clicks `target` (a link or a submit button that opens another page) and waits for that page's `load`
 * event. A click alone waits only until the next page starts loading, and Chromium shows a page while
 * it still parses it: read early on a busy machine, a table can end in the middle of a row.
 */
export async function clickThrough(target: Locator): Promise<void> {
  await Promise.all([target.page().waitForEvent("load"), target.click()]);
}
