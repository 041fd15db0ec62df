/**
 * Which versions of exclusive children were read and found to hold nothing foreign, per informer.
 * A foreign writer that only added a label, or a co-writer's allowed field, stays in a child's
 * `managedFields`; remembering the version checked keeps every later reconcile from reading the
 * child again until its content changes. The version is the `generation` where the kind keeps one
 * (it moves with every change but to metadata and status, so a Deployment's status updates do not
 * count), else the `resourceVersion`.
 */
import type { KubeObject } from "../../api/index.ts";

/** Versions kept per informer; the oldest are forgotten first (a forgotten one is read again, no more). */
const maxPerInformer = 10_000;

const checked = new WeakMap<object, Map<string, string>>();

/** The object's version for this purpose, with its uid: an object created again starts over. */
function versionOf(obj: KubeObject): string | undefined {
  const { uid, generation, resourceVersion } = obj.metadata;
  if (generation !== undefined) return `${uid} generation ${generation}`;
  return resourceVersion === undefined ? undefined : `${uid} resourceVersion ${resourceVersion}`;
}

/** True when the child under `key` was checked clean at `obj`'s version. */
export function wasChecked(informer: object, key: string, obj: KubeObject): boolean {
  const version = versionOf(obj);
  return version !== undefined && checked.get(informer)?.get(key) === version;
}

/** Records that the child under `key` was checked clean at `obj`'s version; `undefined` forgets it. */
export function markChecked(informer: object, key: string, obj: KubeObject | undefined): void {
  const versions = checked.get(informer) ?? new Map<string, string>();
  checked.set(informer, versions);
  versions.delete(key);
  const version = obj && versionOf(obj);
  if (version === undefined) return;
  versions.set(key, version);
  if (versions.size > maxPerInformer) versions.delete(versions.keys().next().value as string);
}
