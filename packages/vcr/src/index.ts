export * from "./messages-api.js";
export * from "./model-server.js";
export * from "./script-helpers.js";
export * from "./scripted-source.js";
export * from "./sse.js";
export * from "./wire.js";
