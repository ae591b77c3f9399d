import { type PostgresServer, startPostgres } from "@evals/test-kit/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { runEvals } from "./evals-bin.js";

/**
 * A postgres:// URL with ?sslmode=…, as hosted PostgreSQL services hand them out, against a real
 * server (without SSL). pg 8 warns on every process given sslmode=prefer, require or verify-ca
 * ("SECURITY WARNING: The SSL modes … are treated as aliases for 'verify-full'").
 */
let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

describe("evals history --db postgres://…?sslmode=", () => {
  it("prints no pg warning about sslmode, and still asks the server for SSL", () => {
    for (const mode of ["prefer", "require", "verify-ca", "verify-full"]) {
      const result = runEvals(["history", "--db", `${server.url}?sslmode=${mode}`]);
      // The server has no SSL: what pg documents for these modes today (verify-full) refuses it.
      expect(result.code, `${mode}: ${result.stderr}`).toBe(EXIT.badInput);
      expect(result.stderr, mode).toContain("The server does not support SSL connections");
      expect(result.stderr, mode).not.toMatch(/warning/i);
    }
  });

  it("connects without SSL when the URL says sslmode=disable, and libpq's meanings stay asked for with uselibpqcompat=true", () => {
    const plain = runEvals(["history", "--db", `${server.url}?sslmode=disable`]);
    expect(plain.code, plain.stderr).toBe(EXIT.passed);
    expect(plain.stderr).toBe("");
    const libpq = runEvals(["history", "--db", `${server.url}?uselibpqcompat=true&sslmode=require`]);
    expect(libpq.stderr).toContain("The server does not support SSL connections");
    expect(libpq.stderr).not.toMatch(/warning/i);
  });
});
