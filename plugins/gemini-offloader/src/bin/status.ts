import { runScript } from "../cli/run-script.js";
import { STATUS_USAGE, statusCommand } from "../commands/status.js";
import { createContext } from "../context.js";

void runScript(STATUS_USAGE, (argv) => statusCommand(argv, createContext()));
