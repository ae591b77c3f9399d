import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type FakeGemini,
  type FakeGeminiRule,
  geminiCliPath,
  offloaderEnv,
  startFakeGemini,
} from "../../src/testing/index.js";

/** The plugin folder (this package), whose built copy every trial installs. */
export const PLUGIN_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The prefix of every trial folder: the replay masks recognise paths under it (see masks.ts). */
export const TRIAL_PREFIX = "go-eval-";

/** What a plugin install needs: the manifest, the skill, and the six built scripts. */
const PLUGIN_FILES = [
  ".claude-plugin",
  "skills",
  ...["launcher", "init", "query", "session", "memory", "status", "sync"].map(
    (script) => `dist/${script}.js`,
  ),
];

/** How Gemini is set up for a trial. */
export interface GeminiSetup {
  /**
   * "ready": the real Gemini CLI against the fake Gemini API with a key it accepts;
   * "missing": no Gemini at all (GEMINI_BIN unset, no `gemini` on PATH);
   * "wrong-key": the real CLI with a key the fake API refuses (HTTP 401).
   */
  state?: "ready" | "missing" | "wrong-key";
  /** Answers of the fake Gemini API (see the plugin's startFakeGemini). */
  rules?: FakeGeminiRule[];
}

/** One trial's folders and servers: the project the agent works in, the plugin, Gemini's side. */
export interface Workspace {
  /** The trial folder: everything below is inside it, and it is deleted at the end. */
  root: string;
  /** The agent's working directory: the user's project (Gemini's project, too). */
  project: string;
  /** The installed plugin (`--plugin-dir`): a copy of the built plugin inside the project. */
  pluginDir: string;
  /** GEMINI_OFFLOADER_BASE: the plugin's cache, sessions and memory. */
  base: string;
  /** The fake Gemini API the real Gemini CLI talks to. */
  gemini: FakeGemini;
  /** The key the fake API accepts. */
  validKey: string;
  /** Environment for the agent (its Bash tool hands it to the scripts). */
  env: Record<string, string>;
  close(): Promise<void>;
}

const VALID_KEY = "fake-gemini-key";

/**
 * Creates a trial's workspace: a fresh project folder (runCase copies the case's fixture into it)
 * with the built plugin installed inside it, an empty offloader base, and the fake Gemini API.
 *
 * The plugin is copied into the project (as Claude Code copies an installed plugin into its plugin
 * cache) so that its path is `<cwd>/.plugins/gemini-offloader`: the VCR masks the working
 * directory in requests and puts the current one back into replayed responses, so a recording made
 * on one machine replays on any other checkout.
 */
export async function createWorkspace(options: { gemini?: GeminiSetup } = {}) {
  assertPluginBuilt();
  const state = options.gemini?.state ?? "ready";
  // The real path: the scripts name the project by it, so Claude must see the same one (macOS's
  // /var is /private/var), or the masked paths of a recording would not line up.
  const root = realpathSync(mkdtempSync(join(tmpdir(), TRIAL_PREFIX)));
  const project = join(root, "project");
  const base = join(root, "offloader");
  const pluginDir = join(project, ".plugins", "gemini-offloader");
  mkdirSync(project, { recursive: true });
  for (const file of PLUGIN_FILES) {
    cpSync(join(PLUGIN_ROOT, file), join(pluginDir, file), { recursive: true });
  }

  const rules: FakeGeminiRule[] = [
    ...(state === "wrong-key"
      ? [
          {
            match: (request: { apiKey: string | null }) => request.apiKey !== VALID_KEY,
            methods: ["streamGenerateContent", "generateContent", "countTokens"],
            status: 401,
            message: "API key not valid. Please pass a valid API key.",
          } satisfies FakeGeminiRule,
        ]
      : []),
    ...(options.gemini?.rules ?? []),
  ];
  const gemini = await startFakeGemini({ rules });
  const scriptEnv = offloaderEnv({
    geminiUrl: gemini.url,
    base,
    geminiBin: state === "missing" ? null : geminiCliPath(),
    apiKey: state === "wrong-key" ? "wrong-gemini-key" : VALID_KEY,
    path: state === "missing" ? pathWithoutGemini() : (process.env.PATH ?? ""),
  });
  // Claude's own HOME and TMPDIR come from runAgent's sandbox; hermetic mode gives Gemini its own.
  const { HOME: _home, TMPDIR: _tmp, LANG: _lang, FORCE_COLOR: _color, ...env } = scriptEnv;
  const workspace: Workspace = {
    root,
    project,
    pluginDir,
    base,
    gemini,
    validKey: VALID_KEY,
    env: env as Record<string, string>,
    async close() {
      await gemini.close();
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
  return workspace;
}

/** PATH without any folder that holds a `gemini` executable (node_modules/.bin under npm and Nx). */
export function pathWithoutGemini(path = process.env.PATH ?? ""): string {
  const kept = path.split(delimiter).filter((folder) => folder && !existsSync(join(folder, "gemini")));
  const nodeDir = dirname(process.execPath);
  if (!kept.includes(nodeDir)) kept.unshift(nodeDir);
  return kept.join(delimiter);
}

function assertPluginBuilt(): void {
  const missing = PLUGIN_FILES.filter((file) => !existsSync(join(PLUGIN_ROOT, file)));
  if (missing.length > 0) {
    throw new Error(
      `The plugin is not built (${missing.join(", ")} missing): run \`npx nx run @evals/gemini-offloader-plugin:build\``,
    );
  }
}

/** Files under a folder, relative to it, sorted (for outcome checks and failure messages). */
export function listFiles(folder: string): string[] {
  if (!existsSync(folder)) return [];
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const relative = prefix ? `${prefix}/${name}` : name;
      if (statSync(path).isDirectory()) walk(path, relative);
      else out.push(relative);
    }
  };
  walk(folder, "");
  return out;
}
