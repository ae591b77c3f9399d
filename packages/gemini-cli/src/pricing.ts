/** The usage figures of a Gemini run (the stream's `result.stats`, summed over the prompts). */
export interface GeminiStats {
  total_tokens?: number;
  input_tokens?: number;
  output_tokens?: number;
  cached?: number;
  input?: number;
  duration_ms?: number;
  tool_calls?: number;
  models?: Record<
    string,
    { input_tokens?: number; output_tokens?: number; cached?: number; total_tokens?: number }
  >;
}

/** USD per million tokens of a model: input (prompt), output (answer and thoughts), cached input. */
export interface GeminiModelPrice {
  input: number;
  output: number;
  cached?: number;
}

/** Prices by model name; a model not listed makes the run's cost unknown (no total_cost_usd). */
export type GeminiPricing = Record<string, GeminiModelPrice>;

/** List prices (USD per million tokens, up to 200k-token prompts) of the models the CLI uses by default. */
export const GEMINI_PRICES: GeminiPricing = {
  "gemini-2.5-pro": { input: 1.25, output: 10, cached: 0.31 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5, cached: 0.075 },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cached: 0.025 },
};

/**
 * The cost of a run from its `result` stats, model by model (the router's calls included), or
 * undefined when a model has no price.
 */
export function costOf(stats: GeminiStats, pricing: GeminiPricing = GEMINI_PRICES): number | undefined {
  const models = Object.entries(stats.models ?? {});
  if (models.length === 0) return stats.total_tokens ? undefined : 0;
  let total = 0;
  for (const [model, tokens] of models) {
    const price = pricing[model];
    if (!price) return undefined;
    const cached = tokens.cached ?? 0;
    const input = Math.max(0, (tokens.input_tokens ?? 0) - cached);
    total +=
      (input * price.input +
        cached * (price.cached ?? price.input) +
        (tokens.output_tokens ?? 0) * price.output) /
      1e6;
  }
  return Math.round(total * 1e6) / 1e6;
}
