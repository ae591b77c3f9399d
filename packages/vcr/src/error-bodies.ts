import { geminiErrorBody } from "./gemini-api.js";
import { errorBody } from "./messages-api.js";
import { responsesErrorBody } from "./responses-api.js";
import { geminiCallOf, modelApiOfPath } from "./wire.js";

/** An API error body in the format of the API the path belongs to (Anthropic's by default). */
export function errorBodyFor(path: string, status: number, message: string, errorType?: string): unknown {
  if (geminiCallOf(path)) return geminiErrorBody(status, message);
  return modelApiOfPath(path) === "openai-responses"
    ? responsesErrorBody(status, message, errorType)
    : errorBody(status, message, errorType);
}
