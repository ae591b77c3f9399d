import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  countFunctionResponses,
  type GeminiReply,
  type GeminiRequest,
  geminiError,
  geminiFunctionCall,
  geminiReply,
  lastFunctionResponse,
} from "@evals/vcr";
import { afterAll } from "vitest";

const workspaces: string[] = [];
// Each test file's workspaces go once its tests are over: none is left in the temp folder.
afterAll(() => {
  for (const dir of workspaces.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh workspace with `notes.txt` ("hello world") in it, removed after the test file's tests. */
export function workspace(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `evals-gemini-test-${label}-`));
  workspaces.push(dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "notes.txt"), "hello world\n");
  return dir;
}

/**
 * The scripted model of the tool-dialect test: a failing shell command, a read, an edit, a write,
 * a passing shell command, then the answer (which quotes the failing command's exit code).
 */
export function toolsScript(request: GeminiRequest): GeminiReply {
  const step = countFunctionResponses(request);
  if (step === 0)
    return geminiReply(
      "Looking around.",
      geminiFunctionCall("run_shell_command", { command: "ls missing-dir" }),
    );
  if (step === 1) return geminiReply(geminiFunctionCall("read_file", { file_path: "notes.txt" }));
  if (step === 2) {
    return geminiReply(
      geminiFunctionCall("replace", {
        file_path: "notes.txt",
        old_string: "hello",
        new_string: "goodbye",
        instruction: "greet less",
      }),
    );
  }
  if (step === 3)
    return geminiReply(geminiFunctionCall("write_file", { file_path: "summary.md", content: "# Done\n" }));
  if (step === 4) return geminiReply(geminiFunctionCall("run_shell_command", { command: "cat summary.md" }));
  const first = lastFunctionResponse(request);
  return geminiReply(`All done (last output: ${first?.text.includes("# Done") ? "ok" : "?"}).`);
}

/** A model that answers every request with an HTTP 400. */
export function badRequestScript(): GeminiReply {
  return geminiError(400, "The scripted model refuses this request");
}

/** A model that never stops reading the same file: only the turn limit ends the run. */
export function loopScript(request: GeminiRequest): GeminiReply {
  return geminiReply(
    geminiFunctionCall("read_file", { file_path: "notes.txt" }),
    `step ${countFunctionResponses(request)}`,
  );
}
