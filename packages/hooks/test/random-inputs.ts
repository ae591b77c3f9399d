import { fixtureHookInputs } from "./fixtures.js";

/** A small seeded PRNG (mulberry32), so the "random" inputs are the same on every run. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BadInput {
  label: string;
  stdin: Buffer;
  /** Whether the hook should capture it (a JSON object with a non-empty string hook_event_name). */
  capturable: boolean;
}

/** `count` malformed, random or odd stdin payloads, deterministic for a seed. */
export function badInputs(count: number, seed = 20_330): BadInput[] {
  const random = prng(seed);
  const int = (max: number) => Math.floor(random() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const payloads = [...fixtureHookInputs("multi-tool"), ...fixtureHookInputs("subagent")].map((input) =>
    JSON.stringify(input),
  );
  const text = (value: string): Buffer => Buffer.from(value, "utf8");

  const makers: [string, () => Buffer][] = [
    ["empty", () => text("")],
    ["whitespace", () => text(pick([" ", "\n", "\r\n\t  ", "\n\n\n"]))],
    ["random bytes", () => Buffer.from(Array.from({ length: 1 + int(2000) }, () => int(256)))],
    [
      "cut payload",
      () => {
        const payload = pick(payloads);
        return text(payload.slice(0, int(payload.length - 1)));
      },
    ],
    ["payload with garbage after", () => text(`${pick(payloads)}${pick(["x", "}", "{}", ",", "]"])}`)],
    [
      "primitive",
      () => text(pick(["0", "-1.5e300", '"PreToolUse"', "null", "true", "false", "[]", "[1,2,3]", '""'])),
    ],
    [
      "object without event name",
      () => text(JSON.stringify({ session_id: "s", cwd: "/x", tool_name: "Bash" })),
    ],
    [
      "non-string event name",
      () => text(JSON.stringify({ hook_event_name: pick([1, null, true, {}, [], ""]) })),
    ],
    ["deep nesting", () => text(`${"[".repeat(1000 + int(100_000))}${"]".repeat(int(2) ? 0 : 1)}`)],
    [
      "deep object event",
      () => {
        let value: unknown = "leaf";
        for (let i = 0; i < 2000; i++) value = { a: value };
        return text(JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "X", tool_input: value }));
      },
    ],
    [
      "wrong field types",
      () =>
        text(
          JSON.stringify({
            hook_event_name: pick(["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"]),
            tool_name: pick([42, null, "Bash"]),
            tool_input: pick(["ls", 7, null, [1], { ok: true }]),
            session_id: pick([1, "s"]),
          }),
        ),
    ],
    ["unknown event", () => text(JSON.stringify({ hook_event_name: `Future${int(1000)}`, x: random() }))],
    [
      "__proto__ keys",
      () =>
        text(
          '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"__proto__":{"polluted":1},"constructor":{"prototype":1}}}',
        ),
    ],
    [
      "invalid utf-8 in strings",
      () =>
        Buffer.concat([
          Buffer.from('{"hook_event_name":"Stop","last_assistant_message":"'),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from('"}'),
        ]),
    ],
    [
      "control characters",
      () => text(`{"hook_event_name":"Notification","message":"a\\u0000b\\u001f\\ud800"}`),
    ],
    ["BOM", () => text(`\ufeff${pick(payloads)}`)],
    [
      "valid payload, mutated byte",
      () => {
        const payload = Buffer.from(pick(payloads));
        payload[int(payload.length)] = int(256);
        return payload;
      },
    ],
    [
      "many keys",
      () =>
        text(
          JSON.stringify({
            hook_event_name: "PreToolUse",
            tool_name: "Bash",
            tool_input: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])),
          }),
        ),
    ],
  ];

  return Array.from({ length: count }, (_, index) => {
    const [label, make] = makers[index % makers.length] as [string, () => Buffer];
    const stdin = make();
    return { label: `${index} ${label}`, stdin, capturable: isCapturable(stdin) };
  });
}

/** The hook's rule: a JSON object whose hook_event_name is a non-empty string. */
function isCapturable(stdin: Buffer): boolean {
  try {
    const value = JSON.parse(stdin.toString("utf8")) as unknown;
    return (
      value !== null &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      typeof (value as { hook_event_name?: unknown }).hook_event_name === "string" &&
      (value as { hook_event_name: string }).hook_event_name !== ""
    );
  } catch {
    return false;
  }
}
