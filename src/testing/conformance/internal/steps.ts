/**
 * Steps the checks share: a namespace with its fixtures settled, deleting and recreating the
 * primary objects, changing a spec, tampering with an output, counting creations.
 */
import type { KubeObject } from "../../../api/index.ts";
import { ConflictError, InvalidError } from "../../../client/index.ts";
import type { RequestRecord } from "../../proxy/index.ts";
import { CheckFailed } from "../result.ts";
import type { ConformanceSession } from "../session.ts";
import type { JsonPatchOperation } from "../spec.ts";
import { tamperCandidates } from "./fields.ts";
import { now, poll } from "./poll.ts";
import { concerns, created, isReconcileWrite } from "./requests.ts";
import {
  controllerOf,
  createFixtures,
  involved,
  isPrimary,
  keyOf,
  listPrimaries,
  type Output,
  remove,
  type Snapshot,
  settle,
  snapshot,
  typeOf,
  writtenStrays,
} from "./world.ts";

/** A namespace whose fixtures have settled. */
export interface Prepared {
  namespace: string;
  /** Time from creating the fixtures until they settled. */
  ms: number;
  snap: Snapshot;
}

/** Creates a namespace, creates the fixtures in it and waits until they settle. */
export async function prepare(session: ConformanceSession, label: string): Promise<Prepared> {
  const namespace = await session.namespace(label);
  const marker = session.marker();
  const start = now();
  await createFixtures(session, namespace);
  const ms = await settle(session, namespace, { start, marker, what: "the fixtures to settle" });
  return { namespace, ms, snap: await snapshot(session, namespace) };
}

/**
 * {@link prepare} while the namespaces dropped so far go (see `quiesce`), for a check whose faults
 * need a quiet cluster: setting up does not, so it need not wait.
 */
export async function prepareQuiet(session: ConformanceSession, label: string): Promise<Prepared> {
  const [prepared, quiet] = await Promise.allSettled([prepare(session, label), session.quiesce()]);
  if (prepared.status === "rejected") throw prepared.reason;
  if (quiet.status === "rejected") throw quiet.reason;
  return prepared.value;
}

/** The clean outputs of the fixtures, from the session's reference namespace (made once, on demand). */
export async function reference(session: ConformanceSession): Promise<Snapshot> {
  session.reference ??= (await prepare(session, "reference")).snap;
  return session.reference;
}

/**
 * Deletes the primary objects of `snap` and waits until they and their outputs are gone. Outputs
 * still there once their controller is gone are deleted by the kit: the garbage collector would,
 * but only once it watches the primary's kind, which it finds by rediscovering resources every
 * 30 s — on a fresh cluster that lag was 34 s of a 57 s converge check (measured 2026-11-27).
 */
export async function deletePrimaries(
  session: ConformanceSession,
  snap: Snapshot,
  why: string,
): Promise<void> {
  const marker = session.marker();
  // Those there now: recreated since `snap`, they have new uids, which their outputs name.
  const primaries = await listPrimaries(session, snap.namespace);
  for (const primary of primaries) await remove(session, primary);
  const deleted = new Set(primaries.map((p) => p.metadata.uid));
  let left: string[] = [];
  const gone = await poll(async () => {
    const now = await snapshot(session, snap.namespace);
    const orphans = now.strays.filter((s) => snap.outputs.has(s.key));
    if (now.primaries.length === 0) {
      const collectable = orphans.filter((s) => deleted.has(controllerOf(s.object)?.uid));
      await Promise.all(collectable.map((s) => remove(session, s.object)));
    }
    left = [...now.primaries.map(keyOf), ...now.outputs.keys(), ...orphans.map((s) => s.key)];
    return left.length === 0 || undefined;
  }, session.subject.timings.repairMs);
  if (!gone) {
    throw new CheckFailed({
      expected: `the primary objects and their outputs gone within ${session.subject.timings.repairMs / 1000} s of deleting them (${why})`,
      seen: `still there: ${left.join(", ")}`,
      requests: involved(session, snap.namespace, marker),
    });
  }
}

/** Creates the primary fixtures again; returns the map from the old primaries' uids to the new ones'. */
export async function recreatePrimaries(
  session: ConformanceSession,
  old: Snapshot,
): Promise<Map<string, string>> {
  const fresh = await createFixtures(session, old.namespace, { only: (f) => isPrimary(session, f) });
  const uids = new Map<string, string>();
  for (const p of old.primaries) {
    const next = fresh.find((f) => keyOf(f) === keyOf(p));
    if (p.metadata.uid && next?.metadata.uid) uids.set(p.metadata.uid, next.metadata.uid);
  }
  return uids;
}

/**
 * Changes the spec of `primary` as the spec's `mutate` says (round `round`), retrying on conflicts.
 * Returns the new generation.
 */
export async function mutatePrimary(
  session: ConformanceSession,
  primary: KubeObject,
  round: number,
): Promise<number> {
  const mutate = session.subject.spec.mutate;
  if (!mutate) throw new TypeError("mutatePrimary needs the spec's mutate");
  const type = await typeOf(session, primary);
  for (let attempt = 1; ; attempt++) {
    const fresh = await session.client.get(type, primary.metadata.name ?? "", {
      namespace: primary.metadata.namespace,
    });
    const changed = mutate(structuredClone(fresh), round);
    try {
      const updated = await session.client.update(type, { ...changed, metadata: fresh.metadata });
      return updated.metadata.generation ?? 0;
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= 5) throw err;
    }
  }
}

