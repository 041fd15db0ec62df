/**
 * Builds the {@link Description} of an object: resolves `<kind>/<name>` through discovery, reads
 * the object, the tree it owns and the Events of that tree, and computes each object's kstatus,
 * Ready condition and field-ownership conflicts.
 */
import { Event, type EventObject, type KubeObject, resourceOf } from "../api/index.ts";
import { type Client, NotFoundError } from "../client/index.ts";
import { type KStatusResult, kstatus } from "../status/index.ts";
import { ObjectNotFoundError } from "./errors.ts";
import { controllerManager, type FieldConflict, fieldConflicts } from "./internal/fields.ts";
import {
  type ConditionState,
  conditionTimeline,
  type TimelineEntry,
  type TreeEvent,
  treeEvents,
} from "./internal/history.ts";
import { type MemberObjects, memberObjects } from "./internal/members.ts";
import { parseTarget, resolveResource } from "./internal/resolve.ts";
import { type ListScope, listOrSkip, ownedObjects, type SkippedResource } from "./internal/tree.ts";

/** One object of the tree, with what it owns. */
export interface DescribedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid: string;
  /** Its kstatus, as Flux, Helm 4 and kpt compute it. */
  readonly kstatus: KStatusResult;
  /** Its `Ready` condition, when it has one. */
  readonly ready?: ConditionState;
  /** The field manager that wrote its controller reference: its owner's controller. */
  readonly controllerManager?: string;
  /** Its fields claimed by several managers, or by a manager other than {@link DescribedObject.controllerManager}. */
  readonly fieldConflicts: readonly FieldConflict[];
  /** The objects it owns, by kind then name. */
  readonly children: readonly DescribedObject[];
}

/** A hub object's children in one member cluster, found by the labels that stand for owner references there. */
export interface ClusterChildren {
  /** The member: its kubeconfig Secret's name in the hub. */
  readonly cluster: string;
  /** The objects labelled with the hub object's uid, by kind then name. */
  readonly children: readonly DescribedObject[];
  /** Why the member could not be read, when it could not. */
  readonly error?: string;
}

/** Everything `kubeloop describe` shows of an object; `-o json` prints it as is. */
export interface Description {
  /** The object and the tree it owns. */
  readonly object: DescribedObject;
  /** Its conditions now. */
  readonly conditions: readonly ConditionState[];
  /** Its conditions' transitions, oldest first. */
  readonly timeline: readonly TimelineEntry[];
  /** The Events about any object of the tree, oldest first. */
  readonly events: readonly TreeEvent[];
  /** Resources that could not be listed, so that children of theirs may be missing. */
  readonly skipped: readonly SkippedResource[];
  /** With {@link DescribeOptions.fleetNamespace}: its children in each member cluster, by cluster name. */
  readonly clusters?: readonly ClusterChildren[];
}

/** Options of {@link describeObject}. */
export interface DescribeOptions {
  /** The object's namespace (for a namespaced kind). Default: the client's default namespace. */
  namespace?: string;
  /** Objects per list request. Default 5000: a tree of that many objects of a kind costs one request. */
  pageSize?: number;
  /**
   * Follows the object's children into the member clusters of the kubeconfig Secrets (labelled
   * `kubeloop.dev/kubeconfig=true`) in this namespace of its cluster, the hub: the objects there
   * labelled with its uid (`kubeloop.dev/hub-owner-uid`, see `withHubOwner`). Default: none.
   */
  fleetNamespace?: string;
  signal?: AbortSignal;
}

/**
 * Describes the object `target` names (`<kind>/<name>`, as `kubectl` reads it: `deployment/web`,
 * `deployments.apps/web`, `MyProxy/edge`). The requests do not grow with the tree: discovery, one
 * GET of the object, one metadata-only list per listable kind, one full list per kind in the tree
 * and one list of Events. Rejects with `InvalidTargetError`, `UnknownResourceError`, or
 * `ObjectNotFoundError` when there is no such object.
 *
 * @example
 * ```ts
 * const description = await describeObject(client, "deployment/web", { namespace: "shop" });
 * description.object.kstatus.status; // "Current"
 * ```
 */
