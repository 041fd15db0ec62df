/**
 * 8. The cache heals itself. The proxy drops every event of the operator's watches of one kind —
 * on reconnected watches too, until the check ends — and that kind changes once: a primary
 * object's spec (the spec's `mutate`), or, without `mutate`, its outputs are disturbed. Nothing
 * changes after that, so no later event and no watch resumption can tell the operator: only the
 * periodic relist of its informers (the kit runs it every `timings.relistMs`) can. It must converge
 * within a relist period plus the repair deadline, and count what its watches missed in
 * `kubeloop_cache_divergence_total`. An operator whose cache never compares itself with the
 * apiserver waits for its next resync (hours) and fails.
 */
import { METRICS } from "../../../metrics/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { now } from "../internal/poll.ts";
import {
  countEvents,
  describeDisturbance,
  disturb,
  firstPrimary,
  mutatePrimary,
  type Prepared,
  prepareQuiet,
  seconds,
} from "../internal/steps.ts";
import { settle, typeOf, waitRestored } from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import type { ConformanceSession } from "../session.ts";

const divergenceMetric = METRICS.cacheDivergence;

/** The one change the operator's watches miss: the resources whose events are dropped, and making it. */
interface Change {
  resources: string[];
  /** Makes the change and waits for convergence; says what changed and how long convergence took. */
  converged(start: number, marker: number): Promise<{ what: string; ms: number }>;
}

/** Changes the first primary object's spec; converged when the namespace settles again. */
async function specChange(session: ConformanceSession, prepared: Prepared): Promise<Change> {
  const primary = await firstPrimary(session, prepared.namespace);
  const { plural } = await typeOf(session, primary);
  const what = `a spec change of ${primary.kind}/${primary.metadata.name}`;
  return {
    resources: [plural],
    async converged(start, marker) {
      await mutatePrimary(session, primary, 1);
      const ms = await settle(session, prepared.namespace, {
        start,
        marker,
        deadlineMs: deadline(session),
        what: `${primary.kind}/${primary.metadata.name} to settle on its new spec, which its watch never reported`,
      });
      return { what, ms };
    },
  };
}

/** Disturbs the outputs (deletes or tampers with them); converged when they are restored. */
async function outputChange(session: ConformanceSession, prepared: Prepared): Promise<Change> {
  const outputs = [...prepared.snap.outputs.values()];
  const resources = await Promise.all(outputs.map(async (o) => (await typeOf(session, o.object)).plural));
  return {
    resources: [...new Set(resources)],
    async converged(start, marker) {
      const what = describeDisturbance(await disturb(session, outputs));
      const ms = await waitRestored(session, prepared.snap, {
        start,
        marker,
        deadlineMs: deadline(session),
        what: `every output repaired (${what}) although the operator's watches never reported it`,
      });
      return { what, ms };
    },
  };
}

/** A relist period (with its jitter) plus the repair deadline. */
function deadline(session: ConformanceSession): number {
  const { repairMs, relistMs } = session.subject.timings;
  return repairMs + 1.2 * relistMs;
}

/** The cache-heals check: a change the watches never report must still converge, through a relist. */
export const cacheHeals: ConformanceCheck = {
  name: "cache-heals",
  title: "cache heals after dropped watch events without any new change to the object",
  async run(session) {
    const prepared = await prepareQuiet(session, "heals");
    const mutate = session.subject.spec.mutate !== undefined;
    if (!mutate && prepared.snap.outputs.size === 0) {
      return { skipped: true, summary: "no outputs to disturb and no `mutate` in the spec: nothing to miss" };
    }
    const change = mutate ? await specChange(session, prepared) : await outputChange(session, prepared);
    const before = await session.operator.metric(divergenceMetric);
    const dropped = countEvents(session, "dropped");
    const marker = session.marker();
    const rule = session.proxy.inject({ verb: "watch", resource: change.resources }, { dropEvents: "all" });
    let converged: { what: string; ms: number };
    try {
      converged = await change.converged(now(), marker);
    } finally {
      rule.remove();
    }
    const healed = (await session.operator.metric(divergenceMetric)) - before;
    const lost = dropped();
    if (healed <= 0) {
      throw new CheckFailed({
        expected: `the operator's periodic relist to find what its watches of ${change.resources.join(", ")} missed (${lost} events dropped) and count it in ${divergenceMetric.name}`,
        seen: `it converged, but ${divergenceMetric.name} did not move: something other than the relist repaired it`,
        requests: session.requestsSince(marker).slice(-15),
      });
    }
    const { what, ms } = converged;
    return {
      timeMs: ms,
      summary: `${what} with every event of ${change.resources.join(", ")} dropped (${lost}): converged in ${seconds(ms)} after a relist found ${healed} missed object(s)`,
    };
  },
};
