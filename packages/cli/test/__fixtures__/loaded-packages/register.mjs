// `node --import <this file>`: writes the URL of every module the process imports, one a line, to the
// file named by LOADED_MODULES_FILE (the module hooks run on a thread of their own; a file written
// synchronously keeps every line, even when the process exits right away).
import { register } from "node:module";

register("./hooks.mjs", import.meta.url, { data: { file: process.env.LOADED_MODULES_FILE } });
