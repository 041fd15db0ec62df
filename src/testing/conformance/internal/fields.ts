/**
 * What the operator wrote in an output, read from `metadata.managedFields`: the union of the field
 * sets its managers own, the object projected onto that set (its "applied state", which the kit
 * compares before and after a repair), and the leaves of that set the kit can tamper with.
 */
import type { KubeObject } from "../../../api/index.ts";
import type { JsonPatchOperation } from "../spec.ts";

/** A `fieldsV1` set: `f:<field>`, `k:<key json>`, `v:<value json>`, `i:<index>` and `.` members. */
export type FieldSet = { [member: string]: FieldSet };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === "object" && !Array.isArray(v);

function merge(into: FieldSet, from: FieldSet): FieldSet {
  for (const [key, value] of Object.entries(from)) into[key] = merge(into[key] ?? {}, value ?? {});
  return into;
}

/**
 * The fields of `obj` that `managers` own outside the status subresource, or undefined when none
 * of them has an entry (the object was written without managed fields, or by someone else).
 */
export function ownedFields(obj: KubeObject, managers: readonly string[]): FieldSet | undefined {
  const entries = (obj.metadata.managedFields ?? []).filter(
    (e) => e.manager !== undefined && managers.includes(e.manager) && !e.subresource && isRecord(e.fieldsV1),
  );
  if (entries.length === 0) return undefined;
  return entries.reduce<FieldSet>((set, e) => merge(set, e.fieldsV1 as FieldSet), {});
}

const childMembers = (fields: FieldSet) => Object.keys(fields).filter((k) => k !== ".");

/** The list element a `k:` member names. */
function keyedElement(list: unknown[], member: string): number {
  const key = JSON.parse(member.slice(2)) as Record<string, unknown>;
  return list.findIndex(
    (el) =>
      isRecord(el) && Object.entries(key).every(([k, v]) => JSON.stringify(el[k]) === JSON.stringify(v)),
  );
}

/** Indexes of `list` a member selects (empty when it selects nothing present). */
function elementIndexes(list: unknown[], member: string): number[] {
  if (member.startsWith("k:")) return [keyedElement(list, member)].filter((i) => i >= 0);
  if (member.startsWith("v:")) {
    const value = member.slice(2);
    return [list.findIndex((el) => JSON.stringify(el) === value)].filter((i) => i >= 0);
  }
  if (member.startsWith("i:")) return [Number(member.slice(2))].filter((i) => i < list.length);
  return [];
}

/** `value` reduced to the members `fields` names; a leaf of the set keeps the whole value. */
export function project(value: unknown, fields: FieldSet): unknown {
  const members = childMembers(fields);
  if (members.length === 0) return value;
  if (Array.isArray(value)) {
    const picked = members.flatMap((m) => elementIndexes(value, m).map((i) => [i, m] as const));
    return picked.sort(([a], [b]) => a - b).map(([i, m]) => project(value[i], fields[m] as FieldSet));
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const member of members) {
    if (!member.startsWith("f:")) continue;
    const name = member.slice(2);
    if (name in value) out[name] = project(value[name], fields[member] as FieldSet);
  }
  return out;
}

const volatileAnnotations = ["kubectl.kubernetes.io/last-applied-configuration"];

/**
 * What the operator wrote in `obj`: `apiVersion`, `kind`, `metadata.name`, the labels and
 * annotations it set, and its fields outside metadata and status. Without a field set, everything
 * but status and server-managed metadata.
 */
export function appliedState(obj: KubeObject, fields: FieldSet | undefined): KubeObject {
  const { metadata, status: _status, ...body } = obj as KubeObject & { status?: unknown };
  const projected = (fields ? project(obj, fields) : body) as Record<string, unknown>;
  const { metadata: projectedMeta, status: _s, apiVersion: _a, kind: _k, ...rest } = projected;
  const source = (fields ? projectedMeta : metadata) as KubeObject["metadata"] | undefined;
  const annotations = Object.fromEntries(
    Object.entries(source?.annotations ?? {}).filter(([k]) => !volatileAnnotations.includes(k)),
  );
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      name: metadata.name,
      ...(source?.labels && Object.keys(source.labels).length ? { labels: source.labels } : {}),
      ...(Object.keys(annotations).length ? { annotations } : {}),
    },
    ...rest,
  };
}

/** A leaf of an object: its JSON Pointer and value. */
interface Leaf {
  pointer: string;
  value: string | number | boolean;
}

const escapePointer = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

