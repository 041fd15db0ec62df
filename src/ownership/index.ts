/**
 * @module ownership
 *
 * The lifecycle of what a controller creates and guards. {@link withFinalizer} runs cleanup before
 * deletion (added before any side effect, removed only after cleanup succeeded, safe to run
 * twice). {@link setControllerReference} links a child to its owner for garbage collection,
 * refusing to adopt what another controller owns and references across namespaces.
 * {@link ensureChild} converges an owned child — created once, then server-side applied — writing
 * nothing when it already matches (nor reading: the child's fingerprint of its desired object,
 * {@link appliedFrom}, says whether the desired object changed), removing what the desired object
 * stops setting; it refuses an object of the child's name its owner does not
 * control ({@link ChildConflictError}), reports a child the apiserver refuses as invalid
 * ({@link InvalidChildError}, terminal for the controller), removes what other writers added to an exclusive child
 * (the default; {@link defaultCoWriters} stay) — a child a previous operator wrote included, whose
 * content becomes this controller's alone — and reports repairs of someone else's changes or
 * deletions as drift — an event naming the writer from `managedFields`, and
 * `kubeloop_drift_repairs_total{kind,manager}`.
 *
 * Not for in-cluster children's deletion: owner references and garbage collection do that; a
 * finalizer is only for cleanup the garbage collector cannot do.
 *
 * @example
 * ```ts
 * const result = await ensureChild(ctx, proxy, ConfigMap, desiredConfigMap(proxy));
 * // "created" | "updated" | "unchanged"; a kubectl edit of the ConfigMap is reverted and reported,
 * // and a ConfigMap of that name the proxy does not control is left alone (ChildConflictError)
 * ```
 */
export {
  appliedFrom,
  type ChildContext,
  containsDesired,
  type EnsureChildOptions,
  type EnsureResult,
  ensureChild,
  metadataMatches,
} from "./children.ts";
export {
  type Drift,
  type DriftReporting,
  lastForeignWriter,
  reportDrift,
  type Writer,
} from "./drift.ts";
export {
  AlreadyOwnedError,
  ChildConflictError,
  ChildOutOfScopeError,
  ChildReplacedError,
  CrossNamespaceOwnerError,
  FinalizerCleanupError,
  FinalizerNameError,
  InvalidChildError,
} from "./errors.ts";
export { type CoWriter, defaultCoWriters, type ExclusiveOptions } from "./exclusive.ts";
export { type FinalizerClient, type FinalizerEvent, withFinalizer } from "./finalizers.ts";
export { controllerOf, controllerReference, isControlledBy, setControllerReference } from "./owners.ts";
