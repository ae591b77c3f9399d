import type { Browser } from "@evals/test-kit/chromium";

/**
 * Opens a page, recording console errors and warnings, page errors and any request that leaves the
 * file; waits for the report's script to say it is ready unless `ready` is false (a page without one).
 */
export async function openPage(browser: Browser, url: string, { ready = true } = {}) {
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning")
      problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("request", (request) => {
    if (!request.url().startsWith("file:")) problems.push(`request: ${request.url()}`);
  });
  await page.goto(url);
  if (ready) await page.waitForSelector("html[data-ready]", { timeout: 15_000 });
  return { page, problems };
}
