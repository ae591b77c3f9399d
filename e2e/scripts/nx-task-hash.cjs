#!/usr/bin/env node
// Prints, as JSON, the hash Nx computes for each task named on the command line ("project:target"),
// for the workspace in the current directory: the same hash `nx run` uses as its cache key. Nx has no
// CLI command that prints a task's hash without running it, so this uses the functions `nx run`
// itself calls (exported under nx/src/*).
const { createProjectGraphAsync } = require("nx/src/project-graph/project-graph");
const { readNxJson } = require("nx/src/config/nx-json");
const { createTaskGraph } = require("nx/src/tasks-runner/create-task-graph");
const { createTaskHasher } = require("nx/src/hasher/create-task-hasher");
const { getTaskSpecificEnv } = require("nx/src/tasks-runner/task-env");

async function main(taskIds) {
  if (taskIds.length === 0) throw new Error("usage: nx-task-hash.cjs <project:target>...");
  const graph = await createProjectGraphAsync({ exitOnError: false });
  const nxJson = readNxJson();
  const hasher = createTaskHasher(graph, nxJson);
  const hashes = {};
  for (const id of taskIds) {
    const [project, target] = id.split(":");
    if (!graph.nodes[project]) throw new Error(`no project ${project} in the workspace`);
    const taskGraph = createTaskGraph(graph, {}, [project], [target], undefined, {});
    const task = taskGraph.tasks[id];
    if (!task) throw new Error(`no task ${id} (does ${project} have a ${target} target?)`);
    const hash = await hasher.hashTask(task, taskGraph, getTaskSpecificEnv(task, graph));
    hashes[id] = hash.value;
  }
  process.stdout.write(`${JSON.stringify(hashes)}\n`);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
