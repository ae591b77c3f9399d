// Fault injection: secrets of many shapes planted in a case, none in any file a run writes. Two rows:
//  - secrets found: a YAML case whose agent.env holds secrets under ordinary names, and whose Bash
//    tool prints provider keys (Anthropic, OpenAI, Stripe, GitHub, AWS, Slack, Google, npm), a JWT,
//    bearer and basic credentials, passwords in URLs and in NAME=value lines, private keys with and
//    without their END line, and the env's values plain, base64 (also inside a longer base64) and
//    URL-encoded, is recorded with `evals record` (real claude, scripted loopback model, OTel export
//    on to a loopback receiver) and replayed with `evals run`; each (secret, file) found under the
//    results, the run folders, the recordings and the OTel exports, or in what evals printed, is bad,
//    and so is a secret the model never saw (the run proved nothing about it);
//  - redacted recording replays another verdict: the case must pass when recorded and when replayed
//    from its redacted recording.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CLAUDE_BIN, WORKSPACE } from "../bench-kit.mjs";

const evalsBin = join(WORKSPACE, "packages/cli/dist/cli.js");
const vcrModule = pathToFileURL(join(WORKSPACE, "packages/vcr/dist/index.js")).href;

/** Every regular file under `dir`, recursively (links are not followed). */
function filesUnder(dir) {
  const out = [];
  let entries = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const entry of entries) {
    const path = join(dir, entry);
    const stat = lstatSync(path);
    if (stat.isDirectory()) out.push(...filesUnder(path));
    else if (stat.isFile()) out.push(path);
  }
  return out;
}

/** The planted secrets: `printed` lines the tool prints, `env` the case's agent.env, `secrets` what must not be found. */
function plant(nonce) {
  const n = nonce;
  const alnum = (length) => `${n}${"AbCdEfGhIjKlMnOpQrStUvWxYz0123456789".repeat(3)}`.slice(0, length);
  const keys = {
    anthropic: `sk-ant-api03-${alnum(40)}`,
    openai: `sk-proj-${alnum(48)}`,
    openaiLegacy: `sk-${alnum(48)}`,
    stripeLive: `sk_live_51${alnum(30)}`,
    stripeRestricted: `rk_live_51${alnum(30)}`,
    stripeTest: `sk_test_51${alnum(30)}`,
    stripeWebhook: `whsec_${alnum(32)}`,
    githubClassic: `ghp_${alnum(36)}`,
    githubOauth: `gho_${alnum(36)}`,
    githubFine: `github_pat_11${alnum(20)}_${alnum(40)}`,
    awsKeyId: `AKIA${n.slice(0, 16).toUpperCase()}`,
    awsSecret: `${alnum(30)}/+${alnum(8)}`,
    slackBot: `xoxb-123456789012-1234567890123-${alnum(24)}`,
    slackApp: `xapp-1-A0123456789-1234567890123-${alnum(32)}`,
    slackWebhook: `T0123${n.slice(0, 6)}/B0123${n.slice(0, 6)}/${alnum(24)}`,
    google: `AIza${alnum(35)}`,
    npm: `npm_${alnum(36)}`,
    jwt: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIke${alnum(12)}.${alnum(43)}`,
    bearer: `bearer${alnum(30)}`,
    basic: `basic-pass-${n}`,
    postgres: `pgpass${n}`,
    mysql: `mypass${n}`,
    redis: `redispass${n}`,
    mongo: `mongopass${n}`,
    https: `httpspass${n}`,
    envPassword: `envpass${n}`,
    envToken: `envtoken${n}`,
    rsaBody: `MIIEpAIBAAKCAQEA${alnum(48)}`,
    rsaBody2: `${alnum(20)}Zm9vYmFy${alnum(20)}`,
    opensshBody: `b3BlbnNzaC1rZXktdjEAAAAA${alnum(40)}`,
    pgpBody: `lQOYBF${alnum(50)}`,
  };
  const env = {
    SIGNING_SEED: `seed-${n}-x7`,
    DATABASE_URL: `postgres://app:${keys.postgres}@db.internal:5432/orders`,
    UPSTREAM: `upstream value ${n} with spaces & symbols`,
    LICENSE_BLOB: `lic_${n}_${n}`,
  };
  const printed = [
    `printed-${n}`,
    `anthropic=${keys.anthropic}`,
    `openai: ${keys.openai}`,
    `OPENAI (legacy) ${keys.openaiLegacy}`,
    `stripe ${keys.stripeLive} ${keys.stripeRestricted} ${keys.stripeTest} ${keys.stripeWebhook}`,
    `github ${keys.githubClassic} ${keys.githubOauth} ${keys.githubFine}`,
    `aws_access_key_id = ${keys.awsKeyId}`,
    `aws_secret_access_key = ${keys.awsSecret}`,
    `slack ${keys.slackBot} ${keys.slackApp} https://hooks.slack.com/services/${keys.slackWebhook}`,
    `google ${keys.google} npm ${keys.npm}`,
    `jwt ${keys.jwt}`,
    `Authorization: Bearer ${keys.bearer}`,
    `Authorization: Basic ${Buffer.from(`deploy:${keys.basic}`).toString("base64")}`,
    `mysql://root:${keys.mysql}@mysql.internal/app`,
    `redis://:${keys.redis}@cache.internal:6379/0`,
    `mongodb+srv://svc:${keys.mongo}@cluster0.example.net/db`,
    `https://ci:${keys.https}@git.example.com/repo.git`,
    `MY_SERVICE_PASSWORD=${keys.envPassword}`,
    `export DEPLOY_TOKEN="${keys.envToken}"`,
    "-----BEGIN RSA PRIVATE KEY-----",
    keys.rsaBody,
    keys.rsaBody2,
    "-----END RSA PRIVATE KEY-----",
    "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    "",
    keys.pgpBody,
    "-----END PGP PRIVATE KEY BLOCK-----",
    // Cut off before its END line: the last thing printed.
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    keys.opensshBody,
  ];
  // The env's values as the tool prints them: plain, base64, inside a longer base64, URL-encoded.
  const envCommands = Object.keys(env).map(
    (name) =>
      `printf '%s\\n' "$${name}"; printf %s "$${name}" | base64 -w0; echo; printf 'x:%s' "$${name}" | base64 -w0; echo; node -e 'console.log(encodeURIComponent(process.env.${name}))'`,
  );
  const secrets = [...Object.values(keys), ...Object.values(env)];
  return { printed, env, envCommands, secrets, marker: `printed-${n}` };
}

