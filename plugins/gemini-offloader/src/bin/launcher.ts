import { runScript } from "../cli/run-script.js";
import { LAUNCHER_USAGE, launcherCommand } from "../commands/launcher.js";
import { createContext } from "../context.js";

void runScript(LAUNCHER_USAGE, (argv) => launcherCommand(argv, createContext()));
