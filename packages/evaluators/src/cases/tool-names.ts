import { toolNameFromOpenCode } from "@evals/core";
import type { EvalCase } from "./schema.js";

/** A tool name of a case that was written as OpenCode's tool id and is matched as its canonical name. */
export interface ToolNameMapping {
  /** The field's path in the case (`behavior.mustUseTools.0`). */
  path: (string | number)[];
  from: string;
  to: string;
}

/**
 * Rewrites the OpenCode tool ids of a parsed case (`bash`, `read`, `task`, `list`...) in `agent.tools`,
 * `behavior` and `expectedTrajectory` to the canonical names runs and rules use (`Bash`, `Read`, `Agent`, `LS`), in
 * place, and says which it rewrote. Without this, `mustUseTools: [bash]` would load and match nothing.
 */
export function canonicalizeCaseToolNames(evalCase: EvalCase): ToolNameMapping[] {
  const mappings: ToolNameMapping[] = [];
  const map = (name: string, path: (string | number)[]): string => {
    const to = toolNameFromOpenCode(name);
    if (to === undefined) return name;
    mappings.push({ path, from: name, to });
    return to;
  };
  const tools = evalCase.agent.tools;
  if (tools) evalCase.agent.tools = tools.map((name, k) => map(name, ["agent", "tools", k]));
  const behavior = evalCase.behavior;
  if (behavior) {
    for (const field of ["mustUseTools", "mayUseTools", "mustNotUseTools"] as const) {
      const names = behavior[field];
      if (names) behavior[field] = names.map((name, k) => map(name, ["behavior", field, k]));
    }
    const anyOf = behavior.mustUseAnyOf;
    if (anyOf) {
      behavior.mustUseAnyOf = anyOf.map((group, k) =>
        typeof group === "string"
          ? map(group, ["behavior", "mustUseAnyOf", k])
          : group.map((name, l) => map(name, ["behavior", "mustUseAnyOf", k, l])),
      ) as typeof anyOf;
    }
  }
  const trajectory = evalCase.expectedTrajectory;
  if (trajectory) {
    const steps = Array.isArray(trajectory) ? trajectory : trajectory.calls;
    const base = Array.isArray(trajectory) ? ["expectedTrajectory"] : ["expectedTrajectory", "calls"];
    type Call = string | { tool: string };
    const mapCall = (call: Call, path: (string | number)[]): Call =>
      typeof call === "string" ? map(call, path) : { ...call, tool: map(call.tool, path) };
    const mapped = steps.map((step, k) =>
      Array.isArray(step)
        ? (step as Call[]).map((call, l) => mapCall(call, [...base, k, l]))
        : mapCall(step as Call, [...base, k]),
    ) as typeof steps;
    if (Array.isArray(trajectory)) evalCase.expectedTrajectory = mapped;
    else trajectory.calls = mapped;
  }
  return mappings;
}