/** What must not be found of a secret: itself, its base64 (standard, URL-safe) and URL-encoded forms. */
function formsOf(secret) {
  const base64 = Buffer.from(secret).toString("base64");
  return [
    ...new Set([
      secret,
      base64.replace(/=+$/, ""),
      Buffer.from(secret).toString("base64url"),
      encodeURIComponent(secret),
    ]),
  ];
}

/** An OTLP/HTTP endpoint on loopback that keeps every export request's body as a file in `dir`. */
async function otlpToFiles(dir) {
  mkdirSync(dir, { recursive: true });
  let count = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      writeFileSync(join(dir, `export-${count++}.body`), Buffer.concat(chunks));
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1/traces`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** Runs the `evals` binary; resolves with its exit code and what it printed. */
function evals(args, env) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [evalsBin, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code, out }));
  });
}

export default async function secretsFaults() {
  const work = mkdtempSync(join(tmpdir(), "evals-fault-secrets-"));
  try {
    const { printed, env, envCommands, secrets, marker } = plant(randomBytes(8).toString("hex"));
    const suite = join(work, "suite");
    mkdirSync(join(suite, "fixture"), { recursive: true });
    writeFileSync(join(suite, "fixture", "leaks.txt"), `${printed.join("\n")}\n`);
    const caseFile = join(suite, "planted.yaml");
    writeFileSync(
      caseFile,
      [
        "id: planted",
        "prompt: Show me the settings.",
        "agent:",
        "  fixture: fixture",
        "  allowedTools: [Bash]",
        "  env:",
        ...Object.entries(env).map(([name, value]) => `    ${name}: ${JSON.stringify(value)}`),
        "behavior:",
        "  mustUseTools: [Bash]",
        "  expectedResponse:",
        "    contains: [Settings]",
        "",
      ].join("\n"),
    );
    // Two Bash calls (the file, then the env), then an answer quoting both: the secrets reach the
    // tool results, the hook events, the stream, the final text and so every report.
    const commands = [`cat leaks.txt`, envCommands.join("; ")];
    writeFileSync(
      join(suite, "models.mjs"),
      [
        `import { countToolResults, lastToolResult, reply, text, toolUse } from ${JSON.stringify(vcrModule)};`,
        `const commands = ${JSON.stringify(commands)};`,
        "const seen = [];",
        "export default (request) => {",
        "  const done = countToolResults(request);",
        "  if (done > 0) seen[done - 1] = lastToolResult(request)?.text ?? '';",
        "  if (done < commands.length) return reply(toolUse('Bash', { command: commands[done], description: 'show' }));",
        "  return reply(text('Settings:\\n' + seen.join('\\n')));",
        "};",
        "",
      ].join("\n"),
    );

    const cassettes = join(suite, "cassettes");
    const results = join(work, "results");
    const output = join(work, "output");
    const otelDir = join(work, "otel");
    const otel = await otlpToFiles(otelDir);
    const runEnv = {
      ...process.env,
      EVALS_CLAUDE_BIN: CLAUDE_BIN,
      EVALS_OUTPUT_DIR: output,
      EVALS_OTEL: "1",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otel.url,
      FORCE_COLOR: "0",
      CI: "",
    };
    let recorded;
    let replayed;
    try {
      recorded = await evals(
        [
          "record",
          caseFile,
          "--cassettes",
          cassettes,
          "--model",
          join(suite, "models.mjs"),
          "--out",
          results,
        ],
        runEnv,
      );
      replayed = await evals(
        ["run", caseFile, "--cassettes", cassettes, "--mode", "strict", "--out", results],
        runEnv,
      );
    } finally {
      await otel.close();
    }
    const passed = (run) => run.code === 0 && run.out.includes("1 passed, 0 failed");

    // A secret the model never saw proves nothing: the run's files must show the tool printed them.
    const written = [results, output, cassettes, otelDir].flatMap(filesUnder);
    const contents = [...written.map((file) => readFileSync(file, "latin1")), recorded.out, replayed.out];
    const sawTools = contents.some((content) => content.includes(marker));
    let found = 0;
    for (const secret of secrets) {
      for (const form of formsOf(secret)) {
        for (const [index, content] of contents.entries()) {
          if (!content.includes(form)) continue;
          found++;
          console.log(`secrets.mjs: found ${form} in ${written[index] ?? "what evals printed"}`);
        }
      }
    }
    return [
      {
        label: `secrets found (${secrets.length} planted shapes, in ${written.length} written files and the output)`,
        tried: secrets.length,
        bad: found + (sawTools && passed(recorded) ? 0 : secrets.length),
      },
      {
        label: "redacted recording replays another verdict",
        tried: 1,
        bad: passed(recorded) && passed(replayed) && replayed.out.includes("replayed") ? 0 : 1,
      },
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
