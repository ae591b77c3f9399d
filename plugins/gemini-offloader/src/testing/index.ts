export * from "./fake-gemini.js";
export * from "./offloader-env.js";
