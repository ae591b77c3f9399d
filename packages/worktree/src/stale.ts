import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { isSafeRunId, RUNS_FOLDER } from "@evals/core";
import { isAlive } from "@evals/core/process";
import { resolveRepo } from "./repo.js";
import { readTrialMetadata, type TrialMetadata, trialMetadataPath } from "./trial-metadata.js";
import { gitWorktreeAdmin } from "./worktree-admin.js";
import { defaultTreesDir, isLiveWorktree, listWorktrees, removeWorktree } from "./worktrees.js";

export interface CleanupStaleOptions {
  /** Remove what is at least this old (ms). 0 removes every leftover that is not in use. */
  olderThanMs: number;
  /** The trees folder to sweep for half-made folders (default `defaultTreesDir(repo)`). */
  treesDir?: string;
  /** Root of the test-output/ folder to sweep (default: the repository's top folder). */
  outputRoot?: string;
  /** Also remove old run output folders (default true). */
  outputs?: boolean;
  /** Report what would be removed without removing it. */
  dryRun?: boolean;
}

export interface CleanupReport {
  /** Trial worktrees removed (git worktree remove --force). */
  worktrees: string[];
  /** Leftover folders and metadata files in the trees folder that git did not know (half-made). */
  folders: string[];
  /** Run output folders removed (test-output/<id>). */
  outputDirs: string[];
  /** What was old enough but left alone, and why. */
  skipped: { path: string; reason: string }[];
}

/**
 * Removes trial worktrees made by this package, leftover trial folders and run output folders that are
 * older than `olderThanMs`, then prunes git's worktree list. Never touches the main worktree, worktrees
 * this package did not make, or trials still in use (by this process, or by a live process on this host).
 */
export async function cleanupStale(repo: string, options: CleanupStaleOptions): Promise<CleanupReport> {
  const { root, commonDir } = await resolveRepo(repo);
  const cutoff = Date.now() - options.olderThanMs;
  const report: CleanupReport = { worktrees: [], folders: [], outputDirs: [], skipped: [] };
  const worktrees = await listWorktrees(root);
  const busyIds = new Set<string>();

  for (const worktree of worktrees) {
    const trial = worktree.trial;
    if (!trial || worktree.isMain) continue;
    const busy = inUse(worktree.path, trial);
    if (busy) {
      busyIds.add(trial.test_id);
      report.skipped.push({ path: worktree.path, reason: busy });
      continue;
    }
    if (Date.parse(trial.created_at) > cutoff) {
      busyIds.add(trial.test_id);
      continue;
    }
    if (!options.dryRun) await removeWorktree(root, worktree.path);
    report.worktrees.push(worktree.path);
  }

  const known = new Set(worktrees.map((worktree) => worktree.path));
  const treesFolder = resolve(options.treesDir ?? defaultTreesDir(root));
  const treesDir = existsSync(treesFolder) ? realpathSync(treesFolder) : treesFolder;
  for (const entry of listFolder(treesDir)) {
    const path = join(treesDir, entry);
    if (entry === ".gitignore" || known.has(path) || isLiveWorktree(path)) continue;
    if (entry.endsWith(".trial.json") && known.has(path.slice(0, -".trial.json".length))) continue;
    if (newestChange(path) > cutoff) continue;
    if (!options.dryRun) await rm(path, { recursive: true, force: true });
    report.folders.push(path);
  }

  if (options.outputs !== false) {
    const outputs = join(resolve(options.outputRoot ?? root), RUNS_FOLDER);
    for (const entry of listFolder(outputs)) {
      const path = join(outputs, entry);
      if (!isSafeRunId(entry) || !statSync(path).isDirectory()) continue;
      if (busyIds.has(entry) || isLiveWorktree(join(treesDir, entry))) {
        report.skipped.push({ path, reason: "its trial is still running" });
        continue;
      }
      if (newestChange(path) > cutoff) continue;
      if (!options.dryRun) await rm(path, { recursive: true, force: true });
      report.outputDirs.push(path);
    }
  }

  if (!options.dryRun) await gitWorktreeAdmin(root, commonDir, ["worktree", "prune"], { allowFailure: true });
  return report;
}

