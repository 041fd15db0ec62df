/**
 * The oracles a trial is judged by, each throwing a {@link Violation} naming itself: the primary
 * objects converge or say why not (kstatus), a reconcile failure still standing once settled shows
 * on its object, nothing is written while settled, the children and
 * status equal those a fresh operator start produces for the same final spec (history
 * independence), and nothing the operator wrote outlives the primary.
 */
import type { KubeObject } from "../../../api/index.ts";
import { kstatus } from "../../../status/index.ts";
import type { RequestRecord } from "../../proxy/index.ts";
import { differences, replaceInStrings, sameJson, withoutMembers } from "../internal/compare.ts";
import { appliedState } from "../internal/fields.ts";
import { deletePrimaries } from "../internal/steps.ts";
import {
  createFixtures,
  discard,
  involved,
  isPrimary,
  keyOf,
  type Output,
  restoreProblems,
  type Snapshot,
  settle,
  shapeProblems,
  snapshot,
  typeOf,
  writtenStrays,
} from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import type { ConformanceSession } from "../session.ts";
import { unshownFailures } from "./failures.ts";
import { comparableName, withoutObservations } from "./observations.ts";

/** The oracles, by name. */
export type OracleName =
  | "converges"
  | "failure-shown"
  | "quiet-when-settled"
  | "history-independent"
  | "no-orphan";

/** What an oracle found: what was expected, what was seen, the operator's requests involved. */
export class Violation extends Error {
  constructor(
    readonly oracle: OracleName,
    readonly expected: string,
    readonly seen: string,
    readonly requests: RequestRecord[],
  ) {
    super(`${oracle}: expected ${expected}; seen ${seen}`);
  }
}

const fromCheck = (oracle: OracleName, err: CheckFailed) =>
  new Violation(oracle, err.failure.expected, err.failure.seen, err.failure.requests);

/** A primary that did not settle but says why: kstatus Failed (Stalled) for its latest generation. */
function explainsItself(obj: KubeObject): boolean {
  const observed = (obj as { status?: { observedGeneration?: unknown } }).status?.observedGeneration;
  const k = kstatus(obj);
  return observed === obj.metadata.generation && k.status === "Failed" && Boolean(k.message);
}

/**
 * Oracles (a) and (b): every primary of `namespace` settles within the converge deadline, or shows
 * a condition saying why not; no write goes on once settled. Returns how it ended, for the log.
 */
export async function converges(
  session: ConformanceSession,
  namespace: string,
  marker: number,
  what: string,
): Promise<string> {
  try {
    const ms = await settle(session, namespace, { marker, what });
    return `settled in ${(ms / 1000).toFixed(1)} s`;
  } catch (err) {
    if (!(err instanceof CheckFailed)) throw err;
    if (err.failure.expected.startsWith("no write once")) throw fromCheck("quiet-when-settled", err);
    const primaries = (await snapshot(session, namespace)).primaries;
    if (primaries.length > 0 && primaries.every(explainsItself)) {
      return `stalled, saying why: ${primaries.map((p) => kstatus(p).message).join("; ")}`;
    }
    throw fromCheck("converges", err);
  }
}

/**
 * The oracle "no reconcile error that is not on the object", once `namespace` settled: every
 * primary whose last reconcile (as the operator process recorded it) failed says so in its
 * conditions (see `failures.ts`).
 */
export async function failuresShown(
  session: ConformanceSession,
  namespace: string,
  marker: number,
): Promise<void> {
  const outcomes = await session.operator.reconciles();
  const problems = unshownFailures(outcomes, (await snapshot(session, namespace)).primaries);
  if (problems.length) {
    throw new Violation(
      "failure-shown",
      "a primary whose last reconcile failed to say so in its conditions (Ready or Succeeded not True, Stalled or Reconciling True)",
      problems.join("; "),
      involved(session, namespace, marker),
    );
  }
}

/** A status as compared across histories: no observed generations, no time or digest (see `observations.ts`). */
function comparableStatus(obj: KubeObject): unknown {
  return withoutObservations(withoutMembers((obj as { status?: unknown }).status, ["observedGeneration"]));
}

/**
 * Fresh namespace's names and uids → the explored one's, so that names derived from them compare;
 * likewise the names `generateName` gave the outputs of each.
 */
function renames(fresh: Snapshot, explored: Snapshot): Map<string, string> {
  const map = new Map([[fresh.namespace, explored.namespace]]);
  const twins: [KubeObject, KubeObject | undefined][] = [
    ...fresh.primaries.map((p): [KubeObject, KubeObject | undefined] => [
      p,
      explored.primaries.find((e) => keyOf(e) === keyOf(p)),
    ]),
    ...[...fresh.outputs].map(([key, o]): [KubeObject, KubeObject | undefined] => [
      o.object,
      explored.outputs.get(key)?.object,
    ]),
  ];
  for (const [p, twin] of twins) {
    if (p.metadata.uid && twin?.metadata.uid) map.set(p.metadata.uid, twin.metadata.uid);
    // Outputs paired by prefix and rank (see `generatedKeys`): a status naming one in a sentence.
    const [name, twinName] = [p.metadata.name, twin?.metadata.name];
    if (name && twinName && name !== twinName) map.set(name, twinName);
  }
  return map;
}

