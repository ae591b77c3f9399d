// The public API of @evals/viewer: the server behind `evals view`.
export { PortUnavailableError, startViewer, type Viewer, type ViewerOptions } from "./server.js";
