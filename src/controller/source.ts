/**
 * Sources connect an informer to a controller's queue: they turn each change of a watched object
 * into the keys to reconcile (through a {@link MapFn}) and filter events with predicates. Every
 * key is queued with a reason such as `owned:ConfigMap:delete`, so a reconcile can say why it ran,
 * and a priority: low for what only repeats the known state (the initial list, an update that
 * changes nothing), normal for real changes.
 */
import { type KubeObject, keyOf, type ObjectKey, objectKey, type ResourceType } from "../api/index.ts";
import type { Informer } from "../cache/index.ts";
import { LOW_PRIORITY, NORMAL_PRIORITY } from "../queue/index.ts";
import { type Predicate, passes } from "./predicate.ts";

/** Maps a changed object to the keys of the objects to reconcile. */
export type MapFn<T extends KubeObject = KubeObject> = (obj: T) => readonly ObjectKey[];

/**
 * Queues a key with a reason, at a priority of the work queue's ({@link NORMAL_PRIORITY} when
 * omitted; {@link LOW_PRIORITY} for events that only repeat what is known).
 */
export type Enqueue = (key: ObjectKey, reason: string, priority?: number) => void;

/** A stream of keys into a controller's queue. */
export interface Source {
  /** Begins feeding `enqueue`; returns a function that stops it. */
  start(enqueue: Enqueue): () => void;
}

/** The object's own key: what `for(kind)` uses. */
export const self: MapFn = (obj) => [keyOf(obj)];

/**
 * The key of the object's controller, when that controller is of `owner`'s kind: what
 * `owns(kind)` uses. Objects without a matching controller reference map to nothing.
 */
export function mapToOwner(owner: ResourceType): MapFn {
  const group = owner.apiVersion.includes("/") ? owner.apiVersion.split("/")[0] : "";
  return (obj) => {
    const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
    if (!ref || ref.kind !== owner.kind) return [];
    const refGroup = ref.apiVersion.includes("/") ? ref.apiVersion.split("/")[0] : "";
    if (refGroup !== group) return [];
    return [objectKey(owner.namespaced ? obj.metadata.namespace : undefined, ref.name)];
  };
}

/**
 * A source on an informer. Updates map both the old and the new object, so a child moving from
 * one owner to another wakes both. As controller-runtime's handlers do for its priority queue,
 * adds from the informer's initial list and updates that keep the resourceVersion (a relist
 * re-delivering an unchanged object) are queued at {@link LOW_PRIORITY}, the rest at
 * {@link NORMAL_PRIORITY} — except that an object of the initial list whose status shows it still
 * awaits its controller is normal too (see {@link initialPriority}).
 */
export function informerSource<T extends KubeObject>(
  informer: Informer<T>,
  map: MapFn<T>,
  predicates: readonly Predicate<T>[],
  label: string,
): Source {
  return {
    start(enqueue) {
      const push = (event: string, objs: T[], priority: number) => {
        const keys = new Set(objs.flatMap((o) => map(o)));
        for (const key of keys) enqueue(key, `${label}:${informer.type.kind}:${event}`, priority);
      };
      return informer.addHandler({
        onAdd: (obj, initial) =>
          passes(predicates, "create", obj) &&
          push("create", [obj], initial ? initialPriority(obj) : NORMAL_PRIORITY),
        onUpdate: (old, obj) =>
          passes(predicates, "update", obj, old) && push("update", [old, obj], updatePriority(old, obj)),
        onDelete: (obj) => passes(predicates, "delete", obj) && push("delete", [obj], NORMAL_PRIORITY),
      });
    },
  };
}

/** Low for an update that keeps the resourceVersion (nothing changed), else normal. */
function updatePriority(old: KubeObject, obj: KubeObject): number {
  const version = obj.metadata.resourceVersion;
  return version !== undefined && version === old.metadata.resourceVersion ? LOW_PRIORITY : NORMAL_PRIORITY;
}

/**
 * The priority of an object from the informer's initial list. controller-runtime queues the whole
 * list low; kubeloop keeps normal priority for an object that visibly awaits its controller: one
 * with a `metadata.generation` and no status yet, or a `status.observedGeneration` behind it. Those
 * are changes made while the operator was away or starting, which a list delivers like any other
 * object: in bench/peers' "change during restart", Widgets created 0.5 s after the process starts
 * land in its initial list, behind thousands of unchanged ones.
 * Objects without a generation (ConfigMaps, Secrets) and statuses without `observedGeneration`
 * stay low: nothing tells whether they were seen.
 */
function initialPriority(obj: KubeObject): number {
  const generation = obj.metadata.generation;
  if (generation === undefined) return LOW_PRIORITY;
  const status = (obj as { status?: unknown }).status;
  if (status === undefined || status === null) return NORMAL_PRIORITY;
  const observed = (status as { observedGeneration?: unknown }).observedGeneration;
  return typeof observed === "number" && observed < generation ? NORMAL_PRIORITY : LOW_PRIORITY;
}
