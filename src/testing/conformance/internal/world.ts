/**
 * The state of a test namespace as the kit sees it — the primary objects, the outputs they control
 * and any other object of an output kind — and the waits built on it: until everything settled,
 * until outputs are restored, until objects are gone. Failures say what was expected and seen.
 */
import type { KubeObject, OwnerReference, ResourceType } from "../../../api/index.ts";
import { NotFoundError } from "../../../client/index.ts";
import { kstatus } from "../../../status/index.ts";
import type { RequestRecord } from "../../proxy/index.ts";
import { CheckFailed } from "../result.ts";
import type { ConformanceSession } from "../session.ts";
import { differences, replaceInStrings, sameJson } from "./compare.ts";
import { appliedState, type FieldSet, ownedFields } from "./fields.ts";
import { now, poll } from "./poll.ts";
import { concerns, isReconcileWrite } from "./requests.ts";
import { isOfKind, kindKey } from "./subject.ts";

/** An object of an output kind. */
export interface Output {
  /** `Kind/name`. */
  key: string;
  object: KubeObject;
  /** `Kind/name` of the primary object that controls it, if one of the namespace does. */
  owner?: string;
  /** The fields the operator owns in it (from `managedFields`). */
  fields?: FieldSet;
  /** What the operator wrote in it (see `appliedState`). */
  applied: KubeObject;
}

/** A namespace at one moment. */
export interface Snapshot {
  namespace: string;
  primaries: KubeObject[];
  /** Outputs controlled by a primary object of the namespace, by key. */
  outputs: Map<string, Output>;
  /** Objects of output kinds that no primary object of the namespace controls. */
  strays: Output[];
}

/** `Kind/name` of an object. */
export const keyOf = (obj: KubeObject): string => `${obj.kind}/${obj.metadata.name}`;

/** The controller reference of an object. */
export const controllerOf = (obj: KubeObject): OwnerReference | undefined =>
  obj.metadata.ownerReferences?.find((r) => r.controller === true);

/** The resource type of an object: one of the operator's kinds, else from discovery. */
export async function typeOf(session: ConformanceSession, obj: KubeObject): Promise<ResourceType> {
  const { primaries, outputs } = session.subject;
  const known = [...primaries, ...outputs, ...session.subject.operator.kinds].find(
    (t) => kindKey(t) === kindKey(obj),
  );
  return known ?? session.client.discovery.resolve(obj.apiVersion, obj.kind);
}

/** The primary objects of `namespace`. */
export async function listPrimaries(session: ConformanceSession, namespace: string): Promise<KubeObject[]> {
  const lists = await Promise.all(
    session.subject.primaries.filter((t) => t.namespaced).map((t) => session.client.list(t, { namespace })),
  );
  return lists.flatMap((l) => l.items);
}

/** The namespace's primaries and the objects of output kinds, sorted into outputs and strays. */
export async function snapshot(session: ConformanceSession, namespace: string): Promise<Snapshot> {
  const primaries = await listPrimaries(session, namespace);
  const byUid = new Map(primaries.map((p) => [p.metadata.uid, keyOf(p)]));
  const lists = await Promise.all(
    session.subject.outputs.map((t) => session.client.list(t, t.namespaced ? { namespace } : {})),
  );
  const outputs = new Map<string, Output>();
  const strays: Output[] = [];
  for (const object of lists.flatMap((l) => l.items)) {
    if (isOfKind(object, session.subject.primaries)) continue;
    const owner = byUid.get(controllerOf(object)?.uid);
    const fields = ownedFields(object, session.subject.fieldManagers);
    const output: Output = {
      key: keyOf(object),
      object,
      owner,
      fields,
      applied: appliedState(object, fields),
    };
    if (owner) outputs.set(output.key, output);
    else if (object.metadata.namespace === namespace) strays.push(output);
  }
  return { namespace, primaries, outputs, strays };
}

/**
 * Strays the operator wrote to: objects of output kinds that no primary object of the namespace
 * controls (an output whose controller is gone, or one it keeps unowned, like a record of external
 * work that a finalizer cleans up).
 */
export function writtenStrays(snap: Snapshot): Output[] {
  return snap.strays.filter((s) => s.fields !== undefined && !s.object.metadata.deletionTimestamp);
}

/** One line on a primary object's state. */
export function describePrimary(session: ConformanceSession, obj: KubeObject): string {
  const status = (obj as { status?: { observedGeneration?: number } }).status;
  if (session.subject.settled(obj)) return `${keyOf(obj)}: settled`;
  const k = kstatus(obj);
  const why = [k.reason, k.message].filter(Boolean).join(": ");
  return (
    `${keyOf(obj)}: not settled (kstatus ${k.status}${why ? ` — ${why}` : ""}; generation ` +
    `${obj.metadata.generation}, status.observedGeneration ${status?.observedGeneration ?? "(absent)"})`
  );
}

