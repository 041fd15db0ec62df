/**
 * 3. Outputs are watched: every output tampered with is restored, and every output deleted comes
 * back, within the repair deadline — through the operator's watch on its outputs, not a resync.
 * For an operator that leaves a deleted output deleted (`outputDeletion: "leave"`, a
 * run-to-completion output), it must stay gone; whether the owner's status reports it is told.
 * Objects the primaries control of a kind not declared as owned fail the check first.
 */
import type { KubeObject } from "../../../api/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { sameJson, withoutTransitionTimes } from "../internal/compare.ts";
import { findUndeclaredOutputs } from "../internal/controlled.ts";
import { now } from "../internal/poll.ts";
import { describeTamper, type Prepared, prepare, seconds, tamper } from "../internal/steps.ts";
import { involved, keyOf, type Output, remove, snapshot, waitRestored } from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import { type ConformanceSession, hold } from "../session.ts";

/** A measured part of the check. */
interface Part {
  ms: number;
  text: string;
}

async function tamperAll(session: ConformanceSession, prepared: Prepared, outputs: Output[]): Promise<Part> {
  const marker = session.marker();
  const start = now();
  const tampered: string[] = [];
  const untouchable: string[] = [];
  for (const output of outputs) {
    const patch = await tamper(session, output);
    if (patch) tampered.push(describeTamper(output, patch));
    else untouchable.push(output.key);
  }
  if (tampered.length === 0) {
    throw new CheckFailed({
      expected: "at least one output the kit can tamper with (give `tamper` in the spec)",
      seen: `the apiserver refused every change tried on ${untouchable.join(", ")}`,
      requests: [],
    });
  }
  const ms = await waitRestored(session, prepared.snap, {
    start,
    marker,
    what: `every tampered output restored (${tampered.join("; ")})`,
  });
  const skipped = untouchable.length ? ` (not tampered: ${untouchable.join(", ")})` : "";
  return { ms, text: `${tampered.length} tampered, restored in ${seconds(ms)}${skipped}` };
}

async function deleteAll(session: ConformanceSession, prepared: Prepared, outputs: Output[]): Promise<Part> {
  const marker = session.marker();
  const start = now();
  for (const output of outputs) await remove(session, output.object);
  const ms = await waitRestored(session, prepared.snap, {
    start,
    marker,
    what: `every deleted output (${outputs.map((o) => o.key).join(", ")}) back as the operator wrote it`,
  });
  return { ms, text: `${outputs.length} deleted, back in ${seconds(ms)}` };
}

const statusOf = (obj: KubeObject | undefined) =>
  withoutTransitionTimes((obj as { status?: unknown })?.status);

/** Deletes the outputs, which must stay deleted; says whether their owners' status changed. */
async function deleteAndLeave(
  session: ConformanceSession,
  prepared: Prepared,
  outputs: Output[],
): Promise<Part> {
  const { namespace } = prepared;
  const marker = session.marker();
  const start = now();
  for (const output of outputs) await remove(session, output.object);
  await hold(Math.max(5_000, 2 * session.subject.timings.quietMs));
  const after = await snapshot(session, namespace);
  const recreated = outputs.filter((o) => after.outputs.has(o.key)).map((o) => o.key);
  if (recreated.length) {
    throw new CheckFailed({
      expected:
        'deleted outputs left deleted (the spec says `outputDeletion: "leave"`: recreating repeats a side effect)',
      seen: `recreated: ${recreated.join(", ")}`,
      requests: involved(session, namespace, marker),
    });
  }
  const owners = new Set(outputs.map((o) => o.owner));
  const reported = prepared.snap.primaries
    .filter((p) => owners.has(keyOf(p)))
    .filter((p) => !sameJson(statusOf(p), statusOf(after.primaries.find((a) => keyOf(a) === keyOf(p)))))
    .map(keyOf);
  const how = reported.length ? `reported by ${reported.join(", ")}` : "status unchanged";
  return { ms: now() - start, text: `${outputs.length} deleted, left deleted (${how})` };
}

/**
 * Fails when a primary object controls objects of a kind that is not an output kind: the operator
 * forgot `.owns(Kind)`, so changes to them wake no reconcile (and the kit would not tamper with them).
 */
async function requireDeclared(session: ConformanceSession, prepared: Prepared): Promise<void> {
  const undeclared = await findUndeclaredOutputs(session, prepared.namespace, prepared.snap.primaries);
  if (undeclared.length === 0) return;
  const inSpec = session.subject.spec.outputs ? " and list it in the spec's `outputs`" : "";
  throw new CheckFailed({
    expected:
      "every kind of object a primary object controls declared as owned, so that a change to one wakes its owner's reconcile",
    seen: undeclared
      .map(
        (u) =>
          `${u.kind} (${u.apiVersion}) is not declared: ${u.objects.join(", ")} — add \`.owns(${u.kind})\` to the controller${inSpec}`,
      )
      .join("; "),
  });
}

export const outputsWatched: ConformanceCheck = {
  name: "outputs-watched",
  title: "deleted or tampered outputs are repaired",
  async run(session) {
    const prepared = await prepare(session, "outputs");
    await requireDeclared(session, prepared);
    const outputs = [...prepared.snap.outputs.values()];
    if (outputs.length === 0) return { skipped: true, summary: "the fixtures produce no outputs" };
    const tampered = await tamperAll(session, prepared, outputs);
    const deleted =
      session.subject.spec.outputDeletion === "leave"
        ? await deleteAndLeave(session, prepared, outputs)
        : await deleteAll(session, prepared, outputs);
    return { timeMs: Math.max(tampered.ms, deleted.ms), summary: `${tampered.text}; ${deleted.text}` };
  },
};
