/**
 * Outputs of kinds the operator does not declare: objects a primary object controls whose kind is
 * not among the output kinds the kit tampers with. Such a kind is missing its `.owns(Kind)`: a
 * change to its objects wakes no reconcile, and the kit would never test that it does.
 */
import {
  ConfigMap,
  CronJob,
  DaemonSet,
  Deployment,
  Ingress,
  Job,
  type KubeObject,
  NetworkPolicy,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  type ResourceType,
  Role,
  RoleBinding,
  Secret,
  Service,
  ServiceAccount,
  StatefulSet,
} from "../../../api/index.ts";
import { ForbiddenError, NotFoundError } from "../../../client/index.ts";
import type { ConformanceSession } from "../session.ts";
import { isOfKind, kindKey } from "./subject.ts";
import { controllerOf, keyOf } from "./world.ts";

/** Objects of one kind that primary objects control, the kind not declared. */
export interface UndeclaredOutput {
  apiVersion: string;
  kind: string;
  /** `Kind/name (of Primary/name)`, in the order found. */
  objects: string[];
}

/**
 * Built-in namespaced kinds operators commonly create, searched besides the kinds the operator
 * declares: the operator's own declarations cannot name the kind it forgot.
 */
const commonKinds: readonly ResourceType[] = [
  ConfigMap,
  Secret,
  Service,
  ServiceAccount,
  Deployment,
  StatefulSet,
  DaemonSet,
  Job,
  CronJob,
  Pod,
  PersistentVolumeClaim,
  Role,
  RoleBinding,
  Ingress,
  NetworkPolicy,
  PodDisruptionBudget,
];

/**
 * The objects among `objects` that one of `primaries` controls (an owner reference with
 * `controller: true` naming its uid) and whose kind is not among `declared`, grouped by kind and
 * sorted by `apiVersion/kind`.
 */
export function undeclaredOutputs(
  objects: readonly KubeObject[],
  primaries: readonly KubeObject[],
  declared: readonly ResourceType[],
): UndeclaredOutput[] {
  const owners = new Map(primaries.map((p) => [p.metadata.uid, keyOf(p)]));
  const primaryKinds = new Set(primaries.map(kindKey));
  const found = new Map<string, UndeclaredOutput>();
  for (const object of objects) {
    const owner = owners.get(controllerOf(object)?.uid);
    if (!owner || primaryKinds.has(kindKey(object)) || isOfKind(object, declared)) continue;
    const key = kindKey(object);
    const group = found.get(key) ?? { apiVersion: object.apiVersion, kind: object.kind, objects: [] };
    group.objects.push(`${keyOf(object)} (of ${owner})`);
    found.set(key, group);
  }
  return [...found.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, group]) => group);
}

/** The namespaced kinds to search: those the operator declares or knows, and the common built-ins. */
function candidateKinds(session: ConformanceSession): ResourceType[] {
  const { readKinds, primaries, outputs } = session.subject;
  const skip = new Set([...primaries, ...outputs].map(kindKey));
  const candidates = new Map<string, ResourceType>();
  for (const type of [...readKinds, ...commonKinds]) {
    if (type.namespaced && !skip.has(kindKey(type))) candidates.set(kindKey(type), type);
  }
  return [...candidates.values()];
}

/** The objects of `type` in `namespace`; none when the kind is not served or may not be read. */
async function listIfReadable(
  session: ConformanceSession,
  type: ResourceType,
  namespace: string,
): Promise<KubeObject[]> {
  try {
    return (await session.client.list(type, { namespace })).items;
  } catch (err) {
    if (err instanceof NotFoundError || err instanceof ForbiddenError) return [];
    throw err;
  }
}

/**
 * The outputs of undeclared kinds in `namespace`: one list per candidate kind (about 16 requests),
 * so a check calls it once, not in a poll.
 */
export async function findUndeclaredOutputs(
  session: ConformanceSession,
  namespace: string,
  primaries: readonly KubeObject[],
): Promise<UndeclaredOutput[]> {
  const lists = await Promise.all(
    candidateKinds(session).map((type) => listIfReadable(session, type, namespace)),
  );
  return undeclaredOutputs(lists.flat(), primaries, session.subject.outputs);
}
