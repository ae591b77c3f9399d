import { type Run, runSummary } from "@evals/core";

/** What a judge reads of a run: the question the agent was asked, and its final answer. */
export interface JudgedText {
  question: string;
  answer: string;
}

/** Stands for the run's working directory in judged text, so a replay in another folder matches. */
export const CWD_PLACEHOLDER = "<cwd>";

/**
 * The run's prompts (the user's messages to the main agent, in order) and its final answer (the
 * result line's text, else the main agent's last text), with the run's working directory masked.
 */
export function judgedText(run: Run): JudgedText {
  const prompts = run.events
    .filter((event) => event.type === "user_message" && event.agent === "main" && !event.notification)
    .map((event) => (event as { text: string }).text);
  return {
    question: maskCwd(prompts.join("\n\n"), run.cwd),
    answer: maskCwd(runSummary(run).final_text ?? "", run.cwd),
  };
}

/** `text` with every occurrence of `cwd` replaced by `<cwd>`. */
export function maskCwd(text: string, cwd: string | undefined): string {
  if (!cwd || cwd === "/") return text;
  return text.split(cwd).join(CWD_PLACEHOLDER);
}
