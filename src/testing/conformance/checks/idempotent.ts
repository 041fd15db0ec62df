/**
 * 2. Idempotent: once the fixtures have settled, a forced reconcile of every object the operator
 * watches issues no write. Writes are counted at the proxy; Lease renewals, Events and access
 * reviews are not reconcile writes and do not count.
 */
import type { ConformanceCheck } from "../check.ts";
import { now, poll } from "../internal/poll.ts";
import { concerns, isReconcileWrite } from "../internal/requests.ts";
import { prepare, seconds } from "../internal/steps.ts";
import { CheckFailed } from "../result.ts";
import { hold } from "../session.ts";

export const idempotent: ConformanceCheck = {
  name: "idempotent",
  title: "a settled object's reconcile writes nothing",
  async run(session) {
    const { namespace, snap } = await prepare(session, "idempotent");
    const marker = session.marker();
    const before = await session.operator.state();
    const start = now();
    const enqueued = await session.operator.reconcileAll();
    const done = await poll(async () => {
      const state = await session.operator.state();
      return state.idle && state.reconciles - before.reconciles >= Math.min(enqueued, 1) ? state : undefined;
    }, session.subject.timings.repairMs);
    const ms = now() - start;
    if (!done) {
      throw new CheckFailed({
        expected: `the ${enqueued} forced reconciles to finish within ${seconds(session.subject.timings.repairMs)}`,
        seen: "the operator stayed busy",
        requests: session.requestsSince(marker).filter(isReconcileWrite).slice(-15),
      });
    }
    // Writes may trail the reconciles that decided them (events, retries): watch a quiet period more.
    await hold(session.subject.timings.quietMs);
    const writes = session.requestsSince(marker).filter((r) => isReconcileWrite(r) && concerns(r, namespace));
    const objects = `${snap.primaries.length} settled primary object(s) in ${namespace}`;
    if (writes.length > 0) {
      throw new CheckFailed({
        expected: `no write when every object is reconciled again (${enqueued} reconciles forced; ${objects}; Lease and Event writes not counted)`,
        seen: `${writes.length} write(s): ${[...new Set(writes.map((w) => `${w.method} ${w.resource}`))].join(", ")}`,
        requests: writes.slice(0, 15),
      });
    }
    const reconciles = done.reconciles - before.reconciles;
    return {
      timeMs: ms,
      summary: `${reconciles} forced reconciles (${objects}) in ${seconds(ms)}: 0 writes`,
    };
  },
};
