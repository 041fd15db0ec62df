import type { OwnerReference } from "../api/index.ts";
import { KubeloopError } from "../errors/index.ts";

/**
 * The object already has a controller other than the would-be owner; kubeloop refuses to adopt
 * it. Surface it as a condition (reason `AlreadyOwned`) on the owner. Code `KL_ALREADY_OWNED`.
 */
export class AlreadyOwnedError extends KubeloopError {
  /** The controller reference the object already carries. */
  readonly controller: OwnerReference;
  constructor(child: string, controller: OwnerReference) {
    super(
      "KL_ALREADY_OWNED",
      `${child} is already controlled by ${controller.kind} ${controller.name} (uid ${controller.uid}); ` +
        "it will not be adopted. Delete or rename it, or remove its controller reference.",
    );
    this.controller = controller;
  }
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
