/** How much of an answer the scripts print by default; the whole answer is always saved to a file. */
export const DEFAULT_SUMMARY_CHARS = 4_000;

export interface Summary {
  text: string;
  truncated: boolean;
}

/**
 * The part of an answer that goes back to the agent: all of it when short, else its beginning cut
 * at a paragraph or sentence end, with a note saying where the rest is. Keeps the agent's context
 * small; the full answer is in the file the output names.
 */
export function summarize(response: string, maxChars: number, fullPath: string): Summary {
  if (response.length <= maxChars) return { text: response, truncated: false };
  const head = response.slice(0, maxChars);
  const paragraph = head.lastIndexOf("\n\n");
  const sentence = Math.max(head.lastIndexOf(". "), head.lastIndexOf(".\n"));
  const cut = paragraph > maxChars / 2 ? paragraph : sentence > maxChars / 2 ? sentence + 1 : maxChars;
  const rest = response.length - cut;
  return {
    text: `${response.slice(0, cut).trimEnd()}\n\n[… ${rest} more characters: the full answer (${response.length} characters) is in ${fullPath}]`,
    truncated: true,
  };
}
