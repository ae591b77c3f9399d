import { spawn } from "node:child_process";
import { join } from "node:path";
import type { ScriptName } from "./scripted-agent.js";
import type { Workspace } from "./workspace.js";

/** A script's exit code and parsed JSON output. */
export interface CommandResult {
  exitCode: number | null;
  json: Record<string, unknown>;
}

/**
 * Runs one of the installed plugin's scripts in the workspace's project, as the agent would (same
 * environment), to prepare a case: leave a memory, a cached answer or a session behind. Killed
 * after `timeoutMs`; fails when the script does not print JSON or does not succeed.
 */
export function runCommand(
  workspace: Workspace,
  script: ScriptName,
  args: string[],
  options: { timeoutMs?: number } = {},
): Promise<CommandResult> {
  const file = join(workspace.pluginDir, "dist", `${script}.js`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      cwd: workspace.project,
      env: { PATH: process.env.PATH ?? "", ...workspace.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        reject(
          new Error(`${script} ${args.join(" ")} printed no JSON (exit ${exitCode}): ${stdout}${stderr}`),
        );
        return;
      }
      if (exitCode !== 0) {
        reject(new Error(`${script} ${args.join(" ")} failed (exit ${exitCode}): ${stdout}`));
        return;
      }
      resolve({ exitCode, json });
    });
  });
}
