/**
 * @module queue
 *
 * The work queue between watches and reconcilers, with the semantics of client-go's workqueue
 * as controller-runtime uses it. It holds keys (`namespace/name`), never object snapshots: the
 * reconciler reads the latest state itself. Adding a key that is already queued collapses into
 * it, but the queue remembers every reason it was added for (`watch:ConfigMap`, `owner:Job`,
 * `resync`, `retry`, ...) and how many triggers were coalesced, so a reconcile can say why it
 * ran. A key is never handed to two consumers at once: a key added while in flight is queued
 * again, once, when it is done. Failures back off per key ({@link RateLimiter}s compose), and
 * delayed adds keep the sooner time. Keys have priorities, as in controller-runtime's priority
 * queue ({@link NORMAL_PRIORITY} for changes, {@link LOW_PRIORITY} for initial lists and
 * resyncs): FIFO within one, and a key keeps the highest it was added with; unlike
 * controller-runtime's, where the highest goes first until none is left, each priority gets a share
 * of the consumers' time while it waits (2 × as much per 100 points higher), and a key ready for
 * `starvationBoundMs` (10 s) goes next whatever its priority, so low-priority keys never starve
 * ({@link WorkQueue} states the shares and the bound).
 * {@link QueueMetrics} hooks mirror controller-runtime's `workqueue_*` metrics. All time comes
 * from an injected `Clock` (`src/clock`).
 *
 * It is not an event bus (it carries no event types or payloads), not durable or shared between
 * processes, and it does not run workers: how many consumers call `get` is the caller's choice.
 *
 * @example
 * ```ts
 * const queue = new WorkQueue({ clock: systemClock });
 * queue.add("default/web", "watch:Deployment");
 * queue.add("default/db", "resync", { priority: LOW_PRIORITY }); // handed out after default/web
 * for (let item = await queue.get(signal); item; item = await queue.get(signal)) {
 *   try {
 *     await reconcile(item.key); // item.reasons: [{ reason: "watch:Deployment", count: 1 }]
 *     queue.forget(item.key);
 *   } catch {
 *     queue.addRateLimited(item.key, "retry", { priority: item.priority });
 *   } finally {
 *     queue.done(item.key);
 *   }
 * }
 * ```
 */
export * from "./errors.ts";
export * from "./item.ts";
export * from "./metrics.ts";
export * from "./priority.ts";
export * from "./queue.ts";
export * from "./rate-limit.ts";
