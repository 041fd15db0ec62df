/**
 * Who owns which fields of a child, from its `metadata.managedFields`, and where that conflicts:
 * a field claimed by more than one manager, or by a manager other than the owner's controller.
 * The owner's controller is the manager that wrote the child's controller reference (the entry
 * owning `metadata.ownerReferences[uid=<owner>]`), so no name has to be guessed. The built-in
 * controllers that co-write children by design (the managers of `defaultCoWriters`:
 * kube-controller-manager, kube-scheduler) are not foreign, and the status subresource, written
 * by whoever observes, is left out.
 */
import type { KubeObject, ManagedFieldsEntry } from "../../api/index.ts";
import { controllerOf, defaultCoWriters } from "../../ownership/index.ts";

/** A field of a child owned where it conflicts. */
export interface FieldConflict {
  /** The field, e.g. `spec.template.spec.containers[name=nginx].image`. */
  readonly field: string;
  /** Every manager that owns it, sorted. */
  readonly managers: readonly string[];
}

type FieldSet = { [member: string]: FieldSet };

const coWriters = new Set(defaultCoWriters.flatMap((w) => (w.manager && !w.path ? [w.manager] : [])));

/** The manager that set `obj`'s controller reference, if `managedFields` says. */
export function controllerManager(obj: KubeObject): string | undefined {
  const uid = controllerOf(obj)?.uid;
  if (!uid) return undefined;
  const member = `k:${JSON.stringify({ uid })}`;
  return contentEntries(obj).find((e) => fieldSetOf(e)["f:metadata"]?.["f:ownerReferences"]?.[member])
    ?.manager;
}

/** The fields of `obj` claimed by several managers, or by one other than `controller`. */
export function fieldConflicts(obj: KubeObject, controller: string | undefined): FieldConflict[] {
  const owners = new Map<string, Set<string>>();
  for (const entry of contentEntries(obj)) {
    for (const field of leaves(fieldSetOf(entry), "")) {
      owners.set(field, (owners.get(field) ?? new Set()).add(entry.manager ?? ""));
    }
  }
  const foreign = (m: string) => controller !== undefined && m !== controller && !coWriters.has(m);
  return [...owners]
    .filter(([, managers]) => managers.size > 1 || [...managers].some(foreign))
    .map(([field, managers]) => ({ field, managers: [...managers].sort() }))
    .sort((a, b) => a.field.localeCompare(b.field));
}

function contentEntries(obj: KubeObject): ManagedFieldsEntry[] {
  return (obj.metadata.managedFields ?? []).filter((e) => e.manager && e.subresource !== "status");
}

function fieldSetOf(entry: ManagedFieldsEntry): FieldSet {
  const set = entry.fieldsV1;
  return typeof set === "object" && set !== null ? (set as FieldSet) : {};
}

/** The leaf fields of a set as dotted paths; `.` (the node itself) counts only where nothing is below. */
function leaves(set: FieldSet, at: string): string[] {
  const members = Object.keys(set).filter((m) => m !== ".");
  if (members.length === 0) return at ? [at] : [];
  return members.flatMap((m) => leaves(set[m] ?? {}, at + segment(m, at === "")));
}

/** `f:name` → `.name`, `k:{"name":"web"}` → `[name=web]`, `v:"x"` → `["x"]`, `i:0` → `[0]`. */
function segment(member: string, first: boolean): string {
  const rest = member.slice(2);
  if (member.startsWith("k:")) {
    const key = JSON.parse(rest) as Record<string, unknown>;
    const pairs = Object.entries(key).map(
      ([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`,
    );
    return `[${pairs.join(",")}]`;
  }
  if (member.startsWith("v:") || member.startsWith("i:")) return `[${rest}]`;
  return `${first ? "" : "."}${member.startsWith("f:") ? rest : member}`;
}