/** Why a trial worktree must not be removed, or undefined when it may be. */
function inUse(path: string, trial: TrialMetadata): string | undefined {
  if (isLiveWorktree(path)) return "in use by this process";
  if (trial.hostname !== hostname() || trial.pid === process.pid) return undefined;
  return isAlive(trial.pid) ? `in use by process ${trial.pid}` : undefined;
}

function listFolder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder);
}

/** The latest modification time of a folder and its direct entries (appends to a file count). */
function newestChange(path: string): number {
  try {
    const stat = statSync(path);
    let newest = stat.mtimeMs;
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) {
        try {
          newest = Math.max(newest, statSync(join(path, entry)).mtimeMs);
        } catch {
          // Vanished meanwhile.
        }
      }
    }
    return newest;
  } catch {
    return 0;
  }
}

export interface DeadTrialsReport {
  /** Trial worktrees removed: their owner process (on this host) is dead. */
  worktrees: string[];
  /** Half-made trial folders (git never registered them) of dead owners, removed. */
  folders: string[];
}

/**
 * Removes the trial worktrees whose owner process died without removing them (a `kill -9`), at any
 * age: only worktrees this package made (they have trial metadata), only those made on this host by
 * a process that is gone. Live trials, of this process or another, and run output folders are left
 * alone. withTrialWorktree calls it once per process and trees folder before its first trial.
 */
export async function cleanupDeadTrials(
  repo: string,
  options: { treesDir?: string } = {},
): Promise<DeadTrialsReport> {
  const { root, commonDir } = await resolveRepo(repo);
  const report: DeadTrialsReport = { worktrees: [], folders: [] };
  const worktrees = await listWorktrees(root);
  for (const worktree of worktrees) {
    if (worktree.isMain || !worktree.trial || !ownerDead(worktree.trial)) continue;
    if (isLiveWorktree(worktree.path)) continue;
    await removeWorktree(root, worktree.path);
    report.worktrees.push(worktree.path);
  }
  // A trial killed while git was adding it leaves a folder and metadata git may not list.
  const treesFolder = resolve(options.treesDir ?? defaultTreesDir(root));
  if (existsSync(treesFolder)) {
    const treesDir = realpathSync(treesFolder);
    const known = new Set(worktrees.map((worktree) => worktree.path));
    for (const entry of listFolder(treesDir)) {
      if (!entry.endsWith(".trial.json")) continue;
      const path = join(treesDir, entry.slice(0, -".trial.json".length));
      if (known.has(path) || isLiveWorktree(path)) continue;
      const trial = readTrialMetadata(path);
      if (!trial || trial.path !== path || !ownerDead(trial)) continue;
      await rm(path, { recursive: true, force: true });
      await rm(trialMetadataPath(path), { force: true });
      report.folders.push(path);
    }
  }
  if (report.folders.length > 0) {
    await gitWorktreeAdmin(root, commonDir, ["worktree", "prune"], { allowFailure: true });
  }
  return report;
}

const deadTrialSweeps = new Map<string, Promise<DeadTrialsReport>>();

/** cleanupDeadTrials, once per process for each repository and trees folder; never throws. */
export function cleanupDeadTrialsOnce(root: string, treesDir?: string): Promise<DeadTrialsReport> {
  const key = `${resolve(root)}\0${resolve(treesDir ?? defaultTreesDir(root))}`;
  let sweep = deadTrialSweeps.get(key);
  if (!sweep) {
    sweep = cleanupDeadTrials(root, treesDir ? { treesDir } : {}).catch(() => ({
      worktrees: [],
      folders: [],
    }));
    deadTrialSweeps.set(key, sweep);
  }
  return sweep;
}

function ownerDead(trial: TrialMetadata): boolean {
  return trial.hostname === hostname() && trial.pid !== process.pid && !isAlive(trial.pid);
}
