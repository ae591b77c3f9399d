import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { claudeAvailable } from "@evals/claude-code";
import { afterAll, describe, expect, it } from "vitest";

/*
 * Issue #26, from the outside: a YAML case whose agent.env holds secrets, and whose tool prints a
 * DATABASE_URL, a Stripe live key, a PEM private key without its END line and the base64 of a
 * secret, is recorded with `evals record` (real claude, scripted loopback model) and replayed with
 * `evals run`. Then no file either command wrote (reports, run folders, recordings, OTel exports)
 * and nothing either printed holds any of those secrets, in plain, base64 or URL-encoded form.
 */

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const evalsBin = resolve(__dirname, "../dist/cli.js");
// The scripted model's module lives outside the workspace: it names @evals/vcr by its file.
const vcrModule = pathToFileURL(resolve(__dirname, "../../vcr/dist/index.js")).href;
const scratch = mkdtempSync(join(tmpdir(), "harness-secrets-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every regular file under `dir`, recursively (links are not followed). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const stat = lstatSync(path);
    if (stat.isDirectory()) out.push(...filesUnder(path));
    else if (stat.isFile()) out.push(path);
  }
  return out;
}

/** The forms a secret can be written in: as is, base64 (standard and URL-safe) and URL-encoded. */
function formsOf(secret: string): string[] {
  const base64 = Buffer.from(secret).toString("base64");
  return [
    ...new Set([secret, base64, base64.replace(/=+$/, ""), Buffer.from(secret).toString("base64url")]),
    ...(encodeURIComponent(secret) !== secret ? [encodeURIComponent(secret)] : []),
  ];
}

/** An OTLP/HTTP endpoint on loopback that keeps every export request's body as a file in `dir`. */
async function otlpToFiles(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  let count = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      writeFileSync(join(dir, `export-${count++}.body`), Buffer.concat(chunks));
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** Runs the `evals` binary; resolves with its exit code and what it printed. */
function evals(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [evalsBin, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.on("error", fail);
    child.on("close", (code) => done({ code, out }));
  });
}

describe.skipIf(!claudeAvailable({ claudeBin }).available)(
  "secrets of a case run by the evals binary",
  () => {
    it("are in no file evals record and evals run write, and the redacted recording replays the same verdict", async () => {
      const nonce = randomBytes(8).toString("hex");
      const secrets = {
        dbPassword: `pw${nonce}Zq`,
        stripe: `sk_live_51${nonce}AbCdEfGhIj`,
        seed: `seed-${nonce}-x7`,
        pemLine1: `MIIEpAIBAAKCAQEA${nonce}${nonce}q1w2e3r4t5y6u7i8o9p0`,
        pemLine2: `Zm9vYmFy${nonce}ZW5kbGVzcw${nonce}abcdefghij`,
      };
      const databaseUrl = `postgres://app:${secrets.dbPassword}@db.internal:5432/orders`;

      const suite = join(scratch, "suite");
      mkdirSync(join(suite, "fixture"), { recursive: true });
      writeFileSync(join(suite, "fixture", "payments.txt"), `stripe=${secrets.stripe}\n`);
      // A private key cut off before its END line, as a truncated `cat` prints it.
      writeFileSync(
        join(suite, "fixture", "deploy.pem"),
        `-----BEGIN RSA PRIVATE KEY-----\n${secrets.pemLine1}\n${secrets.pemLine2}\n`,
      );
      const caseFile = join(suite, "leaky.yaml");
      writeFileSync(
        caseFile,
        [
          "id: leaky",
          "prompt: Check the deployment settings.",
          "agent:",
          "  fixture: fixture",
          "  allowedTools: [Bash]",
          "  env:",
          `    DATABASE_URL: "${databaseUrl}"`,
          `    SIGNING_SEED: "${secrets.seed}"`,
          "behavior:",
          "  mustUseTools: [Bash]",
          "  expectedResponse:",
          "    contains: [Checked]",
          "",
        ].join("\n"),
      );
      // The model runs one command that prints every secret, then answers with what it printed.
      const models = join(suite, "models.mjs");
      writeFileSync(
        models,
        [
          `import { countToolResults, lastToolResult, reply, text, toolUse } from "${vcrModule}";`,
          "export default (request) =>",
          "  countToolResults(request) === 0",
          "    ? reply(toolUse('Bash', {",
          `        command: 'echo "$DATABASE_URL"; cat payments.txt deploy.pem; printf %s "$SIGNING_SEED" | base64; echo "$SIGNING_SEED"',`,
          "        description: 'Show the settings',",
          "      }))",
          "    : reply(text('Checked: ' + (lastToolResult(request)?.text ?? '')));",
          "",
        ].join("\n"),
      );

      const cassettes = join(suite, "cassettes");
      const results = join(scratch, "results");
      const output = join(scratch, "output");
      const otel = await otlpToFiles(join(scratch, "otel"));
      const env = {
        ...process.env,
        EVALS_CLAUDE_BIN: claudeBin,
        EVALS_OUTPUT_DIR: output,
        EVALS_OTEL: "1",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otel.url,
        FORCE_COLOR: "0",
        CI: "",
      };
      try {
        const recorded = await evals(
          ["record", caseFile, "--cassettes", cassettes, "--model", models, "--out", results],
          env,
        );
        expect(recorded.out).toContain("1 case(s), 1 trial(s): 1 passed, 0 failed");
        expect(recorded.code).toBe(0);
        const replayed = await evals(
          ["run", caseFile, "--cassettes", cassettes, "--mode", "strict", "--out", results],
          env,
        );
        expect(replayed.out).toContain("1 case(s), 1 trial(s): 1 passed, 0 failed");
        expect(replayed.out).toContain("replayed");
        expect(replayed.code).toBe(0);

        // Every kind of file was written: the scan below looks at real files.
        const written = [results, output, cassettes, join(scratch, "otel")].flatMap(filesUnder);
        const names = written.map((file) => file.split("/").pop());
        for (const name of [
          "latest.json",
          "junit.xml",
          "report.html",
          "run-folder.json",
          "result.json",
          "stream.jsonl",
          // No events.jsonl: a run that neither delegates nor asks fires no capture hook.
          "export-0.body",
        ]) {
          expect(names).toContain(name);
        }
        expect(names.some((name) => name?.endsWith(".recording.json"))).toBe(true);
        // The secrets really went through the run: the model was told them (the recording says so, redacted).
        const recording = written.find((file) => file.endsWith(".recording.json"))!;
        expect(readFileSync(recording, "utf8")).toContain("[REDACTED]");

        const planted = [...Object.values(secrets), databaseUrl].flatMap(formsOf);
        const found: string[] = [];
        for (const file of written) {
          const content = readFileSync(file, "latin1");
          for (const secret of planted) if (content.includes(secret)) found.push(`${file}: ${secret}`);
        }
        for (const [command, run] of [
          ["evals record", recorded],
          ["evals run", replayed],
        ] as const) {
          for (const secret of planted)
            if (run.out.includes(secret)) found.push(`${command} printed ${secret}`);
        }
        expect(found).toEqual([]);
      } finally {
        await otel.close();
      }
    }, 300_000);
  },
);
