/**
 * Owner references: the link garbage collection follows from a child to its owner, and the
 * one `controller: true` reference that says which controller manages the child.
 */
import type { KubeObject, OwnerReference } from "../api/index.ts";
import { AlreadyOwnedError, CrossNamespaceOwnerError } from "./errors.ts";

const describe = (obj: KubeObject) =>
  `${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ""}${obj.metadata.name ?? obj.metadata.generateName ?? ""}`;

/** The controller reference pointing at `owner`: `controller: true`, `blockOwnerDeletion: true`. */
export function controllerReference(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name ?? "",
    uid: owner.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The object's controller reference, if it has one. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** True when `child`'s controller reference points at `owner` (by uid). */
export function isControlledBy(child: KubeObject, owner: KubeObject): boolean {
  return controllerOf(child)?.uid === owner.metadata.uid;
}

/**
 * Makes `owner` the controller of `child` (mutating `child.metadata.ownerReferences`), as
 * controller-runtime's `SetControllerReference`: refuses when another controller already holds
 * it ({@link AlreadyOwnedError}) and when the reference would cross namespaces
 * ({@link CrossNamespaceOwnerError}). `childNamespaced` says whether the child's kind is
 * namespaced (default: it has a namespace).
 */
export function setControllerReference(
  owner: KubeObject,
  child: KubeObject,
  childNamespaced = child.metadata.namespace !== undefined,
): void {
  const ownerNamespace = owner.metadata.namespace;
  if (
    ownerNamespace &&
    (!childNamespaced || (child.metadata.namespace ?? ownerNamespace) !== ownerNamespace)
  ) {
    throw new CrossNamespaceOwnerError(describe(owner), describe(child));
  }
  const existing = controllerOf(child);
  if (existing && existing.uid !== owner.metadata.uid) throw new AlreadyOwnedError(describe(child), existing);
  const others = (child.metadata.ownerReferences ?? []).filter((r) => r.uid !== owner.metadata.uid);
  child.metadata.ownerReferences = [...others, controllerReference(owner)];
}
