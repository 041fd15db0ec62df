/**
 * 10. Finalizers: the primary objects are deleted, and the operator is killed right after its
 * cleanup, as it tries to remove its finalizer (the proxy holds that write); restarted, it runs
 * the cleanup again, which must succeed. Deletion completes, the outputs go, nothing the operator
 * wrote is left behind; and a whole namespace with settled fixtures can be deleted.
 */
import { Namespace } from "../../../api/index.ts";
import { NotFoundError } from "../../../client/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { now, poll } from "../internal/poll.ts";
import { prepare, seconds } from "../internal/steps.ts";
import {
  involved,
  keyOf,
  remove,
  type Snapshot,
  snapshot,
  typeOf,
  writtenStrays,
} from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import type { ConformanceSession } from "../session.ts";

/** Deletes the primaries; if they carry finalizers, kills the operator as it removes one. Says what happened. */
async function deleteThroughACrash(session: ConformanceSession, snap: Snapshot): Promise<string> {
  const finalized = snap.primaries.filter((p) => p.metadata.finalizers?.length);
  if (finalized.length === 0) {
    for (const primary of snap.primaries) await remove(session, primary);
    return "no finalizers on the primary objects";
  }
  const plurals = await Promise.all(snap.primaries.map(async (p) => (await typeOf(session, p)).plural));
  const held = session.proxy.inject(
    {
      verb: ["patch", "update"],
      path: new RegExp(`/namespaces/${snap.namespace}/(${[...new Set(plurals)].join("|")})/[^/]+$`),
    },
    { blackhole: true },
  );
  try {
    for (const primary of snap.primaries) await remove(session, primary);
    const marker = session.marker();
    const reached = await poll(() => (held.hits > 0 ? true : undefined), session.subject.timings.repairMs);
    await session.operator.kill();
    // Let the proxy see the dead client's held request end, so that lifting the hold cannot forward it.
    const heldRequests = () => session.requestsSince(marker).filter((r) => r.faults.includes("blackhole"));
    await poll(
      () => (heldRequests().every((r) => r.durationMs !== undefined) ? true : undefined),
      10_000,
      50,
    );
    return reached
      ? `${finalized.length} finalized object(s); killed as it removed a finalizer after cleanup`
      : `${finalized.length} finalized object(s); no finalizer removal seen before the kill`;
  } finally {
    held.remove();
    await session.operator.start();
  }
}

/** Waits until the primaries, their outputs and anything else the operator wrote in the namespace are gone. */
async function waitGone(session: ConformanceSession, snap: Snapshot, marker: number): Promise<void> {
  let left: string[] = [];
  const gone = await poll(async () => {
    const current = await snapshot(session, snap.namespace);
    left = [
      ...current.primaries.map(
        (p) =>
          `${keyOf(p)}${p.metadata.finalizers?.length ? ` (finalizers ${p.metadata.finalizers.join(", ")})` : ""}`,
      ),
      ...[...current.outputs.keys()],
      ...writtenStrays(current).map((o) => `${o.key} (written by the operator, left behind)`),
    ];
    return left.length === 0 || undefined;
  }, session.subject.timings.repairMs);
  if (!gone) {
    throw new CheckFailed({
      expected: `deletion complete within ${seconds(session.subject.timings.repairMs)}: primary objects, outputs and whatever the operator wrote gone`,
      seen: `still there: ${left.join(", ")}`,
      requests: involved(session, snap.namespace, marker),
    });
  }
}

/** Deletes a namespace with settled fixtures and waits until it is gone. */
async function deleteNamespace(session: ConformanceSession): Promise<number> {
  const { namespace } = await prepare(session, "finalizers-ns");
  const marker = session.marker();
  const start = now();
  await session.dropNamespace(namespace);
  const deadline = session.subject.timings.convergeMs;
  const gone = await poll(
    () =>
      session.client.get(Namespace, namespace).then(
        () => undefined,
        (err: unknown) => (err instanceof NotFoundError ? now() : undefined),
      ),
    deadline,
    500,
  );
  if (gone === undefined) {
    const left = await snapshot(session, namespace).catch(() => undefined);
    throw new CheckFailed({
      expected: `namespace ${namespace} with settled fixtures deleted within ${seconds(deadline)}`,
      seen: `it is still terminating${left ? `; left: ${left.primaries.map(keyOf).join(", ")}` : ""}`,
      requests: involved(session, namespace, marker),
    });
  }
  return gone - start;
}

export const finalizers: ConformanceCheck = {
  name: "finalizers",
  title: "cleanup may run twice; deletion completes",
  async run(session) {
    const { snap } = await prepare(session, "finalizers");
    const marker = session.marker();
    const start = now();
    const how = await deleteThroughACrash(session, snap);
    await waitGone(session, snap, marker);
    const ms = now() - start;
    const namespaceMs = await deleteNamespace(session);
    return {
      timeMs: ms,
      summary: `${how}; deleted in ${seconds(ms)}, nothing left; a namespace deleted in ${seconds(namespaceMs)}`,
    };
  },
};
