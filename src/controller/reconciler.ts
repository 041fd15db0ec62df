import type { Logger } from "pino";
import type { KubeObject, ObjectKey } from "../api/index.ts";
import type { InformerCache } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import type { Clock } from "../clock/index.ts";
import type { EventRecorder } from "../events/index.ts";
import type { QueueReason } from "../queue/index.ts";
import type { TransitionMetrics } from "../status/index.ts";
import type { Action } from "./action.ts";
import type { OwnedKind } from "./declaration.ts";

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

/** The metrics hook `reportDrift` (`kubeloop/ownership`) calls when `ensureChild` repaired a drift; a reconcile context's `report` fits. */
export interface DriftMetrics {
  /** An owned object changed or deleted by another actor was repaired: `kubeloop_drift_repairs_total{kind,manager}`. */
  driftRepaired(kind: string, manager: string): void;
}

/**
 * What a reconcile may report to the controller's metrics: the outcomes only user code sees. The
 * framework calls that write for you report through it (`ensureChild` a repaired drift,
 * `writeStatus` the condition transitions it wrote); call it yourself only when you do that work
 * by hand. The controller's own metrics (reconciles, errors, workers, queue) are not reachable.
 *
 * @example
 * ```ts
 * ctx.report.conditionTransitioned("Widget", "Ready", "True");
 * ```
 */
export interface ReconcileReporting extends DriftMetrics, TransitionMetrics {}

/** Everything a reconcile gets: the key, the object, and the ports to act and report through. */
export interface ReconcileContext<T extends KubeObject> {
  /** The key being reconciled. */
  readonly request: Request;
  /** The primary object as the cache holds it when the reconcile starts; undefined when it is gone. */
  readonly object: T | undefined;
  /**
   * The API client (writes, and reads that must not be stale), fenced by {@link signal}: once it
   * has aborted, nothing sent through it goes out (a `WriteFencedError`), so a reconcile that
   * goes on after its timeout, its shutdown or the loss of leadership writes nothing more.
   */
  readonly client: Client;
  /** The shared informer cache (reads of watched kinds). */
  readonly cache: InformerCache;
  /**
   * Logger carrying `controller`, `namespace`, `object` (the object's name) and `reconcileID`; its
   * `name` stays the operator's.
   */
  readonly log: Logger;
  /** Records events.k8s.io/v1 events about objects; never blocks or throws. */
  readonly recorder: EventRecorder;
  /** Why the key was queued (coalesced): e.g. `owned:ConfigMap:delete`, `resync`, `retry`. */
  readonly triggers: readonly QueueReason[];
  /** Unique ID of this reconcile, also in every log line. */
  readonly reconcileID: string;
  /** Name of the controller. */
  readonly controller: string;
  /** The controller's clock: read time from it (`ctx.clock.now()`), never from `Date.now()`. */
  readonly clock: Clock;
  /** Reports what this reconcile repaired or changed to the controller's metrics. */
  readonly report: ReconcileReporting;
  /**
   * The kinds the controller declared with `owns()`, each with its informer scope: `ensureChild`
   * reads children through these informers, never starting another.
   */
  readonly owned: readonly OwnedKind[];
  /**
   * Labels `ensureChild` puts on every child of an owner. A sharded manager sets the owner's shard
   * label (its hash bucket) here, so that children are watched by the replica that reconciles
   * their owner; otherwise absent.
   */
  readonly childLabels?: (owner: KubeObject) => Readonly<Record<string, string>>;
  /**
   * Aborts when the manager shuts down past its grace period, when leadership is lost, or when
   * the reconcile runs past `reconciliationTimeoutMs` (with a `ReconcileTimeoutError`). Pass it to
   * every call that waits.
   */
  readonly signal: AbortSignal;
}

/**
 * A reconciler: one async function of the {@link ReconcileContext} (the key is `ctx.request`).
 * Return nothing or an {@link Action}; throw to retry with per-key backoff (or throw a
 * `TerminalError` to stop retrying).
 *
 * @example
 * ```ts
 * const reconcileWidget: Reconciler<WidgetObject> = async (ctx) => {
 *   const widget = ctx.object;
 *   if (!widget) return; // deleted
 *   await ensureChild(ctx, widget, ConfigMap, desiredConfigMap(widget));
 *   return Action.requeueAfter(60_000);
 * };
 * ```
 */
export type Reconciler<T extends KubeObject> = (
  ctx: ReconcileContext<T>,
  // biome-ignore lint/suspicious/noConfusingVoidType: lets `async (ctx) => { ...; return; }` be a reconciler
) => Promise<Action | undefined | void>;
