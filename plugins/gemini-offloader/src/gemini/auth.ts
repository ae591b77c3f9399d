import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type AuthMethod = "api_key" | "vertex_ai" | "oauth";

export interface AuthState {
  authenticated: boolean;
  method: AuthMethod | null;
}

/**
 * Whether Gemini has credentials, judged without calling it: an API key in the environment or in
 * Gemini's `.env`, Vertex AI settings, or a saved Google login (`oauth_creds.json`).
 */
export function detectAuth(env: NodeJS.ProcessEnv, dotGemini: string): AuthState {
  if (env.GEMINI_API_KEY?.trim() || env.GOOGLE_API_KEY?.trim())
    return { authenticated: true, method: "api_key" };
  if (env.GOOGLE_GENAI_USE_VERTEXAI === "true" && (env.GOOGLE_CLOUD_PROJECT || env.GOOGLE_API_KEY)) {
    return { authenticated: true, method: "vertex_ai" };
  }
  if (dotEnvHasApiKey(join(dotGemini, ".env"))) return { authenticated: true, method: "api_key" };
  if (hasOauthToken(join(dotGemini, "oauth_creds.json"))) return { authenticated: true, method: "oauth" };
  return { authenticated: false, method: null };
}

function dotEnvHasApiKey(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return /^\s*(export\s+)?(GEMINI_API_KEY|GOOGLE_API_KEY)\s*=\s*\S+/m.test(readFileSync(file, "utf8"));
  } catch {
    return false;
  }
}

function hasOauthToken(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    const creds = JSON.parse(readFileSync(file, "utf8")) as {
      access_token?: unknown;
      refresh_token?: unknown;
    };
    return Boolean(creds.refresh_token || creds.access_token);
  } catch {
    return false;
  }
}
