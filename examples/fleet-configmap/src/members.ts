/**
 * The member side of the fleet example: which member clusters are engaged now, and, on each, a
 * controller that watches the children (ConfigMaps labelled with their hub owner) and queues the
 * owner in the hub when one changes or goes: drift in a member reaches the hub at once.
 */
import {
  ConfigMap,
  type ConfigMapObject,
  type ControllerHost,
  controller,
  type Manager,
  objectKey,
} from "kubeloop";
import { untilAborted } from "kubeloop/clock";
import type { FleetCluster } from "kubeloop/multicluster";

/** The labels a child carries in place of an owner reference, which cannot cross clusters. */
export const OWNER_NAMESPACE = "fleet.example.com/owner-namespace";
/** The name of the child's FleetConfigMap in the hub. */
export const OWNER_NAME = "fleet.example.com/owner-name";

/** The informer scope of the children in a member: the ConfigMaps naming an owner. */
export const CHILDREN = { labelSelector: OWNER_NAME };

/** Queues a FleetConfigMap's key (`namespace/name`) in the hub, or every one with no key. */
export type HubQueue = (key: string | undefined, reason: string) => void;

/** The member clusters engaged now, each added once its caches synced and removed once disengaged. */
export class EngagedMembers {
  readonly #clusters = new Map<string, FleetCluster>();
  readonly #queue: HubQueue;

  constructor(queue: HubQueue) {
    this.#queue = queue;
  }

  /** Member `name` while it is engaged and synced. */
  get(name: string): FleetCluster | undefined {
    return this.#clusters.get(name);
  }

  /** Every engaged member. */
  all(): FleetCluster[] {
    return [...this.#clusters.values()];
  }

  /**
   * The fleet's `setup` for one member: the children's controller, and a runnable that records the
   * member while it is engaged and requeues every FleetConfigMap when it comes and goes.
   */
  readonly setup = (manager: Manager, cluster: FleetCluster) => {
    manager.add({
      name: "engaged-member",
      leaderOnly: false,
      start: ({ signal }) => this.#engaged(cluster, signal),
    });
    return childrenController(manager, cluster.name, this.#queue);
  };

  async #engaged(cluster: FleetCluster, signal: AbortSignal): Promise<void> {
    this.#clusters.set(cluster.name, cluster);
    this.#queue(undefined, `member ${cluster.name} engaged`);
    await untilAborted(signal);
    this.#clusters.delete(cluster.name);
    this.#queue(undefined, `member ${cluster.name} disengaged`);
  }
}

/** The owner of `child` from its labels; a deleted child's key (its owner's: same namespace and name). */
function ownerOf(child: ConfigMapObject | undefined, key: string): string {
  const labels = child?.metadata.labels;
  const name = labels?.[OWNER_NAME];
  return name ? objectKey(labels[OWNER_NAMESPACE], name) : key;
}

/** Watches member `cluster`'s children and queues their owners in the hub. */
function childrenController(host: ControllerHost, cluster: string, queue: HubQueue) {
  return controller(host, "fleet-configmap-children")
    .for(ConfigMap, { scope: CHILDREN })
    .reconcile(async (ctx) => queue(ownerOf(ctx.object, ctx.request.key), `child in ${cluster}`));
}
