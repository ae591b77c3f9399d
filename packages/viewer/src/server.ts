import { existsSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Store, StoreOnDemand } from "@evals/store";
import { casePage } from "./case-page.js";
import { comparePage } from "./compare-page.js";
import { flakyPage } from "./flaky-page.js";
import { html, page } from "./html.js";
import { findRun, laterRunOfReport, wholeMessage } from "./queries.js";
import { runPage } from "./run-page.js";
import { runsPage } from "./runs-page.js";
import { trialPage } from "./trial-page.js";

export interface ViewerOptions {
  /**
   * The results database the pages read: a StoreOnDemand, opened for the requests and closed between
   * them (so `evals run` records into the embedded database while the viewer is up), or an open
   * Store the caller keeps.
   */
  store: Store | StoreOnDemand;
  /** The port on 127.0.0.1 (default 0: any free port). */
  port?: number;
}

export interface Viewer {
  /** Where it serves, e.g. http://127.0.0.1:4173/ */
  url: string;
  /** Stops serving (open connections are closed); the store is the caller's to close. */
  close(): Promise<void>;
}

/** The port is taken (or may not be used): what `evals view` reports as bad input. */
export class PortUnavailableError extends Error {
  constructor(
    readonly port: number,
    cause: Error,
  ) {
    super(
      `port ${port} on 127.0.0.1 cannot be used (${(cause as NodeJS.ErrnoException).code ?? cause.message})`,
    );
    this.name = "PortUnavailableError";
  }
}

/** Serves the viewer's pages over `store` on 127.0.0.1 until `close()`. */
export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const { store } = options;
  const use = <T>(work: (open: Store) => Promise<T>) => ("use" in store ? store.use(work) : work(store));
  const port = options.port ?? 0;
  let bound = 0;
  const server = createServer((request, response) => {
    if (!forThisViewer(request.headers.host, bound)) return refuseHost(request.headers.host, response);
    use((open) => handle(open, request, response)).catch((error: Error) => {
      if (!response.headersSent)
        send(response, 500, page("Error", html`<pre class="error">${error.stack ?? error.message}</pre>`));
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(new PortUnavailableError(port, error)));
    server.listen(port, "127.0.0.1", () => resolve());
  });
  bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(store: Store, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    send(
      response,
      405,
      page("Not allowed", html`<p>The viewer only reads: ${request.method} is not served.</p>`),
    );
    return;
  }
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const param = (name: string) => url.searchParams.get(name) ?? undefined;
  const pageNumber = Math.max(1, wholeNumber(param("page")) ?? 1);
  const notFound = (what: string) =>
    send(
      response,
      404,
      page("Not found", html`<p>${what} is not in this database. <a href="/">All runs</a></p>`),
    );
  // PostgreSQL's text holds no NUL: a value with one names nothing in the database (and the query fails).
  if ([...url.searchParams.values()].some((value) => value.includes("\0")))
    return notFound(`The page ${url.pathname}${url.search}`);
  switch (url.pathname) {
    case "/":
      return send(response, 200, await runsPage(store, pageNumber));
    case "/run": {
      const id = param("id") ?? "";
      const body = await runPage(store, id, pageNumber, param("only") === "not-passed");
      return body ? send(response, 200, body) : notFound(`Run ${id}`);
    }
    case "/report":
      return sendReport(store, param("id") ?? "", response, notFound);
    case "/case": {
      const [suite, id] = [param("suite") ?? "", param("id") ?? ""];
      const body = await casePage(store, suite, id);
      return body ? send(response, 200, body) : notFound(`Case ${suite ? `${suite} › ` : ""}${id}`);
    }
    case "/trial": {
      const [run, pos, trial] = [param("run") ?? "", wholeNumber(param("pos")), wholeNumber(param("trial"))];
      const body =
        pos !== undefined && trial !== undefined ? await trialPage(store, run, pos, trial) : undefined;
      return body
        ? send(response, 200, body)
        : notFound(`Trial ${param("trial")} of case #${param("pos")} of run ${run}`);
    }
    case "/message": {
      // A trial's error (&trial=), a violation's message (&violation=, its seq), else the case's error.
      const [pos, trial, violation] = [param("pos"), param("trial"), param("violation")].map(wholeNumber);
      const malformed =
        pos === undefined ||
        (param("trial") !== undefined && trial === undefined) ||
        (param("violation") !== undefined && violation === undefined);
      const text = malformed
        ? undefined
        : await wholeMessage(store, param("run") ?? "", pos, { trial, violation });
      return text !== undefined ? sendText(response, text) : notFound(`The message ${url.search}`);
    }
    case "/flaky":
      return send(response, 200, await flakyPage(store));
    case "/compare":
      return send(response, 200, await comparePage(store, param("a") || undefined, param("b") || undefined));
    default:
      return notFound(`The page ${url.pathname}`);
  }
}

/**
 * A run's report.html, when the file named in the database still exists and no later run of the
 * same results folder rewrote it; one that cannot be read is a page saying so, not a dead viewer.
 */
async function sendReport(
  store: Store,
  id: string,
  response: ServerResponse,
  notFound: (what: string) => void,
): Promise<void> {
  const run = await findRun(store, id);
  if (!run?.report_file || !existsSync(run.report_file) || (await laterRunOfReport(store, run)))
    return notFound(`The HTML report of run ${id}`);
  let file: FileHandle | undefined;
  try {
    file = await open(run.report_file);
    const stats = await file.stat();
    if (!stats.isFile()) throw new Error("it is not a file");
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": stats.size });
    file
      .createReadStream()
      .on("error", () => response.destroy())
      .pipe(response);
  } catch (error) {
    await file?.close();
    const why = html`<p>The HTML report of run ${id}, <code>${run.report_file}</code>, cannot be read: ${(error as Error).message}</p>`;
    send(response, 404, page("Not found", why));
  }
}

/** A number of the query (a page, a case's place, a trial) that the database's integers hold, else undefined. */
function wholeNumber(value: string | undefined): number | undefined {
  return value !== undefined && /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

/**
 * Whether a request's Host names this viewer (127.0.0.1 or localhost at its port). A page of another
 * site that rebinds its own name to 127.0.0.1 (DNS rebinding) would otherwise read every page, the
 * transcripts included.
 */
function forThisViewer(host: string | undefined, port: number): boolean {
  const name = host?.toLowerCase();
  return name === `127.0.0.1:${port}` || name === `localhost:${port}`;
}

function refuseHost(host: string | undefined, response: ServerResponse): void {
  send(
    response,
    403,
    page(
      "Not this viewer",
      html`<p>evals view answers requests for 127.0.0.1 or localhost only, not ${host ?? "no host"}.</p>`,
    ),
  );
}

/** One stored message whole, as plain text (never sniffed as a page). */
function sendText(response: ServerResponse, body: string): void {
  response.writeHead(200, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'",
  });
  response.end(body);
}

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    // The pages need no script: none may run, whatever a case name holds.
    "content-security-policy":
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'",
  });
  response.end(body);
}