export async function describeObject(
  client: Client,
  target: string,
  options: DescribeOptions = {},
): Promise<Description> {
  const { resource, name } = parseTarget(target);
  const { type } = resolveResource(await client.discovery.resources(), resource);
  const { namespace, pageSize = 5000, signal } = options;
  const root = await client.get(type, name, { namespace, signal }).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
    const ns = type.namespaced ? (namespace ?? client.defaultNamespace) : undefined;
    throw new ObjectNotFoundError(resourceOf(type), name, ns, { cause: err });
  });
  const scope: ListScope = {
    namespace: type.namespaced ? root.metadata.namespace : undefined,
    pageSize,
    signal,
  };
  const fleetNamespace = options.fleetNamespace;
  const [owned, events, members] = await Promise.all([
    ownedObjects(client, root, type.namespaced, scope),
    listOrSkip(client, Event, scope),
    fleetNamespace === undefined ? undefined : memberObjects(client, root, fleetNamespace, scope),
  ]);
  const object = describedObject(root, owned.byOwner);
  const history = treeEvents(Array.isArray(events) ? (events as EventObject[]) : [], uidsOf(object));
  const conditions = conditionsOf(root);
  return {
    object,
    conditions,
    timeline: conditionTimeline(
      conditions,
      history.filter((e) => e.regarding.uid === object.uid),
    ),
    events: history,
    skipped: [...owned.skipped, ...(Array.isArray(events) ? [] : [events]), ...skippedIn(members ?? [])],
    ...(members ? { clusters: members.map(clusterChildren) } : {}),
  };
}

function clusterChildren({ cluster, objects, error }: MemberObjects): ClusterChildren {
  const children = [...objects].sort(byKindAndName).map((obj) => describedObject(obj, new Map()));
  return { cluster, children, ...(error ? { error } : {}) };
}

/** What could not be listed in the members, each named with its cluster. */
function skippedIn(members: readonly MemberObjects[]): SkippedResource[] {
  return members.flatMap((m) =>
    m.skipped.map((s) => ({ ...s, resource: `${s.resource} in cluster ${m.cluster}` })),
  );
}

function describedObject(
  obj: KubeObject,
  byOwner: ReadonlyMap<string, readonly KubeObject[]>,
): DescribedObject {
  const { namespace, uid = "" } = obj.metadata;
  const manager = controllerManager(obj);
  const ready = conditionsOf(obj).find((c) => c.type === "Ready");
  const children = [...(byOwner.get(uid) ?? [])].sort(byKindAndName);
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name ?? "",
    ...(namespace ? { namespace } : {}),
    uid,
    kstatus: kstatus(obj),
    ...(ready ? { ready } : {}),
    ...(manager ? { controllerManager: manager } : {}),
    fieldConflicts: fieldConflicts(obj, manager),
    children: children.map((child) => describedObject(child, byOwner)),
  };
}

function byKindAndName(a: KubeObject, b: KubeObject): number {
  return a.kind.localeCompare(b.kind) || (a.metadata.name ?? "").localeCompare(b.metadata.name ?? "");
}

function uidsOf(object: DescribedObject, into = new Set<string>()): Set<string> {
  into.add(object.uid);
  for (const child of object.children) uidsOf(child, into);
  return into;
}

/** `status.conditions`, each entry with at least a string `type` and `status`. */
function conditionsOf(obj: KubeObject): ConditionState[] {
  const conditions = (obj as { status?: { conditions?: unknown } }).status?.conditions;
  if (!Array.isArray(conditions)) return [];
  return conditions.filter(isCondition).map(({ type, status, reason, message, lastTransitionTime }) => ({
    type,
    status,
    ...(typeof reason === "string" && reason ? { reason } : {}),
    ...(typeof message === "string" && message ? { message } : {}),
    ...(typeof lastTransitionTime === "string" ? { lastTransitionTime } : {}),
  }));
}

function isCondition(c: unknown): c is ConditionState & Record<string, unknown> {
  const candidate = c as Partial<Record<string, unknown>> | null;
  return typeof candidate?.type === "string" && typeof candidate.status === "string";
}
