import { runScript } from "../cli/run-script.js";
import { MEMORY_USAGE, memoryCommand } from "../commands/memory.js";
import { createContext } from "../context.js";

void runScript(MEMORY_USAGE, (argv) => memoryCommand(argv, createContext()));
