// Empties dist/ before the JavaScript build: the scripts and the library are two tsup builds sharing
// it. The declaration files stay: they are the build-dts target's outputs (`tsup --dts-only`).
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const isDeclaration = (name) => /\.d\.[cm]?ts$/.test(name);
if (existsSync(dist)) {
  for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && !isDeclaration(entry.name))
      rmSync(join(entry.parentPath ?? entry.path, entry.name));
  }
}
