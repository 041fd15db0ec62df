/**
 * 9. Crash safety: the operator is SIGKILLed at random points while it works — after a random
 * number (1–3) of its writes, which the proxy slows down so that kills land mid-request and
 * mid-reconcile — and restarted, N times, with new work between kills (outputs deleted or tampered
 * with, a spec changed). It must converge with the outputs of a clean start: none missing, no duplicate, no
 * orphan, and no output created more often than it had to be.
 */
import { mutatingVerbs } from "../../proxy/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { now, poll } from "../internal/poll.ts";
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

/** Disturbs every output and changes the first primary's spec, so the next life has work to do. */
async function makeWork(
  session: ConformanceSession,
  namespace: string,
  round: number,
  deleted: Map<string, number>,
): Promise<void> {
  const snap = await snapshot(session, namespace);
  const done = await disturb(session, snap.outputs.values());
  for (const [plural, n] of await perResource(session, done.deleted)) {
    deleted.set(plural, (deleted.get(plural) ?? 0) + n);
  }
  if (session.subject.spec.mutate)
    await mutatePrimary(session, await firstPrimary(session, namespace), round);
}

/** Waits for the operator's k-th write (k random in 1..3), then kills it; says where. */
async function killMidReconcile(session: ConformanceSession): Promise<string> {
  const writes = () => session.proxy.mutatingCount();
  const from = writes();
  const k = 1 + Math.floor(session.random() * 3);
  const reached = await poll(() => (writes() - from >= k ? true : undefined), 15_000, 20);
  await hold(Math.floor(session.random() * 150));
  const inFlight = session.proxy.requests().filter((r) => r.durationMs === undefined && r.verb !== "watch");
  await session.operator.kill();
  if (!reached) return "idle (no work seen)";
  return `after ${writes() - from} write(s)${inFlight.length ? `, ${inFlight.length} request(s) in flight` : ""}`;
}

export const crashSafety: ConformanceCheck = {
  name: "crash-safety",
  title: "killed mid-reconcile, no duplicate or orphan",
  async run(session) {
    const ref = await reference(session);
    const crashes = session.subject.spec.crashes ?? 5;
    const namespace = await session.namespace("crash");
    const marker = session.marker();
    const deleted = new Map<string, number>();
    const kills: string[] = [];
    // Writes take a while, so that a kill finds the operator in the middle of one.
    const slow = session.proxy.inject({ verb: [...mutatingVerbs], namespace }, { latencyMs: 250 });
    try {
      await createFixtures(session, namespace);
      for (let round = 1; round <= crashes; round++) {
        if (round > 1) await makeWork(session, namespace, round, deleted);
        kills.push(await killMidReconcile(session));
        await session.operator.start();
      }
    } finally {
      slow.remove();
    }
    const start = now();
    const what = `the fixtures to settle after ${crashes} kills (${kills.join("; ")})`;
    const ms = await settle(session, namespace, { start, marker, what });
    const allowed = await cleanCreations(session, ref);
    for (const [plural, n] of deleted) allowed.set(plural, (allowed.get(plural) ?? 0) + n);
    // A spec change may legitimately replace outputs (an immutable field changed): one more set per change.
    const changes = session.subject.spec.mutate ? crashes - 1 : 0;
    for (const [plural, n] of await cleanCreations(session, ref)) {
      allowed.set(plural, (allowed.get(plural) ?? 0) + n * changes);
    }
    const problems = [
      ...shapeProblems(ref, await snapshot(session, namespace)),
      ...excessCreations(creations(session.requestsSince(marker), namespace), allowed),
    ];
    if (problems.length) {
      throw new CheckFailed({
        expected: `after ${crashes} kills, the outputs of a clean start: none missing, no duplicate, no orphan`,
        seen: problems.join("; "),
        requests: involved(session, namespace, marker),
      });
    }
    return {
      timeMs: ms,
      summary: `killed ${crashes}× (${kills.join("; ")}); converged ${seconds(ms)} after the last restart`,
    };
  },
};
