import type { OwnerReference } from "../api/index.ts";
import type { InvalidError } from "../client/index.ts";
import { StalledError } from "../controller/index.ts";
import { KubeloopError } from "../errors/index.ts";
import type { ForeignField } from "./exclusive.ts";

/**
 * A child's name is taken by an object this owner does not control: `ensureChild` neither writes
 * nor adopts it, because its owner reference would let garbage collection delete it together with
 * the owner. Surface it as a condition (e.g. reason `ChildConflict`) on the owner and wait: once the
 * object is removed or renamed, its watch brings the owner back. Code `KL_CHILD_CONFLICT` when no
 * object controls it; when another one does, it is an {@link AlreadyOwnedError}.
 *
 * @example
 * ```ts
 * try {
 *   await ensureChild(ctx, proxy, ConfigMap, desiredConfigMap(proxy));
 * } catch (err) {
 *   if (!(err instanceof ChildConflictError)) throw err;
 *   draft.stalled("ChildConflict", err.message);
 * }
 * ```
 */
export class ChildConflictError extends KubeloopError {
  /** The controller reference the object carries; undefined when no object controls it. */
  readonly controller: OwnerReference | undefined;
  constructor(child: string, controller?: OwnerReference) {
    super(controller ? "KL_ALREADY_OWNED" : "KL_CHILD_CONFLICT", conflictMessage(child, controller));
    this.controller = controller;
  }
}

function conflictMessage(child: string, controller: OwnerReference | undefined): string {
  if (controller)
    return (
      `${child} is already controlled by ${controller.kind} ${controller.name} (uid ${controller.uid}); ` +
      "it will not be adopted. Delete or rename it, or remove its controller reference."
    );
  return (
    `${child} already exists and no object controls it; it is left untouched rather than adopted, since ` +
    "deleting the owner would then delete it. Delete or rename it, or give the owner another name " +
    "(to adopt objects like it on purpose, pass { adopt: true } to ensureChild)."
  );
}

/**
 * The object already has a controller other than the would-be owner; kubeloop refuses to adopt
 * it. A {@link ChildConflictError} whose `controller` is set. Code `KL_ALREADY_OWNED`.
 *
 * @example
 * ```ts
 * setControllerReference(owner, child); // throws AlreadyOwnedError when another object controls child
 * ```
 */
export class AlreadyOwnedError extends ChildConflictError {
  /** The controller reference the object already carries. */
  declare readonly controller: OwnerReference;
  constructor(child: string, controller: OwnerReference) {
    super(child, controller);
  }
}

/**
 * A child outside every scope its controller declared for the kind with `owns()`: the controller
 * would never see it change, and `ensureChild` could not read it from the cache. Code
 * `KL_CHILD_OUT_OF_SCOPE`.
 *
 * @example
 * ```ts
 * controller(host)
 *   .for(Widget)
 *   .owns(ConfigMap, { scope: { namespace: "apps" } });
 * await ensureChild(ctx, widget, ConfigMap, configMapIn("other")); // throws ChildOutOfScopeError
 * ```
 */
export class ChildOutOfScopeError extends KubeloopError {
  constructor(child: string, scopes: readonly string[]) {
    super(
      "KL_CHILD_OUT_OF_SCOPE",
      `${child} is outside every scope its controller owns this kind in (${scopes.join("; ")}), so its ` +
        "changes would never reach the controller. Widen the scope given to owns(), or make the child fit it.",
    );
  }
}

/**
 * The child was deleted or replaced by another object of the same name while `ensureChild` wrote
 * it (its uid no longer matched); nothing was written. Transient: the reconcile is retried and looks
 * again. Code `KL_CHILD_REPLACED`.
 *
 * @example
 * ```ts
 * // Thrown from ensureChild: let it propagate, and the controller retries with backoff.
 * await ensureChild(ctx, proxy, ConfigMap, desiredConfigMap(proxy));
 * ```
 */
export class ChildReplacedError extends KubeloopError {
  constructor(child: string, cause: unknown) {
    super(
      "KL_CHILD_REPLACED",
      `${child} was deleted or replaced while it was being updated, so nothing was written; the reconcile ` +
        "will look again (no action needed unless this repeats: then something keeps recreating it)",
      { cause },
    );
  }
}

/**
 * The apiserver refused a child `ensureChild` wrote as invalid (422 `Invalid`, or 400
 * `BadRequest`): what the owner's spec makes of the child does not validate, e.g. a CronJob whose
 * schedule is not a cron expression; or, for an exclusive child, the removal of what other writers
 * added does, e.g. an env entry a previous operator put in a Job's pod template, which is
 * immutable (then `unremovable` lists those fields, and the message says to delete the child so
 * that it is created again, or to let the fields stay with `exclusive: false` or a co-writer
 * rule). Retrying the same write cannot succeed, so the controller treats it as terminal, like a
 * `TerminalError` (recognised when wrapped, too): it is not retried until the owner or a watched
 * object changes, typically a spec edit that bumps the owner's generation: a `StalledError`, which
 * the controller records on the owner as a Warning event and, when the owner's kind has a
 * condition set, as its summary condition False with reason `InvalidChild` (and `Stalled=True`). The message names the
 * child and each field the apiserver rejected. Code `KL_INVALID_CHILD`.
 *
 * @example
 * ```ts
 * await ensureChild(ctx, backup, CronJob, desiredCronJob(backup));
 * // throws InvalidChildError: "CronJob ns/nightly was refused as invalid: spec.schedule: Invalid value: ..."
 * ```
 */
