import { resolve } from "node:path";
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import { compareResults, type ResultsComparison, readResults } from "../src/index.js";

const fixture = (name: string) => resolve(__dirname, "__fixtures__/compare", name);

/**
 * The comparison of the two real find-todos results files (see compare-results.test.ts): A ran the
 * skill (3/3 and 3/3), B's first case ignored it (0/3). The label of B is markup, to be shown as text.
 */
export function findTodosComparison(): ResultsComparison {
  return compareResults(readResults(fixture("a.json")), readResults(fixture("b.json")), {
    labels: ["with skill", "ignores it <b>"],
  });
}

/** What the page (or a part of it) shows of findTodosComparison, checked in the browser. */
export async function expectFindTodosComparison(scope: Page | Locator): Promise<void> {
  // The label is text, not markup.
  await expect(scope.locator("table.cmp thead th").nth(2).textContent()).resolves.toBe("ignores it <b>");
  await expect(scope.locator("tr.cmp-case").count()).resolves.toBe(2);

  const skill = scope.locator("tr.cmp-case", { hasText: "loads the todo-report skill" });
  await expect(skill.getAttribute("data-verdict")).resolves.toBe("worse");
  await expect(skill.locator("td.cmp-diff").textContent()).resolves.toBe("−100% [−100…−21]");
  await expect(skill.locator('td[data-side="A"] .cmp-rate').textContent()).resolves.toBe("3/3 · 100%");
  await expect(skill.locator('td[data-side="B"] .cmp-rate').textContent()).resolves.toBe("0/3 · 0%");
  await expect(skill.locator("td.num").allTextContents()).resolves.toEqual([
    "−2.0",
    "−1.0",
    "−13,755",
    "−1.4s",
  ]);

  // Side by side: A's bar is full, B's empty, each with its interval drawn where it lies.
  const box = async (side: "A" | "B", part: string) =>
    (await skill.locator(`td[data-side="${side}"] ${part}`).boundingBox())!;
  const barA = await box("A", ".cmp-bar");
  const barB = await box("B", ".cmp-bar");
  expect(barB.x).toBeGreaterThan(barA.x + barA.width);
  expect(barB.y).toBeCloseTo(barA.y, 0);
  expect((await box("A", ".cmp-fill")).width).toBeCloseTo(barA.width, 0);
  expect((await box("B", ".cmp-fill")).width).toBe(0);
  const ciB = await box("B", ".cmp-ci");
  expect(ciB.x).toBeCloseTo(barB.x, 0);
  expect(ciB.width / barB.width).toBeCloseTo(0.5615, 2); // Wilson 0/3: [0, 0.5615]
  const ciA = await box("A", ".cmp-ci");
  expect((ciA.x - barA.x) / barA.width).toBeCloseTo(0.4385, 2); // Wilson 3/3: [0.4385, 1]

  const bash = scope.locator("tr.cmp-case", { hasText: "runs grep in Bash" });
  await expect(bash.locator(".cmp-verdict").textContent()).resolves.toBe("within noise");
  await expect(bash.locator("td.cmp-diff").textContent()).resolves.toBe("±0% [−56…+56]");
  const overall = scope.locator("tfoot tr.cmp-overall");
  await expect(overall.locator(".cmp-name").textContent()).resolves.toBe("overall (2 cases)");
  await expect(overall.locator('td[data-side="B"] .cmp-rate').textContent()).resolves.toBe("3/6 · 50%");
  await expect(scope.locator(".cmp-verdict.worse").first().isVisible()).resolves.toBe(true);
}