/** `snap` with its outputs' observations of time and digests left out (see `observations.ts`). */
function comparable(snap: Snapshot): Snapshot {
  const outputs = new Map(
    [...snap.outputs].map(([key, o]) => {
      const object = withoutObservations(o.object) as KubeObject;
      return [key, { ...o, object, applied: appliedState(object, o.fields) }];
    }),
  );
  return { ...snap, outputs };
}

/**
 * `snap` with the outputs `generateName` named keyed by their prefix and rank among the outputs of
 * that prefix (`ConfigMap/signed-label-<generated name> #1`): two runs name them differently, yet
 * how many there are compares.
 */
function generatedKeys(snap: Snapshot): Snapshot {
  const ranks = new Map<string, number>();
  const keys = [...snap.outputs.keys()].sort();
  const rekeyed = keys.map((key): [string, Output] => {
    const output = snap.outputs.get(key) as Output;
    const name = `${output.object.kind}/${comparableName(output.object.metadata.name ?? "")}`;
    if (name === key) return [key, output];
    const rank = (ranks.get(name) ?? 0) + 1;
    ranks.set(name, rank);
    return [`${name} #${rank}`, output];
  });
  return { ...snap, outputs: new Map(rekeyed) };
}

/**
 * Where `explored` differs from `fresh`: outputs (shape and content) and primary status, renamed
 * from the fresh namespace's names and uids to the explored one's; outputs named by `generateName`
 * compared by prefix and rank. Exported for its unit test.
 */
export function historyProblems(freshSnap: Snapshot, exploredSnap: Snapshot): string[] {
  const fresh = generatedKeys(freshSnap);
  const explored = generatedKeys(exploredSnap);
  const names = renames(fresh, explored);
  const problems = new Set([
    ...shapeProblems(fresh, explored),
    ...restoreProblems(comparable(fresh), comparable(explored), names),
  ]);
  for (const p of fresh.primaries) {
    const twin = explored.primaries.find((e) => keyOf(e) === keyOf(p));
    const want = replaceInStrings(comparableStatus(p), names);
    const have = twin && comparableStatus(twin);
    if (twin && !sameJson(want, have))
      problems.add(`${keyOf(p)} status: ${differences(want, have, 3).join("; ")}`);
  }
  return [...problems];
}

/**
 * Oracle (c): restarts the operator, creates the fixtures in a clean namespace with the target's
 * final spec applied directly, lets them settle, and compares with `explored` (taken before the
 * restart): the same outputs with the same content, the same status.
 */
export async function historyIndependent(
  session: ConformanceSession,
  explored: Snapshot,
  target: KubeObject,
  marker: number,
): Promise<void> {
  await session.operator.stop();
  await session.operator.start();
  const namespace = await session.namespace("fresh");
  try {
    const isTarget = (f: KubeObject) => keyOf(f) === keyOf(target);
    await createFixtures(session, namespace, { only: (f) => !isTarget(f) });
    const spec = (target as { spec?: unknown }).spec;
    const obj = { ...target, metadata: { name: target.metadata.name, namespace }, spec } as KubeObject;
    await session.client.create(await typeOf(session, obj), obj);
    await converges(session, namespace, session.marker(), "a fresh start with the final spec to settle");
    const problems = historyProblems(await snapshot(session, namespace), explored);
    if (problems.length) {
      throw new Violation(
        "history-independent",
        `the outputs and status a fresh operator start produces for the same final spec (in ${namespace})`,
        problems.join("; "),
        involved(session, explored.namespace, marker),
      );
    }
  } finally {
    await discard(session, namespace).catch(() => {});
  }
}

/** Oracle (d): deleting the primaries removes every output, and leaves nothing the operator wrote. */
export async function noOrphan(
  session: ConformanceSession,
  explored: Snapshot,
  marker: number,
): Promise<void> {
  try {
    await deletePrimaries(session, explored, "the trial's end");
  } catch (err) {
    if (err instanceof CheckFailed) throw fromCheck("no-orphan", err);
    throw err;
  }
  const left = writtenStrays(await snapshot(session, explored.namespace));
  if (left.length) {
    throw new Violation(
      "no-orphan",
      "nothing the operator wrote left once the primary objects are gone",
      `left: ${left.map((s) => s.key).join(", ")}`,
      involved(session, explored.namespace, marker),
    );
  }
}

/** The first primary fixture: the object a trial changes. */
export function targetFixture(session: ConformanceSession, namespace: string): KubeObject {
  const target = session.subject.spec.fixtures(namespace).find((f) => isPrimary(session, f));
  if (!target) throw new CheckFailed({ expected: "a primary object among the fixtures", seen: "none" });
  return target;
}
