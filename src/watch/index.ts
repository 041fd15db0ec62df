/**
 * @module watch
 *
 * Resumable watches. {@link watch} turns a kind (optionally one namespace and label/field
 * selectors) into an endless async stream of {@link WatchEvent}s that survives what kills naive
 * watches: it streams the initial state (`sendInitialEvents`, falling back to a list at once when
 * the streaming attempt fails in any way, as client-go does) or lists it in pages, watches from
 * that resourceVersion with bookmarks and a randomised 5–10 min timeout, resumes from the last
 * resourceVersion after a clean close or a network error (exponential backoff with jitter, no
 * hot loop), lists again after `410 Expired` or a too-large resourceVersion, reconnects a watch
 * that goes silent (no event or bookmark within `inactivityMs`), and does not trust what arrives
 * after a gap longer than a bookmark interval (`gapMs`): it resumes from the resourceVersion seen
 * before the gap, so that the apiserver replays what the gap may have lost. A watcher may receive one
 * shard of the kind (`shard`: hash ranges of `metadata.uid` or `metadata.namespace`), asked of the
 * server and checked on the client.
 *
 * Not a cache: `kubeloop/cache` folds these events into a store and fans them out to handlers.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * for await (const event of watch(client, ConfigMap, { namespace: "default", signal: controller.signal })) {
 *   if (event.type === "apply") console.log("now", event.object.metadata.name);
 *   if (event.type === "delete") console.log("gone", event.object.metadata.name);
 * }
 * ```
 */
export { Backoff } from "./backoff.ts";
export { WatchClosedEarlyError, WatchInactiveError } from "./errors.ts";
export type { RestartReason, WatchEvent, WatchMetrics } from "./events.ts";
export { decodeLines, type RawWatchEvent } from "./lines.ts";
export { type WatchClient, type WatcherOptions, type WatchShard, watch } from "./watcher.ts";
