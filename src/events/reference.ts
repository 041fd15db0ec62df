import type { KubeObject, ObjectReference } from "../api/index.ts";

/** What an event can be about: an object as read from the API, or a reference to one. */
export type EventSubject = KubeObject | ObjectReference;

/**
 * The `ObjectReference` of an object (apiVersion, kind, namespace, name, uid, resourceVersion),
 * as client-go's `reference.GetReference`; a reference passes through unchanged. Absent fields
 * are left out rather than sent empty.
 */
export function objectReference(subject: EventSubject): ObjectReference {
  if (!isKubeObject(subject)) return subject;
  const { apiVersion, kind, metadata } = subject;
  const { namespace, name, uid, resourceVersion } = metadata;
  return withoutEmpty({ apiVersion, kind, namespace, name, uid, resourceVersion });
}

function isKubeObject(subject: EventSubject): subject is KubeObject {
  return typeof (subject as KubeObject).metadata === "object" && (subject as KubeObject).metadata !== null;
}

function withoutEmpty(ref: ObjectReference): ObjectReference {
  return Object.fromEntries(
    Object.entries(ref).filter(([, v]) => v !== undefined && v !== ""),
  ) as ObjectReference;
}
