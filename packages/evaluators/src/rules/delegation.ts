import { isBookkeepingTool, MAIN_AGENT, type ToolCallView } from "@evals/core";
import { z } from "zod";
import { defineRule, type RuleOutcome } from "../define-rule.js";
import { pointerTo, RuleOptionsBaseSchema } from "../evaluator.js";
import { normalizePath } from "../paths.js";
import { describeCall, filePathOf, isDelegationTool, isFileWriteTool } from "../tools.js";

export const DELEGATION = "delegation";

/** Calls that organize work rather than do it. */
export const DelegationOptionsSchema = RuleOptionsBaseSchema.extend({
  /** Work calls the main agent may make itself before it should have delegated (default 15). */
  maxToolCalls: z.number().int().nonnegative().optional(),
  /** Distinct files the main agent may write itself before it should have delegated (default 5). */
  maxFiles: z.number().int().nonnegative().optional(),
}).strict();

/**
 * delegation: work over a size threshold (tool calls or files written by the main agent) goes through
 * Agent/Task. Reports every delegation with its subagent type and how many calls the subagent made, and
 * flags delegations that failed. Violations are warnings unless `severity` says otherwise.
 */
export const delegationRule = defineRule({
  id: DELEGATION,
  summary:
    "Work over a size threshold (tool calls or files written by the main agent) goes through Agent/Task.",
  options: DelegationOptionsSchema,
  visit(options, { index, evidence, violate, violations }) {
    const maxCalls = options.maxToolCalls ?? 15;
    const maxFiles = options.maxFiles ?? 5;
    /** The Agent/Task calls, in order: each is reported. */
    const attempts: ToolCallView[] = [];
    // A denied Agent/Task call delegated nothing: it was attempted, not made.
    let delegations = 0;
    let work = 0;
    const files = new Set<string>();
    let crossedAt: ToolCallView | undefined;
    let delegatedFirst = false;
    const callsByAgent = new Map<string, number>();

    const visitCall = (call: ToolCallView): void => {
      callsByAgent.set(call.agent, (callsByAgent.get(call.agent) ?? 0) + 1);
      if (isDelegationTool(call.name)) {
        attempts.push(call);
        if (call.status !== "denied") delegations++;
      }
      if (call.agent !== MAIN_AGENT) return;
      if (isDelegationTool(call.name)) {
        if (!crossedAt && call.status !== "denied") delegatedFirst = true;
        return;
      }
      if (isBookkeepingTool(call.name)) return;
      work++;
      const path = isFileWriteTool(call.name) ? filePathOf(call) : undefined;
      if (path) files.add(normalizePath(path, index.cwd));
      if (!crossedAt && (work > maxCalls || files.size > maxFiles)) crossedAt = call;
    };

    const end = (): RuleOutcome => {
      if (crossedAt && delegations === 0) {
        violate(
          "should-delegate",
          "warning",
          `The main agent did ${work} tool calls and wrote ${files.size} files itself (thresholds ${maxCalls} calls, ${maxFiles} files) without delegating through Agent/Task`,
          pointerTo(crossedAt),
          { workCalls: work, filesWritten: files.size, maxToolCalls: maxCalls, maxFiles },
        );
      }

      // Subagents by the call that started them (the agents know the parent tool_use_id).
      const agentByCall = new Map<string, { id: string; type: string }>();
      for (const agent of index.agents.values()) {
        if (agent.parent_tool_use_id)
          agentByCall.set(agent.parent_tool_use_id, { id: agent.id, type: agent.type });
      }
      for (const call of attempts) {
        const subagent = agentByCall.get(call.id);
        const type =
          subagent?.type ??
          (typeof call.input.subagent_type === "string" ? call.input.subagent_type : "subagent");
        const made = subagent ? (callsByAgent.get(subagent.id) ?? 0) : undefined;
        evidence.add(() => ({
          type: "delegated",
          description: `${describeCall(call)} -> ${type}${subagent ? ` (${subagent.id}, ${made} tool calls)` : ""}: ${call.status}`,
          pointer: pointerTo(call),
          data: { subagent: subagent?.id, type, toolCalls: made, status: call.status },
        }));
        if (call.status === "error" || call.status === "denied") {
          const why = call.status === "denied" ? "was denied (never ran)" : "failed";
          violate(
            "delegation-failed",
            "warning",
            `${describeCall(call)} ${why}: ${call.result?.error ?? "error result"}`,
            pointerTo(call),
          );
        }
      }
      return {
        score: violations.some((item) => item.type === "should-delegate") ? 0 : 1,
        metadata: {
          mainWorkCalls: work,
          mainFilesWritten: files.size,
          delegations,
          delegatedBeforeThreshold: delegatedFirst,
        },
      };
    };
    return { call: visitCall, end };
  },
});

/** delegation as a function: `delegationRule.check`. */
export const delegation = delegationRule.check;
