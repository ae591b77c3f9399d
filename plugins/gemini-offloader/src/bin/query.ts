import { runScript } from "../cli/run-script.js";
import { QUERY_USAGE, queryCommand } from "../commands/query.js";
import { createContext } from "../context.js";

void runScript(QUERY_USAGE, (argv) => queryCommand(argv, createContext()));
