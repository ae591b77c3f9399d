// A module resolve hook that tells the main thread every specifier resolved, so a test can see
// whether a module (the Anthropic SDK) was loaded.
let port;
export function initialize(data) {
  port = data.port;
}
export async function resolve(specifier, context, next) {
  port.postMessage(specifier);
  return next(specifier, context);
}
