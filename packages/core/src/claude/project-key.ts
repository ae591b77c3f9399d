/** Longest key Claude Code keeps whole; a longer one is cut here and given a hash of the path. */
const MAX_KEY_LENGTH = 200;

/**
 * The folder name Claude Code gives a project under `<config dir>/projects/` (transcripts, auto
 * memory): the path with every character but ASCII letters and digits turned into "-". When that is
 * longer than 200 characters, its first 200 characters, "-", and the base-36 absolute value of a
 * Java-style string hash of the path (as Claude Code 2.1.330 does, which keeps keys of long paths
 * distinct and short enough for a file name).
 */
export function claudeProjectKey(path: string): string {
  const escaped = path.replace(/[^a-zA-Z0-9]/g, "-");
  if (escaped.length <= MAX_KEY_LENGTH) return escaped;
  return `${escaped.slice(0, MAX_KEY_LENGTH)}-${Math.abs(javaStringHash(path)).toString(36)}`;
}

/** Java's String.hashCode over UTF-16 code units: h = 31 * h + code, in 32-bit integers. */
function javaStringHash(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index++) hash = ((hash << 5) - hash + text.charCodeAt(index)) | 0;
  return hash;
}
