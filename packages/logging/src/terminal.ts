/** What a console stream can show: colors, a redrawable status line. */

export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/**
 * Whether to color output: NO_COLOR (any value) turns colors off, FORCE_COLOR=0 too; FORCE_COLOR
 * with another value turns them on; otherwise colors are on for a terminal.
 */
export function shouldUseColor(stream: OutputStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

export type Paint = (text: string) => string;

export interface Palette {
  green: Paint;
  red: Paint;
  yellow: Paint;
  blue: Paint;
  magenta: Paint;
  cyan: Paint;
  gray: Paint;
  bold: Paint;
  dim: Paint;
}

const code =
  (open: number, close: number): Paint =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`;

const plain: Paint = (text) => text;

export function palette(color: boolean): Palette {
  if (!color) {
    return {
      green: plain,
      red: plain,
      yellow: plain,
      blue: plain,
      magenta: plain,
      cyan: plain,
      gray: plain,
      bold: plain,
      dim: plain,
    };
  }
  return {
    green: code(32, 39),
    red: code(31, 39),
    yellow: code(33, 39),
    blue: code(34, 39),
    magenta: code(35, 39),
    cyan: code(36, 39),
    gray: code(90, 39),
    bold: code(1, 22),
    dim: code(2, 22),
  };
}

const ANSI = /\u001b\[[0-9;]*m/g;

/** The text without color codes. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** Display width of a line (color codes excluded; every character counts as one column). */
export function visibleLength(text: string): number {
  return [...stripAnsi(text)].length;
}
