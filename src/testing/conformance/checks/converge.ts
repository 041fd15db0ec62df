/**
 * 1. Converges from nothing and from messy starts. The fixtures settle in a fresh namespace. Then:
 * with the operator down, every other output is tampered with, and it must put them right when it
 * starts (it converges from what exists, not from events it was sent); the primary objects are
 * created again while outputs of theirs are controlled by another object, which the operator must
 * neither take over nor claim to be fine with, until that owner lets go; and, when the spec builds
 * one, from objects of its choosing already present (e.g. outputs without an owner, to adopt).
 */
import type { KubeObject } from "../../../api/index.ts";
import { ConfigMap } from "../../../api/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { creatable, ownedFields } from "../internal/fields.ts";
import { now, poll } from "../internal/poll.ts";
import {
  deletePrimaries,
  describeTamper,
  type Prepared,
  prepare,
  recreatePrimaries,
  seconds,
  tamper,
} from "../internal/steps.ts";
import {
  controllerOf,
  involved,
  keyOf,
  listPrimaries,
  remove,
  type Snapshot,
  settle,
  shapeProblems,
  snapshot,
  typeOf,
  waitRestored,
} from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import type { ConformanceSession } from "../session.ts";

/** The clean outputs as objects to create: what the operator wrote, no owner, namespaced. */
function cleanOutputs(snap: Snapshot): KubeObject[] {
  return [...snap.outputs.values()].map((o) =>
    creatable({
      ...structuredClone(o.applied),
      metadata: { ...o.applied.metadata, namespace: snap.namespace },
    }),
  );
}

/** Outputs tampered with while the operator is down; it must put them right once it starts. */
async function wrongWhileDown(session: ConformanceSession, clean: Prepared): Promise<number> {
  await session.operator.stop({ restart: true });
  const tampered: string[] = [];
  try {
    for (const [i, output] of [...clean.snap.outputs.values()].entries()) {
      if (i % 2 === 1) continue;
      const patch = await tamper(session, output);
      if (patch) tampered.push(describeTamper(output, patch));
    }
  } finally {
    await session.operator.start();
  }
  const marker = session.marker();
  const start = now();
  const what = `every output tampered with while the operator was down put right once it started (${tampered.join("; ") || "none could be tampered with"})`;
  await waitRestored(session, clean.snap, { start, marker, what });
  return settle(session, clean.namespace, {
    start,
    marker,
    what: "the fixtures to settle after the restart",
  });
}

/** Objects the spec's builder puts in place before the primary objects are created again. */
async function prebuilt(session: ConformanceSession, clean: Prepared): Promise<number | undefined> {
  const builder = session.subject.spec.messyStart;
  if (typeof builder !== "function") return undefined;
  await deletePrimaries(session, clean.snap, "to set up the spec's messy start");
  for (const obj of builder(cleanOutputs(clean.snap))) {
    const placed = { ...obj, metadata: { ...obj.metadata, namespace: clean.namespace } };
    await session.client.create(await typeOf(session, placed), placed);
  }
  const marker = session.marker();
  const start = now();
  const uids = await recreatePrimaries(session, clean.snap);
  const what = "the fixtures to settle from the spec's messy start";
  const ms = await settle(session, clean.namespace, { start, marker, what });
  await waitRestored(session, clean.snap, {
    start,
    marker,
    uids,
    what: "every output as a clean start writes it",
  });
  const extra = shapeProblems(clean.snap, await snapshot(session, clean.namespace));
  if (extra.length) {
    throw new CheckFailed({
      expected: "the outputs of a clean start, no more (what was present adopted, not duplicated)",
      seen: extra.join("; "),
      requests: involved(session, clean.namespace, marker),
    });
  }
  return ms;
}

/** What the operator must not do while a same-named output is controlled by another object. */
async function violations(
  session: ConformanceSession,
  clean: Snapshot,
  foreign: ReadonlyMap<string, KubeObject>,
  ownerUid: string,
): Promise<string[]> {
  const snap = await snapshot(session, clean.namespace);
  const found: string[] = [];
  for (const [key] of foreign) {
    const current = snap.outputs.get(key)?.object ?? snap.strays.find((s) => s.key === key)?.object;
    if (!current) found.push(`${key} was deleted`);
    else if (controllerOf(current)?.uid !== ownerUid) found.push(`${key} was taken over`);
    else if (ownedFields(current, session.subject.fieldManagers)) found.push(`${key} was written to`);
  }
  const owners = new Set([...foreign.keys()].map((key) => clean.outputs.get(key)?.owner));
  for (const primary of snap.primaries.filter((p) => owners.has(keyOf(p)) && session.subject.settled(p))) {
    found.push(`${keyOf(primary)} claims to be settled while its outputs belong to someone else`);
  }
  return found;
}

