/**
 * 11. Transient failures: while the fixtures converge, the proxy slows requests down, answers some
 * with 429 and 500, resets connections (some after the apiserver acted, so a retry meets its own
 * write); the apiserver restarts (or, on a cluster the kit did not start, stops answering for a
 * while); a spec changes and an output is deleted meanwhile. Once the faults stop, the operator must
 * converge with nothing lost and nothing duplicated.
 */
import { mutatingVerbs, type RuleHandle } from "../../proxy/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { now, poll } from "../internal/poll.ts";
import { concerns, isReconcileWrite } from "../internal/requests.ts";
import {
  cleanCreations,
  creations,
  disturb,
  excessCreations,
  firstPrimary,
  mutatePrimary,
  perResource,
  reference,
  seconds,
} from "../internal/steps.ts";
import { createFixtures, involved, settle, shapeProblems, snapshot } from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import { type ConformanceSession, hold } from "../session.ts";

const faultWindowMs = 6_000;

function injectFaults(session: ConformanceSession): RuleHandle[] {
  const { proxy } = session;
  const writes = [...mutatingVerbs];
  return [
    proxy.inject({ probability: 0.3 }, { latencyMs: 400 }),
    proxy.inject({ verb: writes, probability: 0.2 }, { status: 429, retryAfterSeconds: 1 }),
    proxy.inject({ verb: ["get", "list"], probability: 0.15 }, { status: 500 }),
    proxy.inject({ verb: writes, probability: 0.1 }, { reset: "after-headers" }),
    proxy.inject({ verb: ["get", "list", "watch"], probability: 0.1 }, { reset: "before-headers" }),
  ];
}

/** Takes the apiserver away for a few seconds: a real restart when the kit runs the cluster. */
async function outage(session: ConformanceSession): Promise<string> {
  if (session.cluster) {
    await session.cluster.restart("kube-apiserver", { downMs: 2_000 });
    return "apiserver restarted";
  }
  const down = session.proxy.inject({}, { reset: "before-headers" });
  session.proxy.killWatches();
  await hold(3_000);
  down.remove();
  return "apiserver unreachable for 3 s (at the proxy)";
}

/**
 * The kit's own requests during the faults may meet the restarting apiserver, or an admission
 * webhook of the operator's whose own reads failed under the faults (a create it denies was not
 * made): retry them, as a user would.
 */
async function retrying<T>(action: () => Promise<T>): Promise<T> {
  const result = await poll(() => action().then((value) => ({ value })), 60_000, 500);
  if (!result) return action();
  return result.value;
}

export const transientFailures: ConformanceCheck = {
  name: "transient-failures",
  title: "survives 429, 500, resets, latency, apiserver restart",
  async run(session) {
    const ref = await reference(session);
    const namespace = await session.namespace("transient");
    const marker = session.marker();
    const created = now();
    const rules = injectFaults(session);
    const allowed = await cleanCreations(session, ref);
    let outageDone = "";
    try {
      await createFixtures(session, namespace, { send: retrying });
      const firstWrite = () =>
        session.requestsSince(marker).some((r) => isReconcileWrite(r) && concerns(r, namespace)) || undefined;
      await poll(firstWrite, 30_000, 100);
      outageDone = await outage(session);
      if (session.subject.spec.mutate) {
        await retrying(async () => mutatePrimary(session, await firstPrimary(session, namespace), 1));
        for (const [plural, n] of allowed) allowed.set(plural, n * 2);
      }
      const snap = await retrying(() => snapshot(session, namespace));
      const victims = [...snap.outputs.values()].slice(0, 1);
      const done = await retrying(() => disturb(session, victims));
      for (const [plural, n] of await perResource(session, done.deleted)) {
        allowed.set(plural, (allowed.get(plural) ?? 0) + n);
      }
      await hold(faultWindowMs);
    } finally {
      for (const rule of rules) rule.remove();
    }
    const ms = await settle(session, namespace, {
      start: created,
      marker,
      what: `the fixtures to settle once the faults stopped (${outageDone})`,
    });
    const faulted = session.requestsSince(marker).filter((r) => r.faults.length > 0).length;
    const problems = [
      ...shapeProblems(ref, await snapshot(session, namespace)),
      ...excessCreations(creations(session.requestsSince(marker), namespace), allowed),
    ];
    if (problems.length) {
      throw new CheckFailed({
        expected: "after the faults, the outputs of a clean start: none missing, no duplicate, no orphan",
        seen: problems.join("; "),
        requests: involved(session, namespace, marker),
      });
    }
    return {
      timeMs: ms,
      summary: `${faulted} requests faulted, ${outageDone}; converged ${seconds(ms)} from the fixtures' creation, through the faults`,
    };
  },
};
