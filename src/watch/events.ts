import type { KubeObject } from "../api/index.ts";

/**
 * What a watcher yields. A (re)list is bracketed by `init` … `initApply`* … `initDone`, after
 * which the objects seen are the complete current state (anything not seen is gone); then
 * `apply` (added or modified) and `delete` events follow.
 */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { type: "init" }
  | { type: "initApply"; object: T }
  | { type: "initDone" }
  | { type: "apply"; object: T }
  | { type: "delete"; object: T };

/** Why a watcher listed again or reconnected, as reported to {@link WatchMetrics}. */
export type RestartReason =
  | "start"
  | "expired"
  | "too-large-resource-version"
  | "closed"
  | "error"
  | "inactive"
  | "gap"
  | "error-event";

/** Hooks for watch health; the manager binds them to metrics. All optional. */
export interface WatchMetrics {
  /** An event (including bookmarks) arrived from the server. */
  event?(type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR"): void;
  /** Bytes of watch responses arrived from the server (counted as they arrive, per chunk). */
  bytes?(count: number): void;
  /** A full list started. */
  relist?(reason: RestartReason): void;
  /** The watch connection was re-established from the last resourceVersion. */
  reconnect?(reason: RestartReason): void;
  /** A failure that will be retried after `delayMs`. */
  retry?(error: unknown, delayMs: number): void;
  /**
   * An object outside the watch's shard arrived and was dropped: the server ignored the shard
   * selector (feature gate off, an older apiserver, or a proxy that drops it), so the watcher
   * filters on the client.
   */
  outsideShard?(): void;
}
