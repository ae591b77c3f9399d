import {
  type EvaluatorResult,
  eventsOfType,
  finalResponse,
  MAIN_AGENT,
  type Run,
  sameTool,
  type ToolCallView,
} from "@evals/core";
import type { BehaviorExpectations } from "../cases/behavior-schema.js";
import { runEvaluator } from "../define-rule.js";
import { fraction, pointerTo } from "../evaluator.js";
import { globToRegExp } from "../patterns.js";
import { kindOf, type RunIndex } from "../run-index.js";
import { parseRegexLiteral } from "../shell.js";
import { approvalRequests } from "../signals.js";
import { describeCall, isDelegationTool, isFileWriteTool, truncate } from "../tools.js";
import { contextLoading } from "./context-loading.js";

export const BEHAVIOR = "behavior";

/**
 * behavior: the case's expectations about tools, approval, context, delegation and the final
 * response. Every unmet expectation is an error; the score is the fraction of expectations met.
 */
export function behavior(run: Run, expectations: BehaviorExpectations = {}): EvaluatorResult {
  return runEvaluator(BEHAVIOR, run, expectations, ({ index, evidence, violations, violate }) => {
    const calls = callsOfAgent(index, expectations.agent ?? "all");
    let checks = 0;
    let failedChecks = 0;
    /** Runs one expectation; it fails when it reported at least one violation. */
    const check = (body: () => void) => {
      const before = violations.length;
      checks++;
      body();
      if (violations.length > before) failedChecks++;
    };
    const fail = (type: string, message: string, call?: ToolCallView, data?: unknown) => {
      violate(type, "error", message, call ? pointerTo(call) : undefined, data);
    };
    const found = (call: ToolCallView, description: string) =>
      evidence.add(() => ({ type: "expectation-met", description, pointer: pointerTo(call) }));

    for (const tool of expectations.mustUseTools ?? []) {
      check(() => {
        const call = calls.find((item) => toolNameMatches(item.name, tool));
        if (call) found(call, `${tool} used`);
        else fail("missing-required-tool", `${tool} was never called`, undefined, { tool });
      });
    }

    const groups = anyOfGroups(expectations.mustUseAnyOf);
    for (const group of groups) {
      check(() => {
        const call = calls.find((item) => group.some((tool) => toolNameMatches(item.name, tool)));
        if (call) found(call, `${call.name} used (one of ${group.join(", ")})`);
        else
          fail("missing-any-of-tools", `none of ${group.join(", ")} was called`, undefined, { tools: group });
      });
    }

    const mayUse = expectations.mayUseTools;
    if (mayUse) {
      check(() => {
        const allowed = [...mayUse, ...(expectations.mustUseTools ?? []), ...groups.flat()];
        const reported = new Set<string>();
        for (const call of calls) {
          if (reported.has(call.name) || allowed.some((tool) => toolNameMatches(call.name, tool))) continue;
          reported.add(call.name);
          fail(
            "tool-not-allowed",
            `${describeCall(call)}: ${call.name} is not among the allowed tools (${allowed.join(", ")})`,
            call,
          );
        }
      });
    }

    for (const tool of expectations.mustNotUseTools ?? []) {
      check(() => {
        for (const call of calls) {
          if (toolNameMatches(call.name, tool))
            fail("forbidden-tool", `${describeCall(call)} was called, but ${tool} must not be used`, call);
        }
      });
    }

    const { minToolCalls, maxToolCalls } = expectations;
    if (minToolCalls !== undefined) {
      check(() => {
        if (calls.length < minToolCalls) {
          fail(
            "too-few-tool-calls",
            `${calls.length} tool calls, at least ${minToolCalls} expected`,
            undefined,
            {
              count: calls.length,
            },
          );
        }
      });
    }
    if (maxToolCalls !== undefined) {
      check(() => {
        if (calls.length > maxToolCalls) {
          fail(
            "too-many-tool-calls",
            `${calls.length} tool calls, at most ${maxToolCalls} expected`,
            calls[maxToolCalls],
            {
              count: calls.length,
            },
          );
        }
      });
    }

    if (expectations.requiresApproval) {
      check(() => {
        const firstRisky = index.calls.find(
          (call) => kindOf(index, call) === "execute" && !isDelegationTool(call.name),
        );
        const request = approvalRequests(index)[0];
        if (!request) fail("approval-not-requested", "the agent never asked for approval", firstRisky);
        else if (firstRisky && request.event_index > firstRisky.index) {
          fail(
            "approval-requested-late",
            `the agent asked for approval ("${request.evidence}", event ${request.event_index}) only after ${describeCall(firstRisky)}`,
            firstRisky,
          );
        } else {
          evidence.add(() => ({
            type: "expectation-met",
            description: `asked for approval: ${request.evidence}`,
            pointer: { event_index: request.event_index, agent: request.agent },
          }));
        }
      });
    }

    const expectedFiles = expectations.expectedContextFiles;
    const hasExpectedFiles = Array.isArray(expectedFiles)
      ? expectedFiles.length > 0
      : expectedFiles !== undefined;
    if (expectations.requiresContext || hasExpectedFiles) {
      check(() => {
        const context = contextLoading(run, {
          required: true,
          ...(expectations.expectedContextFiles
            ? { expectedContextFiles: expectations.expectedContextFiles }
            : {}),
        });
        for (const item of context.violations) {
          const call = item.pointer?.tool_use_id ? index.callById.get(item.pointer.tool_use_id) : undefined;
          fail("context-not-loaded", item.message, call, item.evidence);
        }
      });
    }

    if (expectations.shouldDelegate !== undefined) {
      const shouldDelegate = expectations.shouldDelegate;
      check(() => {
        const delegations = calls.filter((call) => isDelegationTool(call.name) && call.status !== "denied");
        if (shouldDelegate && delegations[0]) found(delegations[0], `delegated ${delegations.length}×`);
        else if (shouldDelegate) {
          const firstWork = calls.find(
            (call) => isFileWriteTool(call.name) || kindOf(index, call) === "execute",
          );
          fail(
            "did-not-delegate",
            "the agent did the work itself instead of delegating through Agent/Task",
            firstWork,
          );
        } else {
          for (const call of delegations) {
            fail(
              "unexpected-delegation",
              `${describeCall(call)}: the agent was expected not to delegate`,
              call,
            );
          }
        }
      });
    }

    if (expectations.expectedResponse) {
      const { contains, notContains, matches, caseSensitive, scope } = expectations.expectedResponse;
      const response =
        scope === "all"
          ? eventsOfType(run, "assistant_text")
              .filter((event) => event.agent === MAIN_AGENT)
              .map((event) => event.text)
              .join("\n")
          : (finalResponse(run) ?? "");
      const what = scope === "all" ? "the agent's text" : "the final response";
      const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
      const haystack = fold(response);
      const shown = JSON.stringify(truncate(response, 200));
      for (const text of list(contains)) {
        check(() => {
          if (!haystack.includes(fold(text))) {
            fail(
              "response-missing-text",
              `${what} does not contain ${JSON.stringify(text)}: ${shown}`,
              undefined,
              {
                expected: text,
              },
            );
          }
        });
      }
      for (const text of list(notContains)) {
        check(() => {
          if (haystack.includes(fold(text))) {
            fail(
              "response-contains-forbidden-text",
              `${what} contains ${JSON.stringify(text)}: ${shown}`,
              undefined,
              {
                forbidden: text,
              },
            );
          }
        });
      }
      for (const pattern of list(matches)) {
        check(() => {
          if (!responsePattern(pattern, caseSensitive).test(response)) {
            fail("response-mismatch", `${what} does not match ${pattern}: ${shown}`, undefined, {
              pattern,
            });
          }
        });
      }
    }

    return {
      score: fraction(checks - failedChecks, checks),
      metadata: { checks, failedChecks, toolCalls: calls.length },
    };
  });
}

/** `/regex/flags`, or a regular expression source (case-insensitive unless caseSensitive). */
function responsePattern(pattern: string, caseSensitive: boolean | undefined): RegExp {
  return parseRegexLiteral(pattern) ?? new RegExp(pattern, caseSensitive ? "" : "i");
}

/** Tool name against a name or a `*` wildcard (`mcp__github__*`); `Task` and `Agent` are one tool. */
export function toolNameMatches(name: string, pattern: string): boolean {
  return pattern.includes("*") ? globToRegExp(pattern).test(name) : sameTool(name, pattern);
}

function anyOfGroups(value: BehaviorExpectations["mustUseAnyOf"]): string[][] {
  if (!value || value.length === 0) return [];
  return typeof value[0] === "string" ? [value as string[]] : (value as string[][]);
}

function list(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : typeof value === "string" ? [value] : value;
}

/** The calls of "all" agents, of "main", or of the subagents with that id or type. */
export function callsOfAgent(index: RunIndex, agent: string): ToolCallView[] {
  if (agent === "all") return index.calls;
  return index.calls.filter((call) => call.agent === agent || index.typeOf.get(call.agent) === agent);
}
