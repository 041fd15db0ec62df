/**
 * A finalizer guards cleanup that must happen before an object is deleted (external resources,
 * objects in other namespaces). {@link withFinalizer} decides from two facts — is the finalizer
 * present, is the object being deleted — what to run.
 *
 * Flow:
 * 1. Not deleting, no finalizer: add it (before any side effect), then run `apply`.
 * 2. Not deleting, finalizer present: run `apply`.
 * 3. Deleting, finalizer present: run `cleanup`; when it succeeds, remove the finalizer and the
 *    apiserver deletes the object. When it throws, the finalizer stays, a Warning event
 *    `CleanupFailed` is recorded, and the error propagates (the reconcile backs off and retries).
 * 4. Deleting, no finalizer: nothing (the object is going away without us).
 *
 * Guarantees: the finalizer is on the object before `apply` runs, and removed only after a
 * successful `cleanup`. Patches carry a JSON Patch `test`, so a concurrent change fails safely
 * (the reconcile is retried with fresh state).
 *
 * Caveat: `cleanup` may run more than once — the operator can crash after cleanup and before the
 * finalizer is removed — so it must be idempotent.
 */
import type { KubeObject, ResourceType } from "../api/index.ts";
import { NotFoundError } from "../client/index.ts";
import type { Action } from "../controller/index.ts";
import type { EventRecorder } from "../events/index.ts";
import { FinalizerCleanupError, FinalizerNameError } from "./errors.ts";

/** What {@link withFinalizer} asks the handler to do. */
export type FinalizerEvent<T extends KubeObject> =
  | { type: "apply"; object: T }
  | { type: "cleanup"; object: T };

/** The client call the helper needs (a `Client` satisfies it). */
export interface FinalizerClient {
  patch<T extends KubeObject>(
    type: ResourceType<T>,
    name: string,
    patch: unknown,
    opts: { type: "json"; namespace?: string },
  ): Promise<T>;
}

// A qualified name as the apiserver validates it: a DNS subdomain prefix (at most 253 characters),
// a slash, and a name part of at most 63 characters starting and ending with an alphanumeric.
const qualified =
  /^(?=[^/]{1,253}\/)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/(?=[^/]{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/**
 * Runs `handle` for `object` with a finalizer guarding its cleanup (see the module notes for
 * the flow). Returns the handler's Action for `apply`, and nothing after a cleanup.
 *
 * @example
 * ```ts
 * return withFinalizer(
 *   ctx.client,
 *   Backup,
 *   backup,
 *   "backups.example.com/cleanup",
 *   async (event) => {
 *     if (event.type === "cleanup") return void (await bucket.deleteAll(event.object.spec.prefix));
 *     return reconcileBackup(event.object);
 *   },
 *   { recorder: ctx.recorder },
 * );
 * ```
 */
export async function withFinalizer<T extends KubeObject>(
  client: FinalizerClient,
  type: ResourceType<T>,
  object: T,
  finalizer: string,
  handle: (event: FinalizerEvent<T>) => Promise<Action | undefined>,
  opts: { recorder?: EventRecorder } = {},
): Promise<Action | undefined> {
  if (!qualified.test(finalizer)) throw new FinalizerNameError(finalizer);
  const finalizers = object.metadata.finalizers ?? [];
  const index = finalizers.indexOf(finalizer);
  const namespace = object.metadata.namespace;
  const name = object.metadata.name as string;
  if (object.metadata.deletionTimestamp) {
    if (index < 0) return undefined;
    try {
      await handle({ type: "cleanup", object });
    } catch (err) {
      opts.recorder?.warning(
        object,
        "CleanupFailed",
        "Finalize",
        `cleanup for ${finalizer} failed: ${err instanceof Error ? err.message : err}`,
      );
      throw new FinalizerCleanupError(finalizer, `${object.kind} ${name}`, err);
    }
    const remove = [
      { op: "test", path: `/metadata/finalizers/${index}`, value: finalizer },
      { op: "remove", path: `/metadata/finalizers/${index}` },
    ];
    // Already gone: a reconcile of a stale copy ran cleanup again after the finalizer was removed.
    await client.patch(type, name, remove, { type: "json", namespace }).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
    return undefined;
  }
  if (index >= 0) return handle({ type: "apply", object });
  const add = finalizers.length
    ? [
        { op: "test", path: "/metadata/finalizers", value: finalizers },
        { op: "add", path: "/metadata/finalizers/-", value: finalizer },
      ]
    : [
        { op: "test", path: "/metadata/resourceVersion", value: object.metadata.resourceVersion },
        { op: "add", path: "/metadata/finalizers", value: [finalizer] },
      ];
  const updated = await client.patch(type, name, add, { type: "json", namespace });
  return handle({ type: "apply", object: updated });
}
