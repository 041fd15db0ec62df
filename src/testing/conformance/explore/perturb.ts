/**
 * Sieve's intermediate states (OSDI '22): the operator killed right after its k-th write of a
 * reconcile, then restarted. The fault proxy holds every write about the trial's namespace and lets
 * them through one at a time; once the k-th has completed, the next one (if any) is still held when
 * the operator dies, so the cluster is left exactly between the k-th and the (k+1)-th write.
 */
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
