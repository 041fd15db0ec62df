/**
 * @module controller
 *
 * Level-triggered controllers. A controller watches its primary kind and the kinds it owns or
 * depends on, turns every change into a key in a work queue, and runs a {@link Reconciler} for
 * each key: one async function that reads the current state and converges it. Errors back off
 * per key, {@link TerminalError}s stop retrying, and each failure but a routine one (a 409
 * conflict, an apiserver away) is told on the object as a Warning event (reason `ReconcileError`,
 * repeats aggregated into one Event's series). A child the apiserver refuses as invalid
 * (`InvalidChildError` from `ensureChild`) stops retrying too, and on a kind with a condition set
 * turns its summary False with reason `InvalidChild` and `Stalled=True`, until the object or a
 * watched input changes; there, a key whose reconciles keep failing turns the summary False with
 * reason `ReconcileFailed` and `Reconciling=True`, saying since when and the last error
 * (`showFailingAfter`). A reconcile may have a timeout (`reconciliationTimeoutMs`), and its
 * `ctx.client` writes nothing once its `ctx.signal` aborted. {@link Action.requeueAfter} polls, {@link Action.requeue} comes back
 * after a rate-limited backoff, and a periodic resync (10 h by default) re-queues everything so a
 * missed event is still repaired.
 * The {@link ControllerBuilder} (`controller(manager).for(...).owns(...).watches(...)`) declares a
 * controller and hands it to a {@link ControllerHost} (the manager), which builds the
 * {@link Controller} on its shared informers ({@link buildController}).
 *
 * Not a scheduler of arbitrary jobs, and not edge-triggered: a reconcile never learns which
 * event happened, only why its key was queued (`ctx.triggers`), for logs and metrics.
 *
 * @example
 * ```ts
 * controller(manager)
 *   .for(Widget)
 *   .owns(ConfigMap)
 *   .reconcile(async (ctx) => {
 *     const widget = ctx.object;
 *     if (!widget) return; // deleted: owned children are garbage-collected
 *     await ctx.client.apply(ConfigMap, desiredConfigMap(widget), { fieldManager: "widgets", force: true });
 *   });
 * ```
 */
export { Action, TerminalError } from "./action.ts";
export { type ControllerBuilder, controller } from "./builder.ts";
export { Controller, type ControllerDeps, type ControllerHealth } from "./controller.ts";
export type {
  ControllerDeclaration,
  OwnedKind,
  PermissionRequest,
  PermissionTarget,
  WatchedKind,
  WatchOptions,
} from "./declaration.ts";
export {
  ControllerBuilderError,
  InvalidRequeueError,
  ReconcileTimeoutError,
  SpecInvalidError,
  StalledError,
} from "./errors.ts";
export {
  buildController,
  type ControllerHost,
  type ControllerSpec,
  type HostedController,
  recordDeclarations,
} from "./host.ts";
export {
  type ControllerMetrics,
  type HandlingFailure,
  noopControllerMetrics,
  type ReconcileResult,
} from "./metrics.ts";
export type { ControllerOptions, ShowFailingAfter } from "./options.ts";
export {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  lifecycleChanged,
  not,
  or,
  type Predicate,
  passes,
  predicate,
} from "./predicate.ts";
export type { ReconcileRecord } from "./recent.ts";
export type {
  DriftMetrics,
  ReconcileContext,
  ReconcileReporting,
  Reconciler,
  Request,
} from "./reconciler.ts";
export { type Enqueue, informerSource, type MapFn, mapToOwner, type Source, self } from "./source.ts";