/** Watches the operator meet the conflict: until it has reported on every primary, and a while after. */
async function watchConflict(
  session: ConformanceSession,
  clean: Snapshot,
  foreign: ReadonlyMap<string, KubeObject>,
  ownerUid: string,
): Promise<string[]> {
  let seen: string[] = [];
  let reportedAt: number | undefined;
  await poll(
    async () => {
      seen = await violations(session, clean, foreign, ownerUid);
      if (seen.length) return true;
      const primaries = await listPrimaries(session, clean.namespace);
      const reported = primaries.every(
        (p) =>
          (p as { status?: { observedGeneration?: number } }).status?.observedGeneration ===
          p.metadata.generation,
      );
      reportedAt = reported ? (reportedAt ?? now()) : undefined;
      const long = reportedAt !== undefined && now() - reportedAt >= 3 * session.subject.timings.quietMs;
      return long ? true : undefined;
    },
    20_000,
    300,
  );
  return seen;
}

async function ownedBySomeoneElse(session: ConformanceSession, clean: Prepared): Promise<number> {
  const { namespace } = clean;
  await deletePrimaries(session, clean.snap, "to set up a start with outputs owned by someone else");
  const owner = await session.client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "kubeloop-conformance-other-owner", namespace },
    data: { purpose: "owns the outputs, as another controller would" },
  });
  const ref = {
    apiVersion: "v1",
    kind: "ConfigMap",
    name: owner.metadata.name ?? "",
    uid: owner.metadata.uid ?? "",
  };
  const foreign = new Map<string, KubeObject>();
  for (const obj of cleanOutputs(clean.snap)) {
    const owned = { ...obj, metadata: { ...obj.metadata, ownerReferences: [{ ...ref, controller: true }] } };
    foreign.set(keyOf(obj), await session.client.create(await typeOf(session, owned), owned));
  }
  const marker = session.marker();
  const uids = await recreatePrimaries(session, clean.snap);
  const seen = await watchConflict(session, clean.snap, foreign, ref.uid);
  if (seen.length) {
    throw new CheckFailed({
      expected:
        "outputs controlled by another object left alone, and the primary objects not reported settled",
      seen: seen.join("; "),
      requests: involved(session, namespace, marker),
    });
  }
  const start = now();
  for (const obj of foreign.values()) await remove(session, obj);
  await remove(session, owner);
  const ms = await settle(session, namespace, {
    start,
    marker,
    what: "the fixtures to settle once the other owner let go of the outputs",
  });
  await waitRestored(session, clean.snap, {
    start,
    marker,
    uids,
    what: "every output as a clean start writes it",
  });
  return ms;
}

export const converge: ConformanceCheck = {
  name: "converge",
  title: "converges from nothing and from messy starts",
  async run(session) {
    const clean = await prepare(session, "converge");
    session.reference ??= clean.snap;
    const parts = [`from nothing ${seconds(clean.ms)}`];
    if (clean.snap.outputs.size === 0) return { timeMs: clean.ms, summary: `${parts[0]}; no outputs` };
    if (session.subject.spec.messyStart === false) {
      return { timeMs: clean.ms, summary: `${parts[0]}; messy starts off in the spec` };
    }
    const times = [clean.ms];
    const step = async (label: string, run: () => Promise<number | undefined>) => {
      session.log(`converge: ${parts.at(-1)}; next: ${label}`);
      const ms = await run();
      if (ms === undefined) return;
      times.push(ms);
      parts.push(`${label} ${seconds(ms)}`);
    };
    await step("outputs wrong while the operator was down", () => wrongWhileDown(session, clean));
    await step("the spec's messy start", () => prebuilt(session, clean));
    await step("outputs owned by another, after release", () => ownedBySomeoneElse(session, clean));
    return { timeMs: Math.max(...times), summary: parts.join("; ") };
  },
};
