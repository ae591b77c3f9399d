import { runScript } from "../cli/run-script.js";
import { SYNC_USAGE, syncCommand } from "../commands/sync.js";
import { createContext } from "../context.js";

void runScript(SYNC_USAGE, (argv) => syncCommand(argv, createContext()));