/** The operator's reconcile writes and failed requests about `namespace` after `marker`; the last `limit`. */
export function involved(
  session: ConformanceSession,
  namespace: string,
  marker: number,
  limit = 15,
): RequestRecord[] {
  return session
    .requestsSince(marker)
    .filter(
      (r) =>
        concerns(r, namespace) &&
        r.verb !== "watch" &&
        (isReconcileWrite(r) || (r.status ?? 0) >= 400 || r.error !== undefined || r.faults.length > 0),
    )
    .slice(-limit);
}

/**
 * How long until the operator will have made no reconcile write about `namespace` for `quietMs`:
 * 0 when it has not for that long already, `quietMs` while one is in flight.
 */
function quietIn(session: ConformanceSession, namespace: string, marker: number): number {
  const quietMs = session.subject.timings.quietMs;
  const at = now();
  let wait = 0;
  for (const r of session.requestsSince(marker)) {
    if (!isReconcileWrite(r) || !concerns(r, namespace)) continue;
    const since = r.durationMs === undefined ? undefined : at - (r.startedAt + r.durationMs);
    wait = Math.max(wait, since === undefined ? Math.max(quietMs, 1) : quietMs - since);
  }
  return wait;
}

/** Options of {@link settle}. */
export interface SettleOptions {
  /** When the wait began (for the time reported). Default now. */
  start?: number;
  /** Default: the spec's converge deadline. */
  deadlineMs?: number;
  /** What the kit was waiting for, for the failure report. */
  what?: string;
  /** Requests after this id are quoted on failure. Default: those of the wait. */
  marker?: number;
}

/**
 * Waits until every primary object of `namespace` has settled, the operator made no reconcile
 * write there for the quiet period and its queues are idle. Returns the time from `start` until
 * the primaries settled for good. Throws {@link CheckFailed} at the deadline.
 */
export async function settle(
  session: ConformanceSession,
  namespace: string,
  options: SettleOptions = {},
): Promise<number> {
  const start = options.start ?? now();
  const marker = options.marker ?? session.marker();
  const deadline = options.deadlineMs ?? session.subject.timings.convergeMs;
  let settledSince: number | undefined;
  let last: KubeObject[] = [];
  let churning = false;
  // Once settled, probe again right when the quiet period is over, not up to a poll interval later.
  let next = 0;
  const done = await poll(
    async () => {
      next = settleProbeMs;
      last = await listPrimaries(session, namespace);
      if (last.length === 0 || !last.every(session.subject.settled)) {
        settledSince = undefined;
        return undefined;
      }
      settledSince ??= now();
      const wait = quietIn(session, namespace, Math.max(0, marker - 200));
      if (wait > 0) {
        // Settled, yet writing on and on: each write wakes the next reconcile, which writes again.
        churning = now() - settledSince > churnMs(session);
        next = Math.min(settleProbeMs, wait + 10);
        return churning ? 0 : undefined;
      }
      return (await session.operator.state()).idle ? settledSince : undefined;
    },
    deadline,
    () => next,
  );
  if (churning && settledSince !== undefined) throw churn(session, namespace, settledSince);
  if (done !== undefined) return done - start;
  throw new CheckFailed({
    expected: `${options.what ?? `every primary object in ${namespace} to settle`} within ${deadline / 1000} s`,
    seen:
      last.length === 0
        ? "no primary object in the namespace (do the fixtures include the operator's kinds?)"
        : last.map((p) => describePrimary(session, p)).join("; ") +
          (last.every(session.subject.settled) ? " — but the operator kept writing or stayed busy" : ""),
    requests: involved(session, namespace, marker),
  });
}

/** How often {@link settle} looks at the primary objects until they settled. */
const settleProbeMs = 250;

/** How long a settled namespace may see writes go on before the kit calls it a write loop. */
const churnMs = (session: ConformanceSession) => Math.max(15_000, 5 * session.subject.timings.quietMs);

/** The failure of an operator that keeps writing although everything settled. */
function churn(session: ConformanceSession, namespace: string, settledAt: number): CheckFailed {
  const writes = session
    .requestsSince(0)
    .filter((r) => isReconcileWrite(r) && concerns(r, namespace) && r.startedAt >= settledAt);
  const kinds = [...new Set(writes.map((w) => `${w.method} ${w.resource}`))].join(", ");
  return new CheckFailed({
    expected:
      "no write once every primary object has settled (a settled object's reconcile writes nothing; Lease and Event writes not counted)",
    seen: `${writes.length} writes in the ${((now() - settledAt) / 1000).toFixed(1)} s since everything settled (${kinds}): each write triggers another reconcile that writes again`,
    requests: writes.slice(-15),
  });
}

