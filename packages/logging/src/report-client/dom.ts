/// <reference lib="dom" />
/// <reference lib="dom.iterable" />

/**
 * The few DOM helpers the report's script builds its page with. Every piece of data goes on the page
 * through text nodes and attributes, never parsed as HTML.
 */

export type Props = Record<string, unknown>;
export type Child = Node | string | number | null | undefined | false | Child[];

/** An element with its attributes ("class", "text", "style", "on<event>" handlers) and children. */
export function h(tag: string, props?: Props | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") el.className = String(value);
      else if (key === "text") el.textContent = String(value);
      else if (key === "style") el.setAttribute("style", String(value));
      else if (key.startsWith("on") && typeof value === "function") {
        el.addEventListener(key.slice(2), value as EventListener);
      } else el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el: HTMLElement, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** The JSON of a `<script type="application/json">` element of the page (null when it is missing). */
export function readJson<T>(id: string): T | null {
  const text = document.getElementById(id)?.textContent;
  return text ? (JSON.parse(text) as T) : null;
}
