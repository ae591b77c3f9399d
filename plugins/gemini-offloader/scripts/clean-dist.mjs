// Removes dist/ before a build: the scripts and the library are two tsup builds sharing it.
import { rmSync } from "node:fs";

rmSync(new URL("../dist/", import.meta.url), { recursive: true, force: true });
