/**
 * The leader-election record inside a coordination.k8s.io/v1 Lease, and the helpers that read it
 * from and write it into Lease objects.
 */
import type { LeaseObject } from "../api/index.ts";

/** The election fields of a Lease's `spec`, normalised (absent strings are `""`, absent numbers 0). */
export interface LeaseRecord {
  /** Who holds the Lease; `""` when nobody does (never taken, or released). */
  holderIdentity: string;
  /** How long, in seconds, candidates wait after last seeing the record change before taking over. */
  leaseDurationSeconds: number;
  /** When the current holder took the Lease (MicroTime, RFC 3339 with microseconds). */
  acquireTime: string;
  /** When the current holder last renewed it (MicroTime). Never compared with a local clock. */
  renewTime: string;
  /** How many times the Lease changed hands. */
  leaseTransitions: number;
}

/** Reads the election record of a Lease. */
export function readLeaseRecord(lease: LeaseObject): LeaseRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: spec.holderIdentity ?? "",
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: spec.acquireTime ?? "",
    renewTime: spec.renewTime ?? "",
    leaseTransitions: spec.leaseTransitions ?? 0,
  };
}

/** A string that changes whenever any field of the record does (client-go compares the raw record). */
export function recordKey(record: LeaseRecord): string {
  const { holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions } = record;
  return JSON.stringify([holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions]);
}

/** Formats epoch milliseconds as a Kubernetes MicroTime: `2024-05-01T10:00:00.123000Z`. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}

/** A copy of `lease` (metadata, resourceVersion included) whose spec is `record`. */
export function leaseWithRecord(lease: LeaseObject, record: LeaseRecord): LeaseObject {
  return { ...lease, spec: specOf(record) };
}

/** A new Lease named `name` (in `namespace`, or the client's default when absent) holding `record`. */
export function newLease(name: string, namespace: string | undefined, record: LeaseRecord): LeaseObject {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: namespace === undefined ? { name } : { name, namespace },
    spec: specOf(record),
  };
}

function specOf(record: LeaseRecord): NonNullable<LeaseObject["spec"]> {
  const { holderIdentity, acquireTime, renewTime, ...numbers } = record;
  // Empty strings are left out, as client-go's omitempty does: a released Lease has no holder.
  return {
    ...(holderIdentity ? { holderIdentity } : {}),
    ...numbers,
    ...(acquireTime ? { acquireTime } : {}),
    ...(renewTime ? { renewTime } : {}),
  };
}
