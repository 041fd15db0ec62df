/**
 * A replica's membership: the Lease `<prefix>-member-<hash of its identity>` it holds while it
 * takes part, whose unexpired holders the replicas count to share the shards. On a clean stop the
 * Lease is deleted, so the others count one replica fewer at their next look and nothing stays
 * behind; a replica that dies without stopping (SIGKILL, a lost node) leaves it to expire, and,
 * when it runs in a pod, to garbage collection once the pod is deleted (an owner reference
 * without `blockOwnerDeletion`, which needs no permission on the pod).
 */
import { Lease, type LeaseObject, type OwnerReference } from "../api/index.ts";
import { type DeleteOptions, NotFoundError, type ObjectOptions } from "../client/index.ts";
import type { Clock } from "../clock/index.ts";
import { type LeaderElector, readLeaseRecord } from "../election/index.ts";

/** The calls that delete a membership Lease; a `Client` has them. */
export interface LeaseDeleteClient {
  get(type: typeof Lease, name: string, opts: ObjectOptions): Promise<LeaseObject>;
  delete(type: typeof Lease, name: string, opts: DeleteOptions): Promise<unknown>;
}

/** The pod a replica runs in, from the downward API (`POD_NAME`, `POD_UID`). */
export interface ReplicaPod {
  readonly name: string;
  readonly uid: string;
}

/** An owner reference to `pod`: garbage collection deletes the membership Lease with it. */
export function ownedByPod(pod: ReplicaPod): OwnerReference {
  // No blockOwnerDeletion: setting it needs update on the pod's finalizers
  // (OwnerReferencesPermissionEnforcement), and foreground deletion of the pod need not wait.
  return { apiVersion: "v1", kind: "Pod", name: pod.name, uid: pod.uid };
}

/** What {@link holdMembership} works with. */
export interface MembershipDeps {
  client: LeaseDeleteClient;
  namespace: string;
  clock: Clock;
  /** How long the deletion may take. */
  timeoutMs: number;
}

/**
 * Holds the membership Lease `elector` campaigns for (an elector that does not release it on
 * cancel) until `signal` aborts, then deletes it if this replica still holds it, with
 * preconditions on the Lease read, so that a Lease someone else wrote meanwhile stays. Rejects
 * with the failure of the deletion, which the caller reports.
 */
export async function holdMembership(
  elector: LeaderElector,
  signal: AbortSignal,
  deps: MembershipDeps,
): Promise<void> {
  await elector.run(signal);
  const timeout = new AbortController();
  const timer = deps.clock.setTimer(deps.timeoutMs, () =>
    timeout.abort(new Error(`deleting the membership Lease took over ${deps.timeoutMs} ms`)),
  );
  try {
    await deleteIfHeld(elector, deps, timeout.signal);
  } finally {
    timer.cancel();
  }
}

async function deleteIfHeld(
  elector: LeaderElector,
  deps: MembershipDeps,
  signal: AbortSignal,
): Promise<void> {
  const { client, namespace } = deps;
  try {
    const lease = await client.get(Lease, elector.name, { namespace, signal });
    if (readLeaseRecord(lease).holderIdentity !== elector.identity) return;
    const { uid, resourceVersion } = lease.metadata;
    await client.delete(Lease, elector.name, { namespace, preconditions: { uid, resourceVersion }, signal });
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
}
