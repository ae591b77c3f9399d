import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse as parseYaml } from "yaml";

/** What of a run's options can name a model (RunOpenCodeOptions' fields of the same names). */
export interface ModelSources {
  model: string;
  config?: Record<string, unknown>;
  agents?: Record<string, string>;
  env?: Record<string, string | undefined>;
  baseUrl?: string;
}

/**
 * The one provider every model this run can use comes from, or undefined when it may use others, or
 * when in doubt: then OpenCode keeps its whole models database. OpenCode reads project config from
 * `cwd` up to the git worktree's root (the filesystem root outside git): any opencode.json there, or
 * OPENCODE_CONFIG* in `env`, keeps the whole database; models of agents, modes and commands
 * (config and `.opencode/` markdown frontmatter) count.
 */
export function onlyProvider(options: ModelSources, cwd: string): string | undefined {
  if (Object.keys(options.env ?? {}).some((name) => name.startsWith("OPENCODE_CONFIG"))) return undefined;
  const workspaceFiles = workspaceModelFiles(cwd);
  if (!workspaceFiles) return undefined;
  const config = options.config ?? {};
  const configured = [config.agent, config.mode, config.command].flatMap((entries) =>
    entries && typeof entries === "object"
      ? Object.values(entries as Record<string, { model?: unknown } | undefined>)
      : [],
  );
  const fileModels: unknown[] = [];
  for (const text of [...Object.values(options.agents ?? {}), ...workspaceFiles]) {
    const header = frontmatterData(text);
    // A frontmatter that is not YAML may still name a model OpenCode reads: in doubt.
    if (header === undefined) return undefined;
    fileModels.push(header.model);
  }
  const models = [
    options.model,
    config.model,
    config.small_model,
    ...configured.map((entry) => entry?.model),
    ...fileModels,
  ];
  const providers = new Set(
    models.filter((model): model is string => typeof model === "string").map((model) => model.split("/")[0]),
  );
  for (const name of Object.keys((config.provider as Record<string, unknown> | undefined) ?? {}))
    providers.add(name);
  if (options.baseUrl) providers.add("anthropic");
  return providers.size === 1 ? [...providers][0] : undefined;
}

/**
 * The markdown of every agent, mode and command file in the `.opencode/` folders OpenCode reads for
 * `cwd` (each folder from `cwd` up to the git root, or the filesystem root), or undefined when a project
 * config file is there or a folder cannot be read.
 */
function workspaceModelFiles(cwd: string): string[] | undefined {
  const texts: string[] = [];
  try {
    for (let dir = cwd; ; dir = dirname(dir)) {
      const configs = [
        "opencode.json",
        "opencode.jsonc",
        ".opencode/opencode.json",
        ".opencode/opencode.jsonc",
      ];
      if (configs.some((file) => existsSync(join(dir, file)))) return undefined;
      for (const folder of ["agent", "agents", "mode", "modes", "command", "commands"]) {
        const sub = join(dir, ".opencode", folder);
        if (!existsSync(sub)) continue;
        for (const entry of readdirSync(sub, { recursive: true, withFileTypes: true })) {
          if (entry.name.endsWith(".md"))
            texts.push(readFileSync(join(entry.parentPath, entry.name), "utf8"));
        }
      }
      if (existsSync(join(dir, ".git")) || dirname(dir) === dir) return texts;
    }
  } catch {
    return undefined;
  }
}

/** The YAML frontmatter of a markdown file (agent, mode, command), or "". */
function frontmatter(text: string): string {
  return /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? "";
}

/** The frontmatter's fields ({} when there is none), or undefined when it is not a YAML mapping. */
export function frontmatterData(text: string): Record<string, unknown> | undefined {
  try {
    const data: unknown = parseYaml(frontmatter(text));
    if (data === null || data === undefined) return {};
    return typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
