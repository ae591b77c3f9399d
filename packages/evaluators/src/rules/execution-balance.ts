import type { ToolCallView } from "@evals/core";
import { z } from "zod";
import { defineRule, type RuleOutcome } from "../define-rule.js";
import { fraction, pointerTo, RuleOptionsBaseSchema } from "../evaluator.js";
import { describeCall } from "../tools.js";

export const EXECUTION_BALANCE = "execution-balance";

export const ExecutionBalanceOptionsSchema = RuleOptionsBaseSchema.extend({
  /** Reads an agent makes before its first execution (default 1). */
  minReadsBeforeExecution: z.number().int().nonnegative().optional(),
  /** The lowest acceptable reads / executions ratio over the run (default 0.5). */
  minReadRatio: z.number().nonnegative().optional(),
  /**
   * Count every Bash call as an execution, read-only ones too, as OpenAgentsControl does (default
   * false: a read-only command such as `cat` or `ls` counts as a read).
   */
  bashIsExecution: z.boolean().optional(),
  /** Check each agent (main and every subagent) on its own (default true); false checks the run as one. */
  perAgent: z.boolean().optional(),
}).strict();

/** An agent's reads before its first execution, and that execution (the only call kept). */
interface AgentBalance {
  readsBefore: number;
  firstExecution: ToolCallView | undefined;
}

/**
 * execution-balance: an agent looks before it acts. Reads (Read, Glob, Grep, LS, WebFetch, WebSearch,
 * read-only Bash) come before the first execution (Bash that changes something, Write, Edit,
 * MultiEdit, NotebookEdit, Agent/Task), and the run's reads / executions ratio stays sane.
 * Violations are warnings unless `severity` says otherwise.
 */
export const executionBalanceRule = defineRule({
  id: EXECUTION_BALANCE,
  summary: "An agent reads before it first executes, and the run's reads / executions ratio stays sane.",
  options: ExecutionBalanceOptionsSchema,
  visit(options, { index, evidence, violate }) {
    const minReads = options.minReadsBeforeExecution ?? 1;
    const minRatio = options.minReadRatio ?? 0.5;
    /** Per agent ("*" for the run as one), in the order of their first calls. */
    const agents = new Map<string, AgentBalance>();
    let reads = 0;
    let executions = 0;

    const visitCall = (call: ToolCallView): void => {
      const group = options.perAgent === false ? "*" : call.agent;
      let balance = agents.get(group);
      if (!balance) {
        balance = { readsBefore: 0, firstExecution: undefined };
        agents.set(group, balance);
      }
      const kind = options.bashIsExecution && call.name === "Bash" ? "execute" : index.kindOf(call);
      if (kind === "read") {
        reads++;
        if (!balance.firstExecution) balance.readsBefore++;
      } else if (kind === "execute") {
        executions++;
        balance.firstExecution ??= call;
      }
    };

    const end = (): RuleOutcome => {
      let checks = 0;
      let passedChecks = 0;
      // Agent by agent, as each agent's first execution is judged.
      for (const [agent, { readsBefore, firstExecution: call }] of agents) {
        if (!call) continue;
        checks++;
        if (readsBefore >= minReads) {
          passedChecks++;
          evidence.add(() => ({
            type: "reads-first",
            description: `${agent === "*" ? "the run" : `agent ${agent}`} read ${readsBefore}× before ${describeCall(call)}`,
            pointer: pointerTo(call),
          }));
        } else {
          violate(
            "execution-before-read",
            "warning",
            `${describeCall(call)} ran after ${readsBefore} read${readsBefore === 1 ? "" : "s"} (at least ${minReads} expected first)`,
            pointerTo(call),
            { readsBefore, minReads },
          );
        }
      }

      const ratio = executions === 0 ? undefined : reads / executions;
      if (ratio !== undefined) {
        checks++;
        if (ratio >= minRatio) passedChecks++;
        else {
          violate(
            "low-read-ratio",
            "warning",
            `${reads} reads for ${executions} executions (ratio ${ratio.toFixed(2)}, at least ${minRatio} expected)`,
            undefined,
            { reads, executions, ratio, minRatio },
          );
        }
      }
      return { score: fraction(passedChecks, checks), metadata: { reads, executions, ratio } };
    };
    return { call: visitCall, end };
  },
});

/** execution-balance as a function: `executionBalanceRule.check`. */
export const executionBalance = executionBalanceRule.check;
