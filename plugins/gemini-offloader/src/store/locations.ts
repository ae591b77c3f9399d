import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigFileSchema, FORMAT_VERSION, ProjectFileSchema } from "../formats.js";
import { readJsonFile, writeJsonFileAtomic } from "./json-file.js";

/** The plugin's base folder: GEMINI_OFFLOADER_BASE, else ~/.gemini_offloader. */
export function baseFolder(env: NodeJS.ProcessEnv): string {
  const configured = env.GEMINI_OFFLOADER_BASE?.trim();
  return configured ? resolve(configured) : join(homedir(), ".gemini_offloader");
}

export interface BaseLayout {
  base: string;
  configFile: string;
  projectsDir: string;
  memoryDir: string;
  memoryStoreFile: string;
  memoryIndexFile: string;
}

export function baseLayout(base: string): BaseLayout {
  return {
    base,
    configFile: join(base, "config.json"),
    projectsDir: join(base, "projects"),
    memoryDir: join(base, "memory"),
    memoryStoreFile: join(base, "memory", "memories.json"),
    memoryIndexFile: join(base, "memory", "index.json"),
  };
}

/** True once any script has written to the base folder. */
export function isInitialized(layout: BaseLayout): boolean {
  return existsSync(layout.configFile);
}

/** Creates the base folder's config.json the first time something is stored. */
export function ensureInitialized(layout: BaseLayout): void {
  if (readJsonFile(layout.configFile, ConfigFileSchema)) return;
  writeJsonFileAtomic(layout.configFile, { version: FORMAT_VERSION, created_at: new Date().toISOString() });
}

/**
 * The project a script works for: the folder it runs in (symlinks resolved). Gemini runs there
 * too, so Gemini files its sessions under the same folder, and `@path` references and relative
 * --include-dirs mean what they mean to the agent.
 */
export function findProjectRoot(cwd: string): string {
  return realpathOrSelf(resolve(cwd));
}

/** A short, stable name for a project folder: the first 16 hex digits of sha256(path). */
export function projectHash(projectRoot: string): string {
  return createHash("sha256").update(projectRoot).digest("hex").slice(0, 16);
}

export interface ProjectLayout {
  root: string;
  hash: string;
  dir: string;
  projectFile: string;
  cacheDir: string;
  responsesDir: string;
  sessionsFile: string;
  sessionResponsesDir: string;
}

export function projectLayout(layout: BaseLayout, root: string, hash = projectHash(root)): ProjectLayout {
  const dir = join(layout.projectsDir, hash);
  return {
    root,
    hash,
    dir,
    projectFile: join(dir, "project.json"),
    cacheDir: join(dir, "cache"),
    responsesDir: join(dir, "responses"),
    sessionsFile: join(dir, "sessions.json"),
    sessionResponsesDir: join(dir, "sessions"),
  };
}

/** Records the project (and the base folder) before the first thing is stored for it. */
export function ensureProject(layout: BaseLayout, project: ProjectLayout): void {
  ensureInitialized(layout);
  if (readJsonFile(project.projectFile, ProjectFileSchema)) return;
  writeJsonFileAtomic(project.projectFile, {
    version: FORMAT_VERSION,
    path: project.root,
    hash: project.hash,
    created_at: new Date().toISOString(),
  });
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
