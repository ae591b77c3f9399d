import { runScript } from "../cli/run-script.js";
import { SESSION_USAGE, sessionCommand } from "../commands/session.js";
import { createContext } from "../context.js";

void runScript(SESSION_USAGE, (argv) => sessionCommand(argv, createContext()));
