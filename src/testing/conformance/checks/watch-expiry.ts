/**
 * 7. Watch expiry: with the operator's watches silenced, outputs are deleted and etcd is compacted
 * past everything the operator saw; then its watches are cut. Resuming from its last
 * resourceVersion gets 410 Expired, so it must list again, repair what it missed, and cause no
 * duplicate side effect: outputs it did not lose keep their uid, and each lost one is created once.
 * Against a cluster the kit did not start, the 410 comes from the proxy instead of etcd.
 */
import { METRICS } from "../../../metrics/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { now, poll } from "../internal/poll.ts";
import {
  countEvents,
  creations,
  type Disturbance,
  describeDisturbance,
  disturb,
  excessCreations,
  perResource,
  prepareQuiet,
  seconds,
} from "../internal/steps.ts";
import { involved, shapeProblems, snapshot, waitRestored } from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import type { ConformanceSession } from "../session.ts";

const expiredRelists = (session: ConformanceSession) =>
  session.operator.metric(METRICS.watchRelists, { reason: "expired" });

/** Forces 410 Expired on the operator's next watch resumptions; says how, and how to stop it. */
async function expire(session: ConformanceSession): Promise<{ how: string; done(): void }> {
  if (session.cluster) {
    return { how: `etcd compacted at revision ${await session.cluster.compactEtcd()}`, done() {} };
  }
  const watched = new Set(
    session
      .requestsSince(0)
      .filter((r) => r.verb === "watch")
      .map((r) => r.resource),
  );
  const rule = session.proxy.inject(
    { verb: "watch", times: Math.max(1, watched.size) },
    { status: 410, reason: "Expired" },
  );
  return { how: "the proxy answered the resumed watches with 410", done: () => rule.remove() };
}

export const watchExpiry: ConformanceCheck = {
  name: "watch-expiry",
  title: "410 Expired leads to a relist, no duplicate",
  async run(session) {
    const { namespace, snap } = await prepareQuiet(session, "expiry");
    const outputs = [...snap.outputs.values()];
    if (outputs.length === 0) return { skipped: true, summary: "the fixtures produce no outputs to lose" };
    const lost = outputs.filter((_, i) => i % 2 === 0);
    const kept = outputs.filter((_, i) => i % 2 === 1);
    const before = await expiredRelists(session);
    const marker = session.marker();
    const swallowed = countEvents(session, "silenced");
    const silence = session.proxy.inject({ verb: "watch" }, { silence: true });
    const start = now();
    let expiry: { how: string; done(): void } | undefined;
    let disturbed: Disturbance = { deleted: [], tampered: [] };
    try {
      disturbed = await disturb(session, lost);
      await poll(() => (swallowed() >= lost.length ? true : undefined), 30_000);
      expiry = await expire(session);
    } finally {
      silence.remove();
    }
    const how = expiry.how;
    session.proxy.killWatches();
    const ms = await waitRestored(session, snap, {
      start,
      marker,
      what: `every output repaired after the 410 (${how}; behind the silenced watches: ${describeDisturbance(disturbed)})`,
    }).finally(() => expiry?.done());
    const relisted = await poll(
      async () => ((await expiredRelists(session)) > before ? true : undefined),
      30_000,
    );
    const after = await snapshot(session, namespace);
    const problems = [
      ...(relisted ? [] : ["the operator's watches never listed again after 410 Expired"]),
      ...shapeProblems(snap, after),
      ...kept
        .filter((o) => after.outputs.get(o.key)?.object.metadata.uid !== o.object.metadata.uid)
        .map((o) => `${o.key} was left alone but was replaced (a duplicate side effect)`),
      ...excessCreations(
        creations(session.requestsSince(marker), namespace),
        await perResource(session, lost),
      ),
    ];
    if (problems.length) {
      throw new CheckFailed({
        expected:
          "a relist after 410 Expired, the outputs repaired (a deleted one created once), the others untouched",
        seen: problems.join("; "),
        requests: involved(session, namespace, marker),
      });
    }
    return {
      timeMs: ms,
      summary: `${how}; relisted, ${describeDisturbance(disturbed)}: repaired in ${seconds(ms)}, no duplicate`,
    };
  },
};
