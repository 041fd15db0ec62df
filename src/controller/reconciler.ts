import type { Logger } from "pino";
import type { KubeObject, ObjectKey } from "../api/index.ts";
import type { InformerCache } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import type { EventRecorder } from "../events/index.ts";
import type { QueueReason } from "../queue/index.ts";
import type { Action } from "./action.ts";
import type { ControllerMetrics } from "./metrics.ts";

/**
 * Which object to reconcile: a key, never an event. The reconciler reads the current state
 * itself (`ctx.object`, the cache, or the client) and converges it, whatever happened before.
 */
export interface Request {
  /** `namespace/name`, or `name` for cluster-scoped kinds. */
  readonly key: ObjectKey;
  readonly namespace?: string;
  readonly name: string;
}

/** Everything a reconcile gets besides the key. */
export interface ReconcileContext<T extends KubeObject> {
  /** The key being reconciled. */
  readonly request: Request;
  /** The primary object as the cache holds it when the reconcile starts; undefined when it is gone. */
  readonly object: T | undefined;
  /** The API client (writes, and reads that must not be stale). */
  readonly client: Client;
  /** The shared informer cache (reads of watched kinds). */
  readonly cache: InformerCache;
  /** Logger carrying controller, namespace, name and reconcileID. */
  readonly log: Logger;
  /** Records events.k8s.io/v1 events about objects; never blocks or throws. */
  readonly recorder: EventRecorder;
  /** Why the key was queued (coalesced): e.g. `owned:ConfigMap:delete`, `resync`, `retry`. */
  readonly triggers: readonly QueueReason[];
  /** Unique ID of this reconcile, also in every log line. */
  readonly reconcileID: string;
  /** Name of the controller. */
  readonly controller: string;
  /** The controller's metrics hooks (e.g. `driftRepaired`). */
  readonly metrics: ControllerMetrics;
  /** Aborts when the manager shuts down past its grace period, or leadership is lost. */
  readonly signal: AbortSignal;
}

/**
 * A reconciler: one async function. Return nothing or an {@link Action}; throw to retry with
 * per-key backoff (or throw a `TerminalError` to stop retrying).
 */
export type Reconciler<T extends KubeObject> = (
  request: Request,
  ctx: ReconcileContext<T>,
) => Promise<Action | undefined>;