/** The primitive leaves of `value` that `fields` covers, with JSON Pointers into `value`; list keys excluded. */
function leaves(value: unknown, fields: FieldSet | undefined, pointer = "", keys: string[] = []): Leaf[] {
  const members = fields ? childMembers(fields) : [];
  if (fields && members.length === 0) {
    if (isRecord(value) || Array.isArray(value)) return leaves(value, undefined, pointer, keys);
  }
  if (Array.isArray(value)) {
    const picked = fields
      ? members.flatMap((m) =>
          elementIndexes(value, m).map((i) => {
            const keyNames = m.startsWith("k:") ? Object.keys(JSON.parse(m.slice(2)) as object) : [];
            return { i, sub: fields[m], keyNames };
          }),
        )
      : value.map((_, i) => ({ i, sub: undefined, keyNames: [] as string[] }));
    return picked.flatMap(({ i, sub, keyNames }) => leaves(value[i], sub, `${pointer}/${i}`, keyNames));
  }
  if (isRecord(value)) {
    return Object.entries(value).flatMap(([name, v]) => {
      if (keys.includes(name)) return [];
      const sub = fields ? fields[`f:${name}`] : undefined;
      if (fields && sub === undefined) return [];
      return leaves(v, sub, `${pointer}/${escapePointer(name)}`);
    });
  }
  const primitive = typeof value === "string" || typeof value === "number" || typeof value === "boolean";
  return primitive && pointer ? [{ pointer, value }] : [];
}

/** Paths a tamper must not touch: identity, scheduling, selectors and other immutable or structural fields. */
const untouchable =
  /^\/(apiVersion|kind|status)\b|^\/metadata\/(?!labels\/|annotations\/)|selector|matchLabels|clusterIPs?\b|\/template\/metadata\/labels\/|\/(type|protocol|restartPolicy|completionMode|podManagementPolicy|serviceName|ipFamil)/i;

function rank(pointer: string, value: unknown): number {
  if (/^\/(data|stringData)\//.test(pointer)) return 0;
  if (pointer.startsWith("/spec/")) return typeof value === "string" ? 1 : typeof value === "number" ? 2 : 3;
  if (pointer.startsWith("/metadata/labels/")) return 4;
  if (pointer.startsWith("/metadata/annotations/")) return 5;
  return 6;
}

function tamperedValue(obj: KubeObject, leaf: Leaf): string | number | boolean {
  const { value } = leaf;
  if (typeof value === "boolean") return !value;
  if (typeof value === "number") return Number.isInteger(value) ? value + 1 : value * 2 + 1;
  if (obj.kind === "Secret" && leaf.pointer.startsWith("/data/")) {
    return Buffer.from(`${Buffer.from(value, "base64").toString("utf8")}-tampered`).toString("base64");
  }
  return value.length > 0 && value.length <= 50 ? `${value}-tampered` : "tampered";
}

/**
 * JSON Patches that each change one field the operator wrote in `obj`, best candidates first
 * (data, then spec strings, numbers and booleans, then labels and annotations). Each carries a
 * `test` of the old value.
 */
export function tamperCandidates(obj: KubeObject, fields: FieldSet | undefined): JsonPatchOperation[][] {
  return leaves(obj, fields)
    .filter((leaf) => !untouchable.test(leaf.pointer))
    .sort((a, b) => rank(a.pointer, a.value) - rank(b.pointer, b.value))
    .map((leaf) => [
      { op: "test", path: leaf.pointer, value: leaf.value },
      { op: "replace", path: leaf.pointer, value: tamperedValue(obj, leaf) },
    ]);
}

/** Labels the Job controller puts on a Job's pod template, tied to that Job's uid. */
const generatedJobLabels = [
  "controller-uid",
  "batch.kubernetes.io/controller-uid",
  "job-name",
  "batch.kubernetes.io/job-name",
];

interface JobLike extends KubeObject {
  spec?: {
    manualSelector?: boolean;
    selector?: unknown;
    template?: { metadata?: { labels?: Record<string, string> } };
  };
}

/**
 * `obj` without what the apiserver generated for the object it was read from and refuses in a
 * create: a Job's generated selector and the uid-bound labels of its pod template.
 */
export function creatable(obj: KubeObject): KubeObject {
  if (obj.apiVersion !== "batch/v1" || obj.kind !== "Job") return obj;
  const copy = structuredClone(obj) as JobLike;
  if (!copy.spec || copy.spec.manualSelector) return copy;
  delete copy.spec.selector;
  const labels = copy.spec.template?.metadata?.labels;
  for (const label of generatedJobLabels) if (labels) delete labels[label];
  return copy;
}
