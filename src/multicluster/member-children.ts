/**
 * Ownership across the hub–member boundary, as a library piece: the children a controller of the
 * hub writes in member clusters, labelled with their owner ({@link withHubOwner}). It plays the
 * parts `owns()`, the garbage collector and the engaged members' bookkeeping play in one cluster:
 * - on each engaged member ({@link MemberChildren.setup}, the fleet's `setup`), a watch of the
 *   labelled children queues their owner on the hub's controller ({@link MemberChildren.queueTo}):
 *   a child deleted or edited in a member is repaired at once (drift repair), and every owner is
 *   queued when a member is engaged or disengaged;
 * - {@link MemberChildren.cleanup}, for the hub's finalizer, deletes an owner's children in every
 *   engaged member, and {@link MemberChildren.prune} those in members it no longer selects;
 * - a member engaged collects its orphans, as the garbage collector does by owner uid: children
 *   whose owner the hub no longer has (deleted, or created again under another uid) while the
 *   member was not engaged, so that no finalizer could reach it.
 */
import type { Logger } from "pino";
import { type KubeObject, parseKey, type ResourceType } from "../api/index.ts";
import type { InformerHandler, InformerScope } from "../cache/index.ts";
import { type Client, NotFoundError } from "../client/index.ts";
import { untilAborted } from "../clock/index.ts";
import type { HostedController } from "../controller/index.ts";
import type { Manager } from "../manager/index.ts";
import type { FleetCluster, FleetSetup } from "./engaged.ts";
import { HUB_OWNER_LABELS, hubChildrenSelector, hubOwnerKey } from "./hub-owner.ts";

/** Options of {@link MemberChildren}. */
export interface MemberChildrenOptions<T extends KubeObject> {
  /** The owners' kind, in the hub. */
  owner: ResourceType<T>;
  /** The kinds of the children written in member clusters. */
  kinds: readonly ResourceType[];
}

/** Where owners are queued: the hub's controller of the owner kind. */
type HubQueue = Pick<HostedController, "enqueue" | "enqueueAll">;

/** What of the hub's manager the children need: its controllers to queue on, its client to read owners. */
type HubManager = Pick<Manager, "controllers" | "client">;

/** Finds a member's children of one kind. */
type FindChildren = (member: FleetCluster, kind: ResourceType) => Promise<readonly KubeObject[]>;

/**
 * The children that owners of one kind in the hub have in the member clusters of a fleet, and
 * the members engaged now.
 *
 * @example
 * ```ts
 * const children = new MemberChildren({ owner: FleetConfigMap, kinds: [ConfigMap] });
 * controller(hubManager, "fleet-configmap")
 *   .for(FleetConfigMap)
 *   .reconcile(async (ctx) => {
 *     if (!ctx.object) return undefined;
 *     return withFinalizer(ctx.client, FleetConfigMap, ctx.object, FINALIZER, async (event) => {
 *       if (event.type === "cleanup") return void (await children.cleanup(event.object));
 *       return propagate(event.object, children.members());
 *     });
 *   });
 * children.queueTo(hubManager, "fleet-configmap");
 * const fleet = new Fleet({ name: "fleet-configmap", providers: [provider], setup: children.setup });
 * ```
 */
export class MemberChildren<T extends KubeObject> {
  /** The informer scope of the children in a member: the objects naming an owner of the kind. */
  readonly scope: InformerScope;
  readonly #owner: ResourceType<T>;
  readonly #kinds: readonly ResourceType[];
  readonly #members = new Map<string, FleetCluster>();
  #hub: () => HubQueue | undefined = () => undefined;
  #hubClient: Client | undefined;

  constructor(options: MemberChildrenOptions<T>) {
    this.#owner = options.owner;
    this.#kinds = options.kinds;
    this.scope = { labelSelector: `${HUB_OWNER_LABELS.kind}=${options.owner.kind}` };
  }

  /**
   * Queues owners on the controller named `controller` of `manager`, a manager of the hub, whose
   * client reads the owners when a member engaged collects its orphans.
   */
  queueTo(manager: HubManager, controller: string): void {
    this.#hub = () => manager.controllers.find((c) => c.name === controller);
    this.#hubClient = manager.client;
  }

