/**
 * What the client's verbs take and give back: the client's own options, the options of reads,
 * lists, writes, patches, applies, deletes and watch requests, list pages, and the status writer.
 */
import type { ApplyObject, KubeObject, ResourceType } from "../api/index.ts";
import type { Clock } from "../clock/index.ts";
import type { ClientMetrics } from "./metrics.ts";
import type { ApiRequest } from "./transport.ts";

/** Options of a {@link Client}. */
export interface ClientOptions {
  /**
   * Average requests per second allowed by a client-side limiter. Default: none, as in
   * controller-runtime since 0.21 — the apiserver's priority and fairness paces its clients, and a
   * `429` is sent again after its `Retry-After`. Measured (test/e2e/cluster/restart.test.ts), a
   * limit of 20 qps kept the reference operators from their outputs for 10 s longer after an
   * apiserver restart. `Infinity` also means none.
   */
  qps?: number;
  /** Burst allowed by the limiter, when `qps` sets one. Default 30. */
  burst?: number;
  /** Field manager recorded in `managedFields` for writes. Default `kubeloop`. */
  fieldManager?: string;
  /** Default request timeout. Default 60 s. */
  timeoutMs?: number;
  /** Observes every attempt (for `rest_client_*` metrics). */
  metrics?: ClientMetrics;
  /** Called with each `Warning` header the apiserver sends (deprecations, unknown fields). */
  onWarning?: (warning: string, request: ApiRequest) => void;
  clock?: Clock;
  userAgent?: string;
}

/** Options shared by the single-object verbs. */
export interface ObjectOptions {
  /** Namespace of a namespaced object; default: the object's own, else the connection's default. */
  namespace?: string;
  signal?: AbortSignal;
}

/** Options of writes. */
export interface WriteOptions extends ObjectOptions {
  /** Override the client's field manager for this write. */
  fieldManager?: string;
  /** Validate and return the result without persisting it (`dryRun=All`). */
  dryRun?: boolean;
  /** How the server treats unknown or duplicate fields. */
  fieldValidation?: "Ignore" | "Warn" | "Strict";
}

/** Options of a list. */
export interface ListOptions {
  /** Namespace to list in; absent lists across all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Only the objects whose hash falls in these ranges (`kubeloop/sharding`'s `shardSelector`);
   * served where the apiserver has the `ShardedListAndWatch` feature gate on, which the answer's
   * `shardInfo` confirms. Elsewhere the server ignores it and answers every object.
   */
  shardSelector?: string;
  /** Page size; `list` follows `continue` until the end. Default 500. */
  limit?: number;
  /** `resourceVersion` to list at (`"0"`: any, from the watch cache). */
  resourceVersion?: string;
  resourceVersionMatch?: "NotOlderThan" | "Exact";
  /** Return only metadata (`PartialObjectMetadata`), which is much smaller for large objects. */
  metadataOnly?: boolean;
  signal?: AbortSignal;
}

/** A list answer: the items plus the collection's resourceVersion (the point to watch from). */
export interface ObjectList<T> {
  items: T[];
  resourceVersion: string;
  /** Present when more pages remain (only from {@link Client.listPage}). */
  continue?: string;
  /**
   * The shard selector the apiserver applied, echoed back; absent when the list was not sharded,
   * or the server ignored {@link ListOptions.shardSelector} (then the items are every object).
   */
  shardInfo?: { selector: string };
}

/** Patch formats. `strategic` works for built-in kinds only; custom resources use `merge` or `json`. */
export type PatchType = "merge" | "json" | "strategic";

/** Options of a delete. */
export interface DeleteOptions extends ObjectOptions {
  /** `Background` (default for most kinds), `Foreground` or `Orphan`. Jobs orphan their pods unless told. */
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
  /** Delete only if the object still has this uid and/or resourceVersion. */
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

/** Options of a server-side apply. */
export interface ApplyOptions extends ObjectOptions {
  /** Field manager owning the applied fields. Default: the client's. */
  fieldManager?: string;
  /** Take ownership of fields other managers own instead of failing with a conflict. */
  force?: boolean;
  dryRun?: boolean;
}

/** Options of a watch request (the streaming part is in `kubeloop/watch`). */
export interface WatchRequestOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** As {@link ListOptions.shardSelector}: only events of objects in these hash ranges, where served. */
  shardSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "NotOlderThan";
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
  /** Stream only metadata (`PartialObjectMetadata`). */
  metadataOnly?: boolean;
  signal?: AbortSignal;
}

/** Writes to the `status` subresource: only `.status` is taken from the body; spec and metadata are ignored. */
export interface StatusWriter {
  get<T extends KubeObject>(type: ResourceType<T>, name: string, opts?: ObjectOptions): Promise<T>;
  update<T extends KubeObject>(type: ResourceType<T>, obj: T, opts?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(
    type: ResourceType<T>,
    name: string,
    patch: unknown,
    opts: WriteOptions & { type: PatchType },
  ): Promise<T>;
  /** Server-side apply of `.status`; `obj` is an apply configuration, as {@link Client.apply} takes. */
  apply<T extends KubeObject>(type: ResourceType<T>, obj: ApplyObject<T>, opts?: ApplyOptions): Promise<T>;
}