/** The first primary object of a namespace (by fixture order). */
export async function firstPrimary(session: ConformanceSession, namespace: string): Promise<KubeObject> {
  const order = session.subject.spec
    .fixtures(namespace)
    .filter((f) => isPrimary(session, f))
    .map(keyOf);
  const primaries = await listPrimaries(session, namespace);
  const first = order.map((k) => primaries.find((p) => keyOf(p) === k)).find((p) => p !== undefined);
  if (!first)
    throw new CheckFailed({ expected: "a primary object among the fixtures", seen: "none", requests: [] });
  return first;
}

/** The patches to try on an output: the spec's `tamper`, else one per field the operator wrote. */
function patchesFor(session: ConformanceSession, output: Output): JsonPatchOperation[][] {
  const custom = session.subject.spec.tamper;
  if (custom) {
    const patch = custom(structuredClone(output.object));
    return patch ? [patch] : [];
  }
  return tamperCandidates(output.object, output.fields).slice(0, 8);
}

/**
 * Changes one field the operator wrote in `output`, trying candidates until the apiserver accepts
 * one (immutable or validated fields refuse). Returns the patch applied, or undefined if none was.
 */
export async function tamper(
  session: ConformanceSession,
  output: Output,
): Promise<JsonPatchOperation[] | undefined> {
  const type = await typeOf(session, output.object);
  for (const patch of patchesFor(session, output)) {
    try {
      await session.client.patch(type, output.object.metadata.name ?? "", patch, {
        type: "json",
        namespace: output.object.metadata.namespace,
      });
      return patch;
    } catch (err) {
      if (!(err instanceof InvalidError) && !(err as { status?: number }).status) throw err;
    }
  }
  return undefined;
}

/** What {@link disturb} did. */
export interface Disturbance {
  deleted: Output[];
  /** One line per tampered output. */
  tampered: string[];
}

/**
 * Disturbs outputs the way the operator must repair: deletes them, or — for an operator that leaves
 * a deleted output deleted (`outputDeletion: "leave"`) — tampers with them.
 */
export async function disturb(session: ConformanceSession, outputs: Iterable<Output>): Promise<Disturbance> {
  const done: Disturbance = { deleted: [], tampered: [] };
  for (const output of outputs) {
    if (session.subject.spec.outputDeletion === "leave") {
      const patch = await tamper(session, output);
      if (patch) done.tampered.push(describeTamper(output, patch));
    } else {
      await remove(session, output.object);
      done.deleted.push(output);
    }
  }
  return done;
}

/** One line on a disturbance: `deleted A, B` or `tampered with A: /path → value`. */
export function describeDisturbance(done: Disturbance): string {
  const deleted = done.deleted.length ? [`deleted ${done.deleted.map((o) => o.key).join(", ")}`] : [];
  const tampered = done.tampered.length ? [`tampered with ${done.tampered.join("; ")}`] : [];
  return [...deleted, ...tampered].join("; ") || "nothing disturbed";
}

/** One line on a tamper: `Kind/name: /path → value`. */
export function describeTamper(output: Output, patch: readonly JsonPatchOperation[]): string {
  const change = patch.find((op) => op.op !== "test");
  return `${output.key}: ${change?.path} → ${JSON.stringify(change?.value)}`;
}

/**
 * Objects the operator created (a POST, or a server-side apply that created) in `namespace` among
 * `records`, counted by resource (a POST names no object).
 */
export function creations(records: readonly RequestRecord[], namespace: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of records) {
    if (!created(r) || !concerns(r, namespace) || !isReconcileWrite(r) || !r.resource) continue;
    counts.set(r.resource, (counts.get(r.resource) ?? 0) + 1);
  }
  return counts;
}

/** What a clean start creates, per resource plural: its outputs and the strays the operator writes (receipts). */
export async function cleanCreations(
  session: ConformanceSession,
  ref: Snapshot,
): Promise<Map<string, number>> {
  return perResource(session, [...ref.outputs.values(), ...writtenStrays(ref)]);
}

/** Outputs of `outputs` per resource plural, as {@link creations} counts them. */
export async function perResource(
  session: ConformanceSession,
  outputs: Iterable<Output>,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const output of outputs) {
    const { plural } = await typeOf(session, output.object);
    counts.set(plural, (counts.get(plural) ?? 0) + 1);
  }
  return counts;
}

/** Resources created more often than `allowed` says: `plural: n created, at most m expected`. */
export function excessCreations(counted: Map<string, number>, allowed: Map<string, number>): string[] {
  return [...counted]
    .filter(([plural, n]) => n > (allowed.get(plural) ?? 0))
    .map(([plural, n]) => `${plural}: ${n} created, at most ${allowed.get(plural) ?? 0} expected`);
}

/** Formats milliseconds as seconds with one decimal. */
export const seconds = (ms: number | undefined): string =>
  ms === undefined ? "–" : `${(ms / 1000).toFixed(1)} s`;

/** Which watch-event fate to count: forwarded, dropped, silenced, ... */
type EventFate = "dropped" | "silenced";

/**
 * Counts watch events that met `fate` from now on, over every watch stream (those already open
 * included). Call the returned function to read the count.
 */
export function countEvents(session: ConformanceSession, fate: EventFate): () => number {
  const watches = () => session.requestsSince(0).filter((r) => r.verb === "watch");
  const total = () => watches().reduce((sum, r) => sum + (r.events?.[fate] ?? 0), 0);
  const baseline = total();
  return () => total() - baseline;
}
