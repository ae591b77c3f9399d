import {
  hasTool,
  lastToolResult,
  type MessagesRequest,
  type ModelReply,
  type RequestContentBlock,
  reply,
  type ScriptFunction,
  systemText,
  text,
  toolUse,
} from "@evals/vcr";

/**
 * Scripted agents: what a model does at each step of a conversation, written down. They stand in
 * for the real model when a recording is made without an API key; the recording proxy stores the
 * real CLI's requests and the scripted answers, and replays need only the recording.
 *
 * A scripted agent is driven by what the CLI sends: it looks for the plugin's skill in the skill
 * listing before calling it, takes the scripts' paths from the SKILL.md text the CLI loaded (so it
 * runs exactly the commands SKILL.md documents), and reads the scripts' JSON output to decide what
 * to say. A plan is a list of steps per user turn; each step is one model message.
 */

/** The skill as Claude Code lists a plugin's skill: `<plugin>:<skill>`. */
export const SKILL_NAME = "gemini-offloader:gemini-offloader";

export type ScriptName = "launcher" | "init" | "query" | "session" | "memory" | "status" | "sync";

/** What a step sees: the turn's prompt, the scripts' commands, the last tool result. */
export interface StepContext {
  request: MessagesRequest;
  /** The user's prompt of the current turn (from the case). */
  prompt: string;
  /** `node <plugin>/dist/<name>.js`, with the plugin path the loaded SKILL.md gave. */
  script(name: ScriptName): string;
  /** The last tool result: its text, its JSON (a script's output) when it parses, and is_error. */
  last: { text: string; json: Record<string, unknown> | undefined; isError: boolean } | undefined;
}

/** One model message: a Skill call, a Bash command, another tool call, or the turn's final answer. */
export type Step =
  | { skill: string }
  | { bash: (context: StepContext) => string; description: string; timeout?: number }
  | { tool: string; input: (context: StepContext) => Record<string, unknown> }
  | { say: (context: StepContext) => string };

/** A scripted agent: its steps for each user turn (each turn ends with a `say`). */
export interface AgentPlan {
  /** What the agent is, for the README and failure messages. */
  description: string;
  turns: Step[][];
}

/** Shell-quotes a value for a Bash command (single quotes). */
export function quote(value: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function blocksOf(content: string | RequestContentBlock[]): RequestContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** Where the conversation is: which user turn, and how many model messages into it. */
function position(request: MessagesRequest): { turn: number; step: number } {
  let turn = 0;
  let step = 0;
  for (const message of request.messages ?? []) {
    if (message.role !== "assistant") continue;
    const calls = blocksOf(message.content).some((block) => block.type === "tool_use");
    if (calls) step++;
    else {
      turn++;
      step = 0;
    }
  }
  return { turn, step };
}

/** Every text the request carries (system prompt and messages): where the skill listing and SKILL.md are. */
function requestText(request: MessagesRequest): string {
  const parts = [systemText(request)];
  for (const message of request.messages ?? []) {
    for (const block of blocksOf(message.content)) {
      if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    }
  }
  return parts.join("\n");
}

/** The plugin folder, from the commands of the SKILL.md the CLI loaded into the conversation. */
export function pluginRootFromSkill(request: MessagesRequest): string | undefined {
  return /node (\S+)\/dist\/launcher\.js/.exec(requestText(request))?.[1];
}

function parseJson(value: string): Record<string, unknown> | undefined {
  // Bash results of a failed command start with "Exit code N".
  const start = value.indexOf("{");
  if (start < 0) return undefined;
  try {
    const parsed = JSON.parse(value.slice(start)) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The model function of a plan, for `scripted(...)`. `prompts` are the case's prompts, one per turn.
 * A step the request does not support (no Skill tool, the skill not listed, scripts called before
 * SKILL.md was loaded) ends the turn with a message saying so, which the suite then reports.
 */
export function scriptedAgent(plan: AgentPlan, prompts: string[]): ScriptFunction {
  return (request) => {
    const { turn, step } = position(request);
    const steps = plan.turns[turn];
    if (!steps) return reply(text(`(scripted agent: no plan for turn ${turn + 1})`));
    const current = steps[Math.min(step, steps.length - 1)]!;
    const result = lastToolResult(request);
    const context: StepContext = {
      request,
      prompt: prompts[turn] ?? "",
      script(name) {
        const root = pluginRootFromSkill(request);
        if (!root)
          throw new StepUnavailable(`the ${SKILL_NAME} skill was not loaded, so its scripts are unknown`);
        return `node ${root}/dist/${name}.js`;
      },
      last: result
        ? { text: result.text, json: parseJson(result.text), isError: result.is_error }
        : undefined,
    };
    try {
      return stepReply(current, context);
    } catch (error) {
      if (error instanceof StepUnavailable) return reply(text(`I cannot do that: ${error.message}.`));
      throw error;
    }
  };
}

class StepUnavailable extends Error {}

function stepReply(step: Step, context: StepContext): ModelReply {
  if ("skill" in step) {
    if (!hasTool(context.request, "Skill")) throw new StepUnavailable("the Skill tool is not offered");
    if (!requestText(context.request).includes(`- ${step.skill}:`)) {
      throw new StepUnavailable(`the skill ${step.skill} is not in the skill listing`);
    }
    return reply(toolUse("Skill", { skill: step.skill }));
  }
  if ("bash" in step) {
    return reply(
      toolUse("Bash", {
        command: step.bash(context),
        description: step.description,
        ...(step.timeout !== undefined ? { timeout: step.timeout } : {}),
      }),
    );
  }
  if ("tool" in step) return reply(toolUse(step.tool, step.input(context)));
  return reply(text(step.say(context)));
}
