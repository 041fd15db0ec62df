/**
 * undici's `Agent` with its request API, and its header parser, without loading the whole of
 * undici. Its main module
 * also loads fetch, WebSocket, EventSource, caches, mocks and interceptors: 195 ms against 50 ms
 * for these modules alone (Node 20, `await import`, 2026-11-25), a quarter of an operator's
 * start-up. This is how undici's own `index.js` assembles the two (`Object.assign` of the API
 * onto `Dispatcher.prototype`, the same functions, so loading all of undici later changes
 * nothing). The modules are internal to undici, whose version package.json pins exactly; the
 * client's tests exercise every method used. They are imported statically (Node gives a CommonJS
 * module's `module.exports` as the default export), not through `createRequire`, so that a bundler
 * (`kubeloop build`) follows them into the bundle; their types are declared in `undici-internals.d.ts`.
 */

import requestApi from "undici/lib/api/index.js";
import undiciUtil from "undici/lib/core/util.js";
import UndiciAgent from "undici/lib/dispatcher/agent.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";

Object.assign(Dispatcher.prototype, requestApi);

/** undici's connection-pooling dispatcher, as `import { Agent } from "undici"` gives it. */
export const Agent: typeof import("undici").Agent = UndiciAgent;

/**
 * undici's parser of raw response headers (name/value Buffers in turn): names lower-cased,
 * repeated headers as arrays, names such as `__proto__` kept as plain members.
 */
export const parseHeaders: (raw: Buffer[]) => Record<string, string | string[]> = undiciUtil.parseHeaders;
