/**
 * Event filters: which changes of a watched object should queue a reconcile. A predicate that
 * omits a method lets that kind of event through.
 */
import type { KubeObject } from "../api/index.ts";

/** Decides whether an event queues a reconcile. */
export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: T): boolean;
  update?(old: T, obj: T): boolean;
  delete?(obj: T): boolean;
}

/** Builds a predicate from one test applied to the new object of every event. */
export function predicate<T extends KubeObject>(test: (obj: T) => boolean): Predicate<T> {
  return { create: test, update: (_old, obj) => test(obj), delete: test };
}

/** Lets an update through only when `metadata.generation` changed (a spec change, for kinds with a status subresource). */
export const generationChanged: Predicate = {
  update: (old, obj) => old.metadata.generation !== obj.metadata.generation,
};

const sameMap = (a: Record<string, string> = {}, b: Record<string, string> = {}) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** Lets an update through only when the labels changed. */
export const labelsChanged: Predicate = {
  update: (old, obj) => !sameMap(old.metadata.labels, obj.metadata.labels),
};

/** Lets an update through only when the annotations changed. */
export const annotationsChanged: Predicate = {
  update: (old, obj) => !sameMap(old.metadata.annotations, obj.metadata.annotations),
};

/** Lets an update through only when deletion started or the finalizers changed. */
export const lifecycleChanged: Predicate = {
  update: (old, obj) =>
    old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp ||
    (old.metadata.finalizers ?? []).join() !== (obj.metadata.finalizers ?? []).join(),
};

type Method = "create" | "update" | "delete";
const methods: Method[] = ["create", "update", "delete"];

function combine<T extends KubeObject>(predicates: Predicate<T>[], every: boolean): Predicate<T> {
  const result: Predicate<T> = {};
  for (const m of methods) {
    const apply = (p: Predicate<T>, args: [T] | [T, T]) => {
      const fn = p[m] as ((...a: T[]) => boolean) | undefined;
      return fn ? fn(...args) : true;
    };
    (result[m] as (...a: T[]) => boolean) = (...args: T[]) =>
      every
        ? predicates.every((p) => apply(p, args as [T, T]))
        : predicates.some((p) => apply(p, args as [T, T]));
  }
  return result;
}

/** Passes when every predicate passes. */
export function and<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return combine(predicates, true);
}

/** Passes when any predicate passes. */
export function or<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return combine(predicates, false);
}

/** Inverts a predicate (a missing method, which passes, becomes one that blocks). */
export function not<T extends KubeObject>(p: Predicate<T>): Predicate<T> {
  return {
    create: (obj) => !(p.create?.(obj) ?? true),
    update: (old, obj) => !(p.update?.(old, obj) ?? true),
    delete: (obj) => !(p.delete?.(obj) ?? true),
  };
}

/** Runs an event through predicates: true when all of them let it through. */
export function passes<T extends KubeObject>(
  predicates: readonly Predicate<T>[],
  event: Method,
  obj: T,
  old?: T,
): boolean {
  return predicates.every((p) => {
    if (event === "update") return p.update?.(old as T, obj) ?? true;
    return p[event]?.(obj) ?? true;
  });
}
