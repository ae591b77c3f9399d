/**
 * Bounding the nesting of a hook input: JSON.stringify (and every recursive walk) overflows the
 * stack near 4,500 levels, so deeper parts are cut, at capture (the Node hook) and at read time
 * (raw lines of the shell hook). No imports: the hook executable bundles this file.
 */

/** Containers nested deeper than this are replaced by a marker (JSON.stringify fails near 4,500). */
export const MAX_EVENT_DEPTH = 256;

/** What replaces a container nested too deep. */
export function depthMarker(maxDepth: number): string {
  return `…[truncated by evals-hook: nested deeper than ${maxDepth} levels]`;
}

/**
 * Replaces, in place, every object or array nested deeper than `maxDepth` below `value` by a
 * marker string, without recursion (any depth is safe). Returns the paths of what was cut.
 */
export function limitDepth(value: unknown, maxDepth = MAX_EVENT_DEPTH, rootPath = "event"): string[] {
  const cut: string[] = [];
  if (value === null || typeof value !== "object") return cut;
  const stack: { node: Record<string, unknown>; depth: number; path: string }[] = [
    { node: value as Record<string, unknown>, depth: 1, path: rootPath },
  ];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop() as (typeof stack)[number];
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (child === null || typeof child !== "object") continue;
      const childPath = Array.isArray(node)
        ? `${path}[${key}]`
        : IDENTIFIER.test(key)
          ? `${path}.${key}`
          : `${path}[${JSON.stringify(key)}]`;
      if (depth >= maxDepth) {
        Object.defineProperty(node, key, {
          value: depthMarker(maxDepth),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        // A path as deep as the cut is as long as the payload: keep its start.
        cut.push(childPath.length > 300 ? `${childPath.slice(0, 300)}…` : childPath);
      } else {
        stack.push({ node: child as Record<string, unknown>, depth: depth + 1, path: childPath });
      }
    }
  }
  return cut;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
