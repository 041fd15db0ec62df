/**
 * Types of the undici modules `agent.ts` imports by path (undici ships types for its main module
 * only): the CommonJS `module.exports` of each, as Node gives it to an ES module.
 */
declare module "undici/lib/dispatcher/agent.js" {
  const Agent: typeof import("undici").Agent;
  export default Agent;
}
declare module "undici/lib/dispatcher/dispatcher.js" {
  const Dispatcher: typeof import("undici").Dispatcher;
  export default Dispatcher;
}
declare module "undici/lib/api/index.js" {
  const api: Record<string, unknown>;
  export default api;
}
declare module "undici/lib/core/util.js" {
  const util: { parseHeaders(raw: Buffer[]): Record<string, string | string[]> };
  export default util;
}