  /**
   * The fleet's `setup` for one member (or a part of yours): the children's informers, and a
   * runnable that, once they synced, records the member as engaged, queues the owners of the
   * children that change there, and queues every owner when the member comes and goes.
   */
  readonly setup: FleetSetup = (manager, cluster) => {
    for (const kind of this.#kinds) manager.cache.informer(kind, this.scope);
    // Leader-only: it runs with the member's controllers (a member's manager elects no leader),
    // so that a member manager with no other controller keeps running.
    manager.add({
      name: `hub-owned-${this.#owner.kind.toLowerCase()}`,
      start: ({ signal, logger }) => this.#engaged(cluster, signal, logger),
    });
  };

  /** Member `name`, while it is engaged and its children's informers synced. */
  member(name: string): FleetCluster | undefined {
    return this.#members.get(name);
  }

  /** Every member engaged now, by name. */
  members(): FleetCluster[] {
    return [...this.#members.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** `owner`'s children of `type` in `member`, as its cache holds them. */
  cached<C extends KubeObject>(member: FleetCluster, type: ResourceType<C>, owner: T): C[] {
    return member.cache.informer(type, this.scope).store.list({ labelSelector: hubChildrenSelector(owner) });
  }

  /**
   * Deletes `owner`'s children in every engaged member, found by a list in each (not the cache,
   * which may not have seen a child just written; across the member, as the children's informers
   * list): the cleanup of the hub's finalizer.
   */
  cleanup(owner: T): Promise<void> {
    const labelSelector = hubChildrenSelector(owner);
    return this.#remove(this.members(), async (member, kind) => {
      return (await member.client.list(kind, { labelSelector })).items;
    });
  }

  /** Deletes `owner`'s children, as the caches hold them, in the engaged members not named in `keep`. */
  prune(owner: T, keep: readonly string[]): Promise<void> {
    const others = this.members().filter((m) => !keep.includes(m.name));
    return this.#remove(others, async (member, kind) => this.cached(member, kind, owner));
  }

  async #remove(members: readonly FleetCluster[], find: FindChildren): Promise<void> {
    const removals = members.flatMap((member) =>
      this.#kinds.map(async (kind) => {
        const children = await find(member, kind);
        await Promise.all(children.map((child) => deleteChild(member, kind, child)));
      }),
    );
    await Promise.all(removals);
  }

  async #engaged(cluster: FleetCluster, signal: AbortSignal, logger: Logger): Promise<void> {
    const stops = this.#kinds.map((kind) =>
      cluster.cache.informer(kind, this.scope).addHandler(this.#requeue(cluster.name), { replay: false }),
    );
    this.#members.set(cluster.name, cluster);
    this.#hub()?.enqueueAll(`member ${cluster.name} engaged`);
    await this.#collectOrphans(cluster, logger);
    await untilAborted(signal);
    for (const stop of stops) stop();
    // A member engaged again (its connection changed) may have replaced this engagement already.
    if (this.#members.get(cluster.name) === cluster) this.#members.delete(cluster.name);
    this.#hub()?.enqueueAll(`member ${cluster.name} disengaged`);
  }

  /**
   * Deletes the children in `member` whose owner the hub no longer has under their uid (a live
   * read of each owner, as the garbage collector checks before it deletes). A failure is logged
   * and left for the member's next engagement: the member's work goes on.
   */
  async #collectOrphans(member: FleetCluster, logger: Logger): Promise<void> {
    const hub = this.#hubClient;
    if (!hub) return;
    for (const kind of this.#kinds) {
      for (const [uid, owned] of byOwnerUid(member.cache.informer(kind, this.scope).store.list())) {
        const key = hubOwnerKey(owned[0] as KubeObject, this.#owner.kind);
        if (!key || (await this.#ownerLives(hub, key, uid))) continue;
        await Promise.all(owned.map((child) => deleteChild(member, kind, child)))
          .then(() =>
            logger.info(
              { owner: key, uid, kind: kind.kind, count: owned.length },
              "orphaned children collected",
            ),
          )
          .catch((err: unknown) =>
            logger.warn(
              { err, owner: key, uid },
              "orphaned children not collected; retried when the member is engaged again",
            ),
          );
      }
    }
  }

  /** Whether the hub holds the owner `key` with `uid`; an error reading it counts as alive (nothing is deleted on doubt). */
  async #ownerLives(hub: Client, key: string, uid: string): Promise<boolean> {
    const { namespace, name } = parseKey(key);
    try {
      const owner = await hub.get(this.#owner, name, { namespace });
      return owner.metadata.uid === uid;
    } catch (err) {
      return !(err instanceof NotFoundError);
    }
  }

  /** Queues the owners of the children that change in member `cluster`, with a reason naming it. */
  #requeue(cluster: string): InformerHandler<KubeObject> {
    const queue = (event: string, ...children: KubeObject[]) => {
      const keys = new Set(children.map((child) => hubOwnerKey(child, this.#owner.kind)));
      for (const key of keys)
        if (key) this.#hub()?.enqueue(key, `member:${cluster}:${children[0]?.kind}:${event}`);
    };
    return {
      onAdd: (child) => queue("create", child),
      onUpdate: (old, child) =>
        old.metadata.resourceVersion !== child.metadata.resourceVersion && queue("update", old, child),
      onDelete: (child) => queue("delete", child),
    };
  }
}

/** `children` grouped by the uid of the owner their labels name. */
function byOwnerUid(children: readonly KubeObject[]): Map<string, KubeObject[]> {
  const groups = new Map<string, KubeObject[]>();
  for (const child of children) {
    const uid = child.metadata.labels?.[HUB_OWNER_LABELS.uid] ?? "";
    groups.set(uid, [...(groups.get(uid) ?? []), child]);
  }
  return groups;
}

/** Deletes `child` of `kind` from `member`; one already gone is fine. */
async function deleteChild(member: FleetCluster, kind: ResourceType, child: KubeObject): Promise<void> {
  const { name = "", namespace } = child.metadata;
  await member.client.delete(kind, name, { namespace }).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
  });
}
