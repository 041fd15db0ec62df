/**
 * 4. Exclusive outputs hold nothing foreign. The kit adds a field to each output under its own
 * field manager — a key in `data`, an `env` entry in a pod template, or what the spec's
 * `addForeignField` says — that the operator did not write and that server-side apply alone never
 * removes. Each must be gone within the repair deadline, and the repair attributed: a
 * `DriftRepaired` event on the owner naming the kit's field manager, and
 * `kubeloop_drift_repairs_total{manager}` counting it. Skipped for an operator whose outputs are
 * shared with other writers (`exclusiveOutputs: false`).
 */
import { Event, type KubeObject } from "../../../api/index.ts";
import { METRICS } from "../../../metrics/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { sameJson } from "../internal/compare.ts";
import { now, poll } from "../internal/poll.ts";
import { prepare, seconds } from "../internal/steps.ts";
import { isOfKind } from "../internal/subject.ts";
import { involved, type Output, snapshot, typeOf } from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import { type ConformanceSession, KIT_FIELD_MANAGER } from "../session.ts";
import type { JsonPatchOperation } from "../spec.ts";

const repairsMetric = METRICS.driftRepairs;
const foreignName = "KL_CONFORMANCE_FOREIGN";

interface PodTemplated extends KubeObject {
  spec?: { template?: { spec?: { containers?: { env?: unknown[] }[] } } };
}

/**
 * The default foreign field: a new key in `data` (valid base64, so a Secret takes it too), else a
 * new `env` entry in the first container of a pod template; none for other shapes.
 */
export function defaultForeignField(output: KubeObject): JsonPatchOperation[] | undefined {
  const data = (output as { data?: unknown }).data;
  if (data && typeof data === "object") {
    return [{ op: "add", path: `/data/${foreignName.toLowerCase()}`, value: "Zm9yZWlnbg==" }];
  }
  const container = (output as PodTemplated).spec?.template?.spec?.containers?.[0];
  if (!container) return undefined;
  const entry = { name: foreignName, value: KIT_FIELD_MANAGER };
  const env = "/spec/template/spec/containers/0/env";
  return container.env
    ? [{ op: "add", path: `${env}/${container.env.length}`, value: entry }]
    : [{ op: "add", path: env, value: [entry] }];
}

/** The value at a JSON pointer, or undefined. */
function at(obj: unknown, pointer: string): unknown {
  const segments = pointer.split("/").slice(1);
  return segments.reduce<unknown>((value, raw) => {
    const segment = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    return value && typeof value === "object" ? (value as Record<string, unknown>)[segment] : undefined;
  }, obj);
}

/** True while any value the patch added is still where it put it. */
const stillThere = (obj: KubeObject, patch: readonly JsonPatchOperation[]): boolean =>
  patch.some((op) => op.op === "add" && sameJson(at(obj, op.path), op.value));

interface Added {
  output: Output;
  patch: JsonPatchOperation[];
}

/** Adds the foreign field to every output the apiserver lets the kit change; returns what it added. */
async function addForeign(session: ConformanceSession, outputs: Output[]): Promise<Added[]> {
  const make = session.subject.spec.addForeignField ?? defaultForeignField;
  const added: Added[] = [];
  for (const output of outputs) {
    const patch = make(structuredClone(output.object));
    if (!patch) continue;
    const type = await typeOf(session, output.object);
    const ok = await session.client
      .patch(type, output.object.metadata.name ?? "", patch, {
        type: "json",
        namespace: output.object.metadata.namespace,
      })
      .then(
        () => true,
        () => false,
      );
    if (ok) added.push({ output, patch });
  }
  return added;
}

/** Waits until no added field is left; returns the time from `start`. */
async function waitReverted(session: ConformanceSession, added: Added[], start: number, marker: number) {
  const { repairMs } = session.subject.timings;
  const namespace = added[0]?.output.object.metadata.namespace ?? "";
  let left: string[] = [];
  const done = await poll(async () => {
    const snap = await snapshot(session, namespace);
    left = added
      .filter((a) => {
        const now = snap.outputs.get(a.output.key)?.object;
        return now === undefined || stillThere(now, a.patch);
      })
      .map((a) => a.output.key);
    return left.length === 0 ? now() : undefined;
  }, repairMs);
  if (done !== undefined) return done - start;
  throw new CheckFailed({
    expected: `every field ${KIT_FIELD_MANAGER} added to an exclusive output removed within ${repairMs / 1000} s`,
    seen: `still there (or the output gone) in ${left.join(", ")}: server-side apply alone never removes another manager's field`,
    requests: involved(session, namespace, marker),
  });
}

/** Waits for a `DriftRepaired` event naming the kit on the owner of every changed output. */
async function waitAttributed(session: ConformanceSession, added: Added[], marker: number): Promise<void> {
  const namespace = added[0]?.output.object.metadata.namespace ?? "";
  const owners = new Set(added.map((a) => a.output.owner?.split("/")[1]).filter((o) => o !== undefined));
  let missing: string[] = [];
  const done = await poll(async () => {
    const events = await session.client.list(Event, { namespace });
    const told = new Set(
      events.items
        .filter((e) => e.reason === "DriftRepaired" && (e.note ?? "").includes(KIT_FIELD_MANAGER))
        .map((e) => e.regarding?.name),
    );
    missing = [...owners].filter((o) => !told.has(o));
    return missing.length === 0 || undefined;
  }, session.subject.timings.repairMs);
  if (!done) {
    throw new CheckFailed({
      expected: `a DriftRepaired event on each owner naming who added the field (${KIT_FIELD_MANAGER})`,
      seen: `none on ${missing.join(", ")}`,
      requests: involved(session, namespace, marker),
    });
  }
}

/** The exclusive-outputs check: fields another manager adds to an output are removed, and the repair told. */
export const exclusiveOutputs: ConformanceCheck = {
  name: "exclusive-outputs",
  title: "a foreign field added to an exclusive output is reverted and attributed",
  async run(session) {
    const exclusive = session.subject.spec.exclusiveOutputs;
    if (exclusive === false) {
      return { skipped: true, summary: "the spec says the outputs are shared with other writers" };
    }
    const prepared = await prepare(session, "exclusive");
    const outputs = [...prepared.snap.outputs.values()].filter(
      (o) => exclusive === undefined || isOfKind(o.object, exclusive),
    );
    const before = await session.operator.metric(repairsMetric, { manager: KIT_FIELD_MANAGER });
    const marker = session.marker();
    const start = now();
    const added = await addForeign(session, outputs);
    if (added.length === 0) {
      return { skipped: true, summary: "no exclusive output the kit could add a field to" };
    }
    const ms = await waitReverted(session, added, start, marker);
    await waitAttributed(session, added, marker);
    const counted = (await session.operator.metric(repairsMetric, { manager: KIT_FIELD_MANAGER })) - before;
    if (counted < added.length) {
      throw new CheckFailed({
        expected: `${repairsMetric.name}{manager="${KIT_FIELD_MANAGER}"} to count the ${added.length} repair(s)`,
        seen: `it moved by ${counted}`,
        requests: [],
      });
    }
    const what = added.map((a) => `${a.output.key} ${a.patch[0]?.path}`).join(", ");
    return { timeMs: ms, summary: `foreign fields added to ${what}: removed in ${seconds(ms)}, attributed` };
  },
};
