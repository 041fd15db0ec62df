/**
 * The objects an object owns, found as `kubectl tree` finds them: list every kind that could hold
 * a dependent and follow owner references (any reference, not only the controller's) down from
 * the root. The same lists with a label selector, across a cluster, find the children a hub object
 * has in a member cluster ({@link selectedObjects}): those labelled with its uid.
 *
 * Which kinds: every resource discovery serves with the `list` verb (one version per group and
 * resource, the preferred one), in the root's namespace when the root is namespaced (a namespaced
 * object owns only objects of its namespace), else across the cluster; Events aside (nothing owns
 * them; they are read for the history). Not a known set of kinds: an operator's children can be
 * of any kind, another operator's custom resources included, and a known set would miss them
 * without a word. The cost is one request per kind, whatever the size of the tree:
 * - first, metadata-only lists (`PartialObjectMetadataList`: no spec, status or data, so the
 *   namespace's Secrets and ConfigMaps do not travel) find the tree's members;
 * - then one full list per kind the tree holds reads their conditions.
 * Pages are large (`pageSize`, 5000 by default), so a kind of up to that many objects is one
 * request. A kind that cannot be listed (forbidden, an aggregated API that is down) is skipped
 * and reported, and the rest of the tree is still shown.
 */
import { type KubeObject, type ResourceType, resourceOf } from "../../api/index.ts";
import type { Client, ServedResource } from "../../client/index.ts";
import { KubeloopError } from "../../errors/index.ts";

/** A resource that could not be listed, and why. */
export interface SkippedResource {
  /** `plural.group`, e.g. `metrics.metrics.k8s.io`. */
  readonly resource: string;
  readonly reason: string;
}

/** How the lists are made. */
export interface ListScope {
  /** The namespace to list in; undefined lists across the cluster. */
  readonly namespace: string | undefined;
  /** Only the objects with these labels; undefined lists all. */
  readonly labelSelector?: string;
  readonly pageSize: number;
  readonly signal?: AbortSignal;
}

/** The objects of a tree, by the uid of each owner, and the kinds that could not be searched. */
export interface OwnedObjects {
  readonly byOwner: ReadonlyMap<string, readonly KubeObject[]>;
  readonly skipped: readonly SkippedResource[];
}

/** Lists `type` in `scope`; a failure the API answers becomes a {@link SkippedResource}. */
export async function listOrSkip(
  client: Client,
  type: ResourceType,
  scope: ListScope,
  metadataOnly = false,
): Promise<KubeObject[] | SkippedResource> {
  const { namespace, labelSelector, pageSize: limit, signal } = scope;
  try {
    return (await client.list(type, { namespace, labelSelector, limit, metadataOnly, signal })).items;
  } catch (err) {
    if (!(err instanceof KubeloopError)) throw err;
    return { resource: resourceOf(type), reason: err.message };
  }
}

/** An object found by a list, and the type it was listed as. */
interface Listed {
  readonly type: ResourceType;
  readonly obj: KubeObject;
}

/** The objects `root` owns, directly or not, fully read. */
export async function ownedObjects(
  client: Client,
  root: KubeObject,
  rootNamespaced: boolean,
  scope: ListScope,
): Promise<OwnedObjects> {
  const candidates = candidateTypes(await client.discovery.resources(), rootNamespaced);
  const lists = await Promise.all(
    candidates.map(async (type) => listed(type, await listOrSkip(client, type, scope, true))),
  );
  const members = descendants(
    root,
    lists.flatMap((l) => l.found),
  );
  const full = await fullObjects(client, members, scope);
  return {
    byOwner: byOwnerUid(full.objects, (obj) => obj),
    skipped: [...lists.flatMap((l) => l.skipped), ...full.skipped],
  };
}

/**
 * Every object of any listable kind that `scope` selects (by its label selector, across the
 * cluster when it names no namespace), fully read: the same two passes as {@link ownedObjects}.
 */
export async function selectedObjects(
  client: Client,
  scope: ListScope,
): Promise<{ objects: KubeObject[]; skipped: SkippedResource[] }> {
  const candidates = candidateTypes(await client.discovery.resources(), scope.namespace !== undefined);
  const lists = await Promise.all(
    candidates.map(async (type) => listed(type, await listOrSkip(client, type, scope, true))),
  );
  const full = await fullObjects(
    client,
    lists.flatMap((l) => l.found),
    scope,
  );
  return { objects: full.objects, skipped: [...lists.flatMap((l) => l.skipped), ...full.skipped] };
}

function listed(
  type: ResourceType,
  answer: KubeObject[] | SkippedResource,
): { found: Listed[]; skipped: SkippedResource[] } {
  return Array.isArray(answer)
    ? { found: answer.map((obj) => ({ type, obj })), skipped: [] }
    : { found: [], skipped: [answer] };
}

/** One type per listable group and resource (discovery lists the preferred version first). */
function candidateTypes(served: readonly ServedResource[], rootNamespaced: boolean): ResourceType[] {
  const types = new Map<string, ResourceType>();
  for (const { type, verbs } of served) {
    const resource = resourceOf(type);
    if (!verbs.includes("list") || (rootNamespaced && !type.namespaced) || type.plural === "events") continue;
    if (!types.has(resource)) types.set(resource, type);
  }
  return [...types.values()];
}

/** The members of `found` below `root` through owner references, each once. */
function descendants(root: KubeObject, found: readonly Listed[]): Listed[] {
  const byOwner = byOwnerUid(found, (l) => l.obj);
  const seen = new Set([root.metadata.uid]);
  const members: Listed[] = [];
  for (let i = -1; i < members.length; i++) {
    const owner = i < 0 ? root : (members[i] as Listed).obj;
    for (const child of byOwner.get(owner.metadata.uid ?? "") ?? []) {
      if (seen.has(child.obj.metadata.uid)) continue;
      seen.add(child.obj.metadata.uid);
      members.push(child);
    }
  }
  return members;
}

/**
 * `members` read again in full, one list per kind among them; a member gone meanwhile keeps its
 * metadata.
 */
async function fullObjects(
  client: Client,
  members: readonly Listed[],
  scope: ListScope,
): Promise<{ objects: KubeObject[]; skipped: SkippedResource[] }> {
  const types = [...new Set(members.map((m) => m.type))];
  const lists = await Promise.all(
    types.map(async (type) => listed(type, await listOrSkip(client, type, scope))),
  );
  const read = new Map(lists.flatMap((l) => l.found).map(({ obj }) => [obj.metadata.uid, obj]));
  return {
    objects: members.map(({ obj }) => read.get(obj.metadata.uid) ?? obj),
    skipped: lists.flatMap((l) => l.skipped),
  };
}

/** Objects (or listed objects) by the uid of each of their owners. */
function byOwnerUid<T>(items: readonly T[], objectOf: (item: T) => KubeObject): Map<string, T[]> {
  const byOwner = new Map<string, T[]>();
  for (const item of items) {
    for (const ref of objectOf(item).metadata.ownerReferences ?? []) {
      const owned = byOwner.get(ref.uid);
      if (owned) owned.push(item);
      else byOwner.set(ref.uid, [item]);
    }
  }
  return byOwner;
}