/** Problems of `snap` against `reference`: missing or misplaced outputs, and how their applied state differs. */
export function restoreProblems(
  reference: Snapshot,
  snap: Snapshot,
  uids: ReadonlyMap<string, string> = new Map(),
): string[] {
  const problems: string[] = [];
  for (const [key, want] of reference.outputs) {
    const have = snap.outputs.get(key);
    if (!have) {
      const stray = snap.strays.find((s) => s.key === key);
      problems.push(
        stray
          ? `${key} exists but ${want.owner} does not control it`
          : `${key} (of ${want.owner}) is missing`,
      );
      continue;
    }
    if (have.owner !== want.owner) problems.push(`${key} is controlled by ${have.owner}, not ${want.owner}`);
    // A recreated output has a new uid, and fields derived from it (a Job's selector) change with it.
    const renamed = new Map(uids);
    if (want.object.metadata.uid && have.object.metadata.uid)
      renamed.set(want.object.metadata.uid, have.object.metadata.uid);
    const expected = replaceInStrings(want.applied, renamed);
    const seen = appliedState(have.object, want.fields);
    if (!sameJson(expected, seen)) problems.push(`${key}: ${differences(expected, seen, 3).join("; ")}`);
  }
  return problems;
}

/** Options of {@link waitRestored}. */
export interface RestoreOptions {
  start: number;
  marker: number;
  deadlineMs?: number;
  /** Old primary uid → new one, when the primaries were recreated. */
  uids?: ReadonlyMap<string, string>;
  what: string;
}

/** Waits until every output of `reference` is back as the operator wrote it; returns the time from `start`. */
export async function waitRestored(
  session: ConformanceSession,
  reference: Snapshot,
  options: RestoreOptions,
): Promise<number> {
  const deadline = options.deadlineMs ?? session.subject.timings.repairMs;
  let problems: string[] = [];
  const done = await poll(
    async () => {
      problems = restoreProblems(reference, await snapshot(session, reference.namespace), options.uids);
      return problems.length === 0 ? now() : undefined;
    },
    deadline,
    250,
  );
  if (done !== undefined) return done - options.start;
  throw new CheckFailed({
    expected: `${options.what} within ${deadline / 1000} s`,
    seen: problems.join("; ") || "the namespace could not be read",
    requests: involved(session, reference.namespace, options.marker),
  });
}

/**
 * Problems of `snap` against the shape of `reference`: the same outputs with the same owners,
 * nothing extra, and no orphan — a stray the operator wrote that a clean start does not have.
 */
export function shapeProblems(reference: Snapshot, snap: Snapshot): string[] {
  const problems: string[] = [];
  for (const [key, want] of reference.outputs) {
    const have = snap.outputs.get(key);
    if (!have) problems.push(`${key} (of ${want.owner}) is missing`);
    else if (have.owner !== want.owner)
      problems.push(`${key} is controlled by ${have.owner}, not ${want.owner}`);
  }
  for (const key of snap.outputs.keys()) {
    if (!reference.outputs.has(key)) problems.push(`${key} is an extra output (a duplicate?)`);
  }
  const expected = new Set(writtenStrays(reference).map((s) => s.key));
  for (const orphan of writtenStrays(snap).filter((s) => !expected.has(s.key))) {
    const ref = controllerOf(orphan.object);
    problems.push(
      `${orphan.key} is an orphan: the operator wrote it and ${ref ? `its controller ${ref.kind}/${ref.name} (uid ${ref.uid}) is gone` : "nothing controls it"}`,
    );
  }
  return problems;
}

/** Options of {@link createFixtures}. */
export interface FixtureOptions {
  /** Keeps the fixtures to create. Default: all of them. */
  only?: (obj: KubeObject) => boolean;
  /** Sends each create (to retry it, say). Default: once. */
  send?: (create: () => Promise<KubeObject>) => Promise<KubeObject>;
}

/** Creates the fixtures (or those `only` keeps) in `namespace`, in order; returns what was created. */
export async function createFixtures(
  session: ConformanceSession,
  namespace: string,
  { only = () => true, send = (create) => create() }: FixtureOptions = {},
): Promise<KubeObject[]> {
  const created: KubeObject[] = [];
  for (const fixture of session.subject.spec.fixtures(namespace).filter(only)) {
    const obj = { ...fixture, metadata: { ...fixture.metadata, namespace } };
    const type = await typeOf(session, obj);
    created.push(await send(() => session.client.create(type, obj)));
  }
  return created;
}

/** True for a fixture that is a primary object (not an input). */
export function isPrimary(session: ConformanceSession, obj: KubeObject): boolean {
  return isOfKind(obj, session.subject.primaries);
}

/** Deletes `obj` (background propagation); an object already gone is fine. */
export async function remove(session: ConformanceSession, obj: KubeObject): Promise<void> {
  await session.client
    .delete(await typeOf(session, obj), obj.metadata.name ?? "", {
      namespace: obj.metadata.namespace,
      propagationPolicy: "Background",
    })
    .catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
}

/**
 * Deletes a namespace the kit is done with, its primary objects first (without waiting for them):
 * the operator removes their finalizers within the namespace controller's 5 s grace period, so its
 * first pass empties the namespace. Deleted with the namespace, finalized objects make that pass
 * find content left and come back seconds later (10.5 s until gone, against ~6 s; measured
 * 2026-11-27) — the time the next check that needs a quiet cluster waits.
 */
export async function discard(session: ConformanceSession, namespace: string): Promise<void> {
  const primaries = await listPrimaries(session, namespace).catch(() => []);
  await Promise.all(primaries.map((p) => remove(session, p).catch(() => {})));
  await session.dropNamespace(namespace);
}
