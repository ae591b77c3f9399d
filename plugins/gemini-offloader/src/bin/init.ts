import { runScript } from "../cli/run-script.js";
import { INIT_USAGE, initCommand } from "../commands/init.js";
import { createContext } from "../context.js";

void runScript(INIT_USAGE, (argv) => initCommand(argv, createContext()));