export class InvalidChildError extends StalledError {
  /** The child, as `Kind namespace/name`. */
  readonly child: string;
  /** The fields other writers added that could not be removed; empty when the child itself was refused. */
  readonly unremovable: readonly ForeignField[];
  /** The apiserver's answer, with its field causes. */
  declare readonly cause: InvalidError;

  /**
   * `named` says what the child's name was made from (the owner's name) when the apiserver may
   * have refused that name: the message then says so when it did.
   */
  constructor(
    child: string,
    invalid: InvalidError,
    unremovable: readonly ForeignField[] = [],
    named?: ChildNaming,
  ) {
    const message =
      unremovable.length > 0
        ? removalRefused(child, invalid, unremovable)
        : `${child} was refused as invalid: ${fieldCauses(invalid)}. ${invalidFix(invalid, named)}; ${noRetry}`;
    super("KL_INVALID_CHILD", "InvalidChild", message, { cause: invalid });
    this.child = child;
    this.unremovable = unremovable;
  }
}

const noRetry = "no retry comes until the owner or an object its controller watches changes";

/** Where a child's name came from: its kind, its name and its owner's name. */
export interface ChildNaming {
  readonly kind: string;
  readonly name: string;
  readonly ownerName: string;
}

/**
 * What to change: the owner's name when the child's, made from it, was refused (a `my.site` owner
 * gives a Service `my.site`, and a Service's name has no dots); the owner's spec otherwise.
 */
function invalidFix(invalid: InvalidError, named: ChildNaming | undefined): string {
  const nameRefused = invalid.causes.some((c) => c.field === "metadata.name");
  if (!named?.ownerName || !nameRefused || !named.name.includes(named.ownerName))
    return "Correct the owner's spec that produces it";
  return (
    `Its name is made from the owner's name "${named.ownerName}", which is not valid in a ${named.kind}'s name: ` +
    `create the owner again under a name that is (a ${named.kind}'s name rules are quoted above), or have the ` +
    "controller derive the child's name another way"
  );
}

function removalRefused(child: string, invalid: InvalidError, fields: readonly ForeignField[]): string {
  const named = fields.map((f) => `${fieldPath(f.pointer)} (${f.writer.manager})`).join(", ");
  const allowed = [...new Set(fields.map((f) => f.writer.manager))].map((m) => `{ manager: "${m}" }`);
  return (
    `${child} was refused as invalid when the fields other writers added were removed (it is an exclusive ` +
    `child): ${fieldCauses(invalid)}. Fields it could not remove: ${named}. Delete ${child} so that it is ` +
    "created again as desired, or let them stay: pass `exclusive: false` to ensureChild, or allow the writers " +
    `that added them (\`exclusive: { allow: [...defaultCoWriters, ${allowed.join(", ")}] }\`); ${noRetry}`
  );
}

/** `field: message` for each field the apiserver rejected, or its message when it named none. */
function fieldCauses(invalid: InvalidError): string {
  const named = invalid.causes.filter((c) => c.field || c.message);
  if (named.length === 0) return brief(invalid.status.message || invalid.reason);
  return named.map((c) => [c.field, c.message && brief(c.message)].filter(Boolean).join(": ")).join("; ");
}

/**
 * `message`, its middle cut when it is long: the apiserver quotes a whole invalid value (a Job's
 * pod template runs to kilobytes) before saying what is wrong with it, at the end.
 */
function brief(message: string): string {
  return message.length <= 240 ? message : `${message.slice(0, 120)}…${message.slice(-100)}`;
}

/** A field's JSON pointer segments as the apiserver names fields: `spec.containers[0].env[1]`, `data[a.txt]`. */
function fieldPath(pointer: readonly string[]): string {
  return pointer
    .map((segment, i) => {
      if (!/^[A-Za-z_$][\w$]*$/.test(segment)) return `[${segment}]`;
      return i === 0 ? segment : `.${segment}`;
    })
    .join("");
}

/**
 * An owner reference that garbage collection would ignore: a namespaced owner in another
 * namespace, or a namespaced owner of a cluster-scoped object. Code `KL_CROSS_NAMESPACE_OWNER`.
 */
export class CrossNamespaceOwnerError extends KubeloopError {
  constructor(owner: string, child: string) {
    super(
      "KL_CROSS_NAMESPACE_OWNER",
      `${owner} cannot own ${child}: owner references cannot cross namespaces, and a namespaced object cannot own a ` +
        "cluster-scoped one. Create the child in the owner's namespace, or use a finalizer for cross-namespace cleanup.",
    );
  }
}

/** Cleanup guarded by a finalizer failed; the finalizer stays, so deletion waits. Code `KL_FINALIZER_CLEANUP`. */
export class FinalizerCleanupError extends KubeloopError {
  constructor(finalizer: string, object: string, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(
      "KL_FINALIZER_CLEANUP",
      `cleanup for finalizer ${finalizer} on ${object} failed: ${detail}; it will be retried and deletion waits until it succeeds`,
      { cause },
    );
  }
}

/** A finalizer name that is not domain-qualified (`example.com/cleanup`). Code `KL_FINALIZER_NAME`. */
export class FinalizerNameError extends KubeloopError {
  constructor(name: string) {
    super(
      "KL_FINALIZER_NAME",
      `finalizer "${name}" must be domain-qualified with a path, e.g. "widgets.example.com/cleanup"`,
    );
  }
}
