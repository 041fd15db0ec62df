/**
 * Sieve's three perturbations (OSDI '22), driven through the fault proxy. Intermediate states: the
 * operator killed right after its k-th write of a reconcile, then restarted; the proxy holds every
 * write about the trial's namespace and lets them through one at a time, so once the k-th has
 * completed the next one (if any) is still held when the operator dies, and the cluster is left
 * exactly between the k-th and the (k+1)-th write. Stale states: the operator restarted on a view
 * of one kind as of an older resourceVersion. Unobserved states: two changes made while its watch
 * delivers nothing, then a fresh list.
 */
import { Namespace } from "../../../api/index.ts";
import { mutatingVerbs, type RuleHandle } from "../../proxy/index.ts";
import { now, poll } from "../internal/poll.ts";
import { concerns, isReconcileWrite } from "../internal/requests.ts";
import type { ConformanceSession } from "../session.ts";

/** How long a reconcile may stay without writing before the kill point counts as not reached. */
const idleGraceMs = 3_000;

/** The held or completed reconcile writes about `namespace` since `marker`. */
function writes(session: ConformanceSession, namespace: string, marker: number) {
  const all = session.requestsSince(marker).filter((r) => isReconcileWrite(r) && concerns(r, namespace));
  return {
    done: all.filter((r) => r.durationMs !== undefined).length,
    held: all.some((r) => r.durationMs === undefined && r.faults.includes("blackhole")),
  };
}

/**
 * Does `act` (the kit's own change, straight to the apiserver), then lets the operator's writes
 * about `namespace` through one by one and kills it right after the `k`-th; restarts it. Returns
 * how many writes it made before the kill: fewer than `k` when the reconcile ended sooner (the
 * operator is then killed idle, which is still a restart).
 */
export async function killAfterWrite(
  session: ConformanceSession,
  namespace: string,
  k: number,
  act: () => Promise<void>,
): Promise<number> {
  const marker = session.marker();
  const hold = (): RuleHandle =>
    session.proxy.inject({ verb: [...mutatingVerbs], namespace }, { blackhole: true });
  let rule = hold();
  try {
    await act();
    let lastMove = now();
    while (writes(session, namespace, marker).done < k) {
      const held = await poll(
        async () => {
          const seen = writes(session, namespace, marker);
          if (seen.held) return true;
          const idle = now() - lastMove > idleGraceMs && (await session.operator.state()).idle;
          return idle ? false : undefined;
        },
        session.subject.timings.convergeMs,
        20,
      );
      if (!held) break;
      const before = writes(session, namespace, marker).done;
      // Release the held write and hold the next, in one go: no write slips through in between.
      rule.remove();
      rule = hold();
      await poll(() => writes(session, namespace, marker).done > before || undefined, 30_000, 10);
      lastMove = now();
    }
    await session.operator.kill();
    // The held write dies with the operator's connection; wait until the proxy saw it close, or
    // removing the rule would forward it after all.
    await poll(() => (writes(session, namespace, marker).held ? undefined : true), 10_000, 20);
  } finally {
    rule.remove();
  }
  await session.operator.start();
  return writes(session, namespace, marker).done;
}

/** How long the operator must stay idle, writing nothing, to count as done with what it saw. */
const quietMs = 1_500;

/**
 * The longest a stale view is held: an operator that keeps writing on it (a child created on every
 * reconcile, say) has shown what it does by then, and a trial must not wait its converge deadline.
 */
export const staleHoldMs = 10_000;

/**
 * Waits until the operator is idle and has written nothing about `namespace` for {@link quietMs},
 * at most `timeoutMs`: the reconciles of what it saw made their writes. Says whether it went quiet.
 */
async function quiet(session: ConformanceSession, namespace: string, timeoutMs: number): Promise<boolean> {
  const marker = session.marker();
  let count = -1;
  let since = now();
  const wentQuiet = await poll(
    async () => {
      const seen = writes(session, namespace, marker).done;
      if (seen !== count) [count, since] = [seen, now()];
      return now() - since >= quietMs && (await session.operator.state()).idle ? true : undefined;
    },
    timeoutMs,
    100,
  );
  return wentQuiet === true;
}

/**
 * Sieve's stale states: takes the cluster's resourceVersion, does `act` (the kit's own change),
 * waits until the operator is quiet, then restarts it against a view of `resource` that lags, as
 * of that version. Its lists of `resource` are answered as of the version and its watches of it
 * deliver nothing, until the restarted process is quiet (at most {@link staleHoldMs}); then its
 * watches end, and resume from the stale version: every held event comes, in order, and the view
 * catches up. Returns the version and whether the operator went quiet on the stale view.
 */
export async function restartStale(
  session: ConformanceSession,
  namespace: string,
  resource: string,
  act: () => Promise<void>,
): Promise<{ resourceVersion: string; quiet: boolean }> {
  // Any consistent list answers with the cluster's current resourceVersion (etcd's revision).
  const resourceVersion = (await session.client.listPage(Namespace, { limit: 1 })).resourceVersion;
  await act();
  await quiet(session, namespace, session.subject.timings.convergeMs);
  await session.operator.kill();
  const rules = [
    session.proxy.inject({ verb: "list", resource }, { listAsOf: resourceVersion }),
    session.proxy.inject({ verb: "watch", resource }, { dropEvents: "all" }),
  ];
  try {
    await session.operator.start();
    return { resourceVersion, quiet: await quiet(session, namespace, staleHoldMs) };
  } finally {
    for (const rule of rules) rule.remove();
    session.proxy.killWatches({ mode: "end" });
  }
}

/**
 * Sieve's unobserved states: does `act` (two changes of the primary kind `resource`, back to back)
 * while the operator's watches of it deliver nothing, then has it list again — its watch
 * resumption answered 410 Expired, as after an etcd compaction — so that it sees only the state
 * after both. Returns whether it listed again within the converge deadline.
 */
export async function unobserved(
  session: ConformanceSession,
  resource: string,
  act: () => Promise<void>,
): Promise<boolean> {
  const held = session.proxy.inject({ verb: "watch", resource }, { dropEvents: "all" });
  let expired: RuleHandle | undefined;
  try {
    await act();
    const marker = session.marker();
    expired = session.proxy.inject({ verb: "watch", resource }, { status: 410 });
    held.remove();
    session.proxy.killWatches({ mode: "end" });
    const relisted = (r: { verb: string; resource?: string }) => r.verb === "list" && r.resource === resource;
    return Boolean(
      await poll(
        () => session.requestsSince(marker).some(relisted) || undefined,
        session.subject.timings.convergeMs,
        50,
      ),
    );
  } finally {
    held.remove();
    expired?.remove();
  }
}
