/**
 * 5. Status is rebuildable: the status of every settled primary object is wiped through the status
 * subresource; the next reconcile writes it back identical (`lastTransitionTime` aside), and it
 * stays so. History or timestamps kept in status show up as differences.
 */
import type { KubeObject } from "../../../api/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { differences, sameJson, withoutTransitionTimes } from "../internal/compare.ts";
import { now, poll } from "../internal/poll.ts";
import { prepare, seconds } from "../internal/steps.ts";
import { involved, keyOf, listPrimaries, typeOf } from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import { type ConformanceSession, hold } from "../session.ts";

const statusOf = (obj: KubeObject | undefined) =>
  withoutTransitionTimes((obj as { status?: unknown })?.status);

/** Differences between the statuses before the wipe and now, per object. */
async function drift(
  session: ConformanceSession,
  namespace: string,
  before: KubeObject[],
): Promise<string[]> {
  const current = await listPrimaries(session, namespace);
  return before.flatMap((b) => {
    const c = current.find((p) => keyOf(p) === keyOf(b));
    const expected = statusOf(b);
    const seen = statusOf(c);
    return sameJson(expected, seen) ? [] : [`${keyOf(b)}: ${differences(expected, seen, 4).join("; ")}`];
  });
}

export const statusRebuild: ConformanceCheck = {
  name: "status-rebuild",
  title: "a wiped status is rebuilt identical",
  async run(session) {
    const { namespace, snap } = await prepare(session, "status");
    const before = snap.primaries;
    const marker = session.marker();
    const start = now();
    for (const primary of before) {
      const wiped = await session.client.status.patch(
        await typeOf(session, primary),
        primary.metadata.name ?? "",
        { status: null },
        { type: "merge", namespace },
      );
      if ((wiped as { status?: unknown }).status !== undefined) {
        throw new CheckFailed({
          expected: `the status of ${keyOf(primary)} wiped through /status`,
          seen: "the apiserver kept it (does the kind have a status subresource?)",
          requests: [],
        });
      }
    }
    // "Wipe it and the next reconcile writes the same thing back": make sure there is a next one.
    await session.operator.reconcileAll();
    let problems: string[] = [];
    const rebuilt = await poll(async () => {
      problems = await drift(session, namespace, before);
      return problems.length === 0 ? now() : undefined;
    }, session.subject.timings.repairMs);
    if (rebuilt !== undefined) {
      await hold(session.subject.timings.quietMs);
      problems = await drift(session, namespace, before);
    }
    if (rebuilt === undefined || problems.length > 0) {
      throw new CheckFailed({
        expected: `every wiped status rebuilt identical (lastTransitionTime aside) within ${seconds(session.subject.timings.repairMs)}, and staying so`,
        seen: problems.join(" | "),
        requests: involved(session, namespace, marker),
      });
    }
    const ms = rebuilt - start;
    return { timeMs: ms, summary: `${before.length} status(es) wiped, rebuilt identical in ${seconds(ms)}` };
  },
};
