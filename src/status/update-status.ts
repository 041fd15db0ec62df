/**
 * The status writer: sends a kind's status to the `/status` subresource only when it changed, with
 * optimistic concurrency, recomputing from a fresh read after each conflict.
 */
import type { ApplyObject, KubeObject, ResourceType } from "../api/index.ts";
import { type Client, ConflictError, NotFoundError, type StatusWriter } from "../client/index.ts";
import { InvalidStatusUpdateError, StatusSubresourceMissingError } from "./errors.ts";
import { isObject, type Json, type JsonObject, mergePatch, sameJson, toJson } from "./internal/json-diff.ts";

/** The verbs {@link updateStatus} uses: the status ones, and `get` to tell a missing object from a missing subresource; a `Client` fits. */
export interface StatusClient extends Pick<Client, "get"> {
  readonly status: Pick<StatusWriter, "get" | "patch" | "apply">;
}

/**
 * What {@link updateStatus} did, like controller-runtime's `OperationResult`: `unchanged` (the
 * computed status equals the stored one; nothing was sent), `updated` (written), `gone` (the object
 * no longer exists).
 */
export type StatusWriteResult = "unchanged" | "updated" | "gone";

/**
 * How {@link updateStatus} writes: `merge`, a JSON merge patch carrying `metadata.resourceVersion`;
 * `apply`, server-side apply of the status with the field manager and `metadata.resourceVersion`.
 */
export type StatusWriteMethod = "merge" | "apply";

/** The status type of an object type: what its `status` holds when present. */
export type StatusOf<T> = T extends { status?: infer S } ? Exclude<S, undefined> : never;

/**
 * Computes the whole desired status from `fresh`, the object as last read: the first time the object
 * given to {@link updateStatus}, after a conflict the apiserver's current copy. It must depend only on
 * `fresh` and on what the reconcile observed, so that recomputing after a conflict is right.
 */
export type ComputeStatus<T extends KubeObject> = (fresh: T) => StatusOf<T> | Promise<StatusOf<T>>;

/** Options of {@link updateStatus}. */
export interface UpdateStatusOptions {
  /** Field manager of the write. Default: the client's. */
  fieldManager?: string;
  /** Default `merge`. */
  method?: StatusWriteMethod;
  /**
   * With `apply`: the condition types this writer owns (e.g. a condition set's `types`). Only those
   * conditions are applied, so conditions of other controllers, passed through by the computed
   * status, stay theirs. Default: every condition of the computed status.
   */
  conditionTypes?: readonly string[];
  /** Writes tried at most, the first included; each conflict re-reads and recomputes. Default 5. */
  maxAttempts?: number;
  signal?: AbortSignal;
}

/** Writes tried by default, as client-go's `retry.DefaultRetry`. */
export const DEFAULT_STATUS_WRITE_ATTEMPTS = 5;

interface Target<T extends KubeObject> {
  client: StatusClient;
  type: ResourceType<T>;
  name: string;
  namespace: string | undefined;
  options: UpdateStatusOptions;
}

/**
 * Writes `obj`'s status as `compute` says, only if it changed. The computed status is the whole
 * stanza: kind-specific fields plus the conditions and `observedGeneration` of a condition set's
 * `finish()`. It is compared with the stored status semantically (key order, `undefined` and `null`
 * members ignored; arrays in order); when equal, no request is sent. Otherwise it is written to the
 * `/status` subresource with `obj`'s `metadata.resourceVersion` as a precondition. Fields the
 * computed status leaves out are removed: the merge patch sends `null` for them; server-side apply
 * (with `force`, as controllers should) stops owning them, so the apiserver drops them unless another
 * manager owns them too (then they stay, and every call writes again: compute them as stored).
 *
 * On a 409 Conflict it re-reads the object from the apiserver and calls `compute` again with the
 * fresh copy (never retrying a stale status), at most `maxAttempts` writes in all; then the last
 * `ConflictError` is thrown, for the controller to back off. A 404 resolves `gone` when the object
 * is gone; when the object is there but its kind has no status subresource,
 * {@link StatusSubresourceMissingError} is thrown. Other errors are thrown. The comparison is with the status of the copy at hand: a stale copy whose status is
 * already what it computes sends nothing, and the newer version's watch event reconciles again.
 *
 * A reconciler whose kind has a condition set calls `writeStatus`, which builds on this and records
 * the transitions it wrote; call `updateStatus` directly for a status without one.
 *
 * Status is rebuilt from observation: wipe it and the next call writes it back the same, except
 * each condition's `lastTransitionTime`, which records when the controller saw the status (the
 * rebuild), not when the world changed, since that history was wiped with it.
 *
 * @example
 * ```ts
 * let update: StatusUpdate | undefined;
 * const result = await updateStatus(
 *   ctx.client,
 *   Gizmo,
 *   gizmo,
 *   (fresh) => {
 *     const draft = GizmoConditions.begin(fresh);
 *     draft.set("ConfigMapReady", configMapReport(fresh, child));
 *     update = draft.finish();
 *     return { replicas: observedReplicas(child), ...update.status };
 *   },
 *   { fieldManager: "gizmos" },
 * );
 * if (result === "updated" && update) recordTransitions(ctx, gizmo, update.transitions, GizmoConditions);
 * ```
 */
