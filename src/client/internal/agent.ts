/**
 * undici's `Agent` with its request API, and its header parser, without loading the whole of
 * undici. Its main module
 * also loads fetch, WebSocket, EventSource, caches, mocks and interceptors: 195 ms against 50 ms
 * for these modules alone (Node 20, `await import`, 2026-11-25), a quarter of an operator's
 * start-up. This is how undici's own `index.js` assembles the two (`Object.assign` of the API
 * onto `Dispatcher.prototype`, the same functions, so loading all of undici later changes
 * nothing). The modules are internal to undici, whose version package.json pins exactly; the
 * client's tests exercise every method used.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
Object.assign(require("undici/lib/dispatcher/dispatcher.js").prototype, require("undici/lib/api/index.js"));

/** undici's connection-pooling dispatcher, as `import { Agent } from "undici"` gives it. */
export const Agent: typeof import("undici").Agent = require("undici/lib/dispatcher/agent.js");

/**
 * undici's parser of raw response headers (name/value Buffers in turn): names lower-cased,
 * repeated headers as arrays, names such as `__proto__` kept as plain members.
 */
export const parseHeaders: (raw: Buffer[]) => Record<string, string | string[]> =
  require("undici/lib/core/util.js").parseHeaders;
