/**
 * 6. Missed events do not matter. First the proxy drops every watch event for a while as outputs
 * are deleted (or tampered with, see `outputDeletion`), then ends the streams as an apiserver's watch timeout does: resuming from the last
 * event it saw, the operator must get and repair what it missed. Then the proxy silences the
 * watches — a dead connection — while outputs are deleted again and a spec changes: the operator
 * must notice the silence (its watches reconnect on inactivity) and, once the dead connections
 * finally drop, converge. An operator that resumes from "now" rather than from its last
 * resourceVersion (and does not list again) keeps ghosts in its cache and fails; one that does not
 * detect silent watches fails the second part.
 */
import { METRICS } from "../../../metrics/index.ts";
import type { RequestRecord } from "../../proxy/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { now, poll } from "../internal/poll.ts";
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
import { involved, settle, shapeProblems, snapshot, waitRestored } from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import { type ConformanceSession, hold } from "../session.ts";

const watches = (records: RequestRecord[]) => records.filter((r) => r.verb === "watch");

function deadline(session: ConformanceSession): number {
  const { repairMs, watchInactivityMs } = session.subject.timings;
  return repairMs + 3 * watchInactivityMs;
}

/** Phase 1: every watch event dropped for a while as outputs are deleted; then the streams end. */
interface Phase {
  ms: number;
  text: string;
}

async function dropped(session: ConformanceSession, prepared: Prepared): Promise<Phase> {
  const marker = session.marker();
  const dropped = countEvents(session, "dropped");
  const rule = session.proxy.inject({ verb: "watch" }, { dropEvents: "all" });
  const start = now();
  let disturbed = "";
  try {
    disturbed = describeDisturbance(await disturb(session, prepared.snap.outputs.values()));
    await hold(Math.max(3_000, session.subject.timings.watchInactivityMs / 2));
  } finally {
    rule.remove();
    session.proxy.killWatches({ mode: "end" });
  }
  const lost = dropped();
  const ms = await waitRestored(session, prepared.snap, {
    start,
    marker,
    deadlineMs: deadline(session),
    what: `every output repaired after the operator's watches lost their events (${lost} dropped; ${disturbed})`,
  });
  return { ms, text: `${lost} events dropped, repaired in ${seconds(ms)}` };
}

/** Resources the operator watches: those of its watch requests so far. */
function watchedResources(session: ConformanceSession): Set<string> {
  return new Set(watches(session.requestsSince(0)).flatMap((r) => (r.resource ? [r.resource] : [])));
}

/**
 * Phase 2: every watch silenced until each has reconnected (inactivity detection), with outputs
 * deleted and a spec changed meanwhile; then the silenced connections drop.
 */
async function silenced(session: ConformanceSession, prepared: Prepared): Promise<Phase> {
  const { namespace } = prepared;
  const watched = watchedResources(session);
  const marker = session.marker();
  const silenced = countEvents(session, "silenced");
  const rule = session.proxy.inject({ verb: "watch" }, { silence: true });
  const start = now();
  let reconnected: Set<string> | undefined;
  try {
    if (session.subject.spec.mutate) await mutatePrimary(session, await firstPrimary(session, namespace), 1);
    await disturb(session, prepared.snap.outputs.values());
    const changedAt = session.marker();
    reconnected = await poll(
      () => {
        const again = new Set(watches(session.requestsSince(changedAt)).map((r) => r.resource ?? ""));
        return [...watched].every((w) => again.has(w)) ? again : undefined;
      },
      2 * session.subject.timings.watchInactivityMs + 5_000,
    );
  } finally {
    rule.remove();
    session.proxy.killWatches();
  }
  const lost = silenced();
  if (!reconnected) {
    const again = new Set(watches(session.requestsSince(marker)).map((r) => r.resource ?? ""));
    throw new CheckFailed({
      expected: `every silenced watch (${[...watched].join(", ")}) to reconnect within two inactivity periods (${seconds(2 * session.subject.timings.watchInactivityMs)}): silent watches detected`,
      seen: `reconnected: ${[...watched].filter((w) => again.has(w)).join(", ") || "none"}`,
      requests: watches(session.requestsSince(marker)).slice(-15),
    });
  }
  const what = `the namespace to converge after the operator's watches were silenced (${lost} events lost)`;
  const ms = await settle(session, namespace, { start, marker, deadlineMs: deadline(session), what });
  if (!session.subject.spec.mutate) {
    await waitRestored(session, prepared.snap, { start, marker, deadlineMs: deadline(session), what });
  } else {
    // A primary object can look settled (its status predates the deletions) before the deleted
    // outputs are back: wait for them too, within the same deadline.
    let problems: string[] = [];
    const whole = await poll(async () => {
      problems = shapeProblems(prepared.snap, await snapshot(session, namespace));
      return problems.length ? undefined : true;
    }, deadline(session));
    if (!whole) {
      throw new CheckFailed({
        expected: `${what}, with the outputs of every primary object`,
        seen: problems.join("; "),
        requests: involved(session, namespace, marker),
      });
    }
  }
  return {
    ms,
    text: `${lost} events silenced, watches reconnected on inactivity, converged in ${seconds(ms)}`,
  };
}

export const missedEvents: ConformanceCheck = {
  name: "missed-events",
  title: "missed watch events do not matter",
  async run(session) {
    const prepared = await prepareQuiet(session, "missed");
    if (prepared.snap.outputs.size === 0 && !session.subject.spec.mutate) {
      return { skipped: true, summary: "no outputs to delete and no `mutate` in the spec: nothing to miss" };
    }
    const resyncs = await session.operator.metric(METRICS.reconcileTriggers, { trigger: "resync" });
    const first = prepared.snap.outputs.size ? await dropped(session, prepared) : undefined;
    const second = await silenced(session, prepared);
    const resynced =
      (await session.operator.metric(METRICS.reconcileTriggers, { trigger: "resync" })) - resyncs;
    return {
      timeMs: Math.max(first?.ms ?? 0, second.ms),
      summary:
        `dropped: ${first?.text ?? "no outputs"}; silenced: ${second.text}` +
        (resynced ? `; ${resynced} resync reconciles` : ""),
    };
  },
};