export async function updateStatus<T extends KubeObject>(
  client: StatusClient,
  type: ResourceType<T>,
  obj: T,
  compute: ComputeStatus<T>,
  options: UpdateStatusOptions = {},
): Promise<StatusWriteResult> {
  const target = targetOf(client, type, obj, options);
  const attempts = Math.max(1, options.maxAttempts ?? DEFAULT_STATUS_WRITE_ATTEMPTS);
  let current: T | undefined = obj;
  for (let attempt = 1; current; attempt++) {
    const desired = desiredStatus(await compute(current));
    const stored = toJson((current as { status?: unknown }).status);
    if (sameJson(stored ?? {}, desired)) return "unchanged";
    const outcome = await attemptWrite(target, current, stored, desired);
    if (!(outcome instanceof ConflictError)) return outcome;
    if (attempt >= attempts) throw outcome;
    current = await reread(target);
  }
  return "gone";
}

function targetOf<T extends KubeObject>(
  client: StatusClient,
  type: ResourceType<T>,
  obj: T,
  options: UpdateStatusOptions,
): Target<T> {
  const name = obj.metadata.name;
  if (!name) {
    throw new InvalidStatusUpdateError(
      `the ${type.kind} has no metadata.name`,
      "pass the object as read from the cache or the client",
    );
  }
  return { client, type, name, namespace: obj.metadata.namespace, options };
}

function desiredStatus(computed: unknown): JsonObject {
  const desired = toJson(computed);
  if (isObject(desired)) return desired;
  throw new InvalidStatusUpdateError(
    `the compute function returned ${Array.isArray(desired) ? "an array" : String(desired)}, not an object`,
    "return the whole status object, e.g. { replicas, ...update.status }",
  );
}

/** Sends one write; a conflict is returned (to recompute), not thrown. */
async function attemptWrite<T extends KubeObject>(
  target: Target<T>,
  current: T,
  stored: Json | undefined,
  desired: JsonObject,
): Promise<"updated" | "gone" | ConflictError> {
  try {
    if (target.options.method === "apply") await applyStatus(target, current, desired);
    else await patchStatus(target, current, isObject(stored) ? mergePatch(stored, desired) : desired);
    return "updated";
  } catch (err) {
    if (err instanceof NotFoundError) return goneOrMissingSubresource(target, err);
    if (err instanceof ConflictError) return err;
    throw err;
  }
}

/**
 * A 404 from `/status` means the object is gone, or that its kind has no status subresource (the
 * object itself still answers): the latter is thrown, never taken for "gone", since the status
 * would silently never be written.
 */
async function goneOrMissingSubresource<T extends KubeObject>(
  target: Target<T>,
  notFound: NotFoundError,
): Promise<"gone"> {
  const { client, type, name, namespace, options } = target;
  try {
    await client.get(type, name, { namespace, signal: options.signal });
  } catch (err) {
    if (err instanceof NotFoundError) return "gone";
    throw err;
  }
  throw new StatusSubresourceMissingError(type, notFound);
}

async function patchStatus<T extends KubeObject>(target: Target<T>, current: T, status: JsonObject) {
  const { client, type, name, namespace, options } = target;
  const { resourceVersion } = current.metadata;
  const patch = { ...(resourceVersion ? { metadata: { resourceVersion } } : {}), status };
  await client.status.patch(type, name, patch, {
    type: "merge",
    namespace,
    fieldManager: options.fieldManager,
    signal: options.signal,
  });
}

async function applyStatus<T extends KubeObject>(target: Target<T>, current: T, desired: JsonObject) {
  const { client, type, name, namespace, options } = target;
  const { resourceVersion } = current.metadata;
  const config = {
    apiVersion: type.apiVersion,
    kind: type.kind,
    metadata: { name, ...(namespace ? { namespace } : {}), ...(resourceVersion ? { resourceVersion } : {}) },
    status: ownedConditionsOnly(desired, options.conditionTypes),
  };
  await client.status.apply(type, config as unknown as ApplyObject<T>, {
    namespace,
    fieldManager: options.fieldManager,
    force: true,
    signal: options.signal,
  });
}

/** `status` with only the conditions of `types` (all of them when `types` is not given). */
function ownedConditionsOnly(status: JsonObject, types: readonly string[] | undefined): JsonObject {
  const { conditions } = status;
  if (!types || !Array.isArray(conditions)) return status;
  const owned = conditions.filter((c) => isObject(c) && types.includes(String(c.type)));
  return { ...status, conditions: owned };
}

/** The object as the apiserver holds it now; `undefined` when it is gone. */
async function reread<T extends KubeObject>(target: Target<T>): Promise<T | undefined> {
  const { client, type, name, namespace, options } = target;
  try {
    return await client.status.get(type, name, { namespace, signal: options.signal });
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}
