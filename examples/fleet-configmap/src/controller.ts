/**
 * The hub side of the fleet example: a FleetConfigMap in the hub is propagated to every member
 * cluster its `clusterSelector` selects (matched against the labels of the members' kubeconfig
 * Secrets), its children removed from members no longer selected and, through a finalizer, from
 * every engaged member before it goes; status says, per selected member, whether it holds the data.
 */
import {
  type Action,
  controller,
  keyOf,
  type Manager,
  type ReconcileContext,
  Secret,
  withFinalizer,
  writeStatus,
} from "kubeloop";
import { KUBECONFIG_SECRET_LABEL } from "kubeloop/multicluster";
import type { ConditionReport } from "kubeloop/status";
import {
  type ClusterStatus,
  FleetConfigMap,
  FleetConfigMapConditions,
  type FleetConfigMapObject,
} from "./api.ts";
import { cachedChild, ensureCopy, removeCopy } from "./children.ts";
import { EngagedMembers } from "./members.ts";

const FINALIZER = "fleet.example.com/delete-children";
const NAME = "fleet-configmap";

type Context = ReconcileContext<FleetConfigMapObject>;

/** Options of {@link FleetConfigMaps}. */
export interface FleetConfigMapsOptions {
  /** The hub namespace of the members' kubeconfig Secrets (the provider's namespace). */
  fleetNamespace: string;
  /** Why member `name` is not engaged, e.g. `(name) => fleet.clusters().find((c) => c.name === name)?.reason`. */
  whyNotEngaged?: (name: string) => string | undefined;
}

/**
 * The example operator: {@link setupHub} builds its controller on a manager of the hub, and
 * `members.setup` is the fleet's `setup` for each member cluster.
 */
export class FleetConfigMaps {
  /** The members engaged now; its `setup` goes to the `Fleet`. */
  readonly members: EngagedMembers;
  readonly #options: FleetConfigMapsOptions;
  readonly #secrets: { namespace: string; labelSelector: string };
  #hub: Manager["controllers"][number] | undefined;

  constructor(options: FleetConfigMapsOptions) {
    this.#options = options;
    this.#secrets = { namespace: options.fleetNamespace, labelSelector: `${KUBECONFIG_SECRET_LABEL}=true` };
    this.members = new EngagedMembers((key, reason) =>
      key === undefined ? this.#hub?.enqueueAll(reason) : this.#hub?.enqueue(key, reason),
    );
  }

  /** Builds the FleetConfigMap controller on `manager`, a manager of the hub; a Secret's change requeues every one. */
  setupHub(manager: Manager): void {
    const fleetConfigMaps = manager.cache.informer(FleetConfigMap);
    controller(manager, NAME)
      .for(FleetConfigMap)
      .watches(Secret, () => fleetConfigMaps.store.list().map(keyOf), { scope: this.#secrets })
      .reconcile((ctx) => this.#reconcile(ctx));
    this.#hub = manager.controllers.find((c) => c.name === NAME);
  }

  #reconcile(ctx: Context): Promise<Action | undefined> {
    const fcm = ctx.object;
    if (!fcm) return Promise.resolve(undefined);
    return withFinalizer(ctx.client, FleetConfigMap, fcm, FINALIZER, async (event) => {
      if (event.type === "apply") return this.#converge(ctx, event.object);
      await Promise.all(this.members.all().map((member) => removeCopy(member, event.object)));
      return undefined;
    });
  }

  async #converge(ctx: Context, fcm: FleetConfigMapObject): Promise<undefined> {
    const selected = ctx.cache
      .informer(Secret, this.#secrets)
      .store.list({ labelSelector: fcm.spec.clusterSelector })
      .map((secret) => secret.metadata.name ?? "")
      .sort();
    const clusters = await Promise.all(selected.map((name) => this.#propagate(name, fcm)));
    const deselected = this.members.all().filter((m) => !selected.includes(m.name) && cachedChild(m, fcm));
    await Promise.all(deselected.map((member) => removeCopy(member, fcm)));
    await writeStatus(ctx, FleetConfigMap, fcm, FleetConfigMapConditions, (draft) => {
      draft.set("Propagated", propagated(clusters));
      return { clusters };
    });
    return undefined;
  }

  /** Propagates `fcm` to member `name`: what the hub says of it. */
  async #propagate(name: string, fcm: FleetConfigMapObject): Promise<ClusterStatus> {
    const member = this.members.get(name);
    if (!member) {
      const why = this.#options.whyNotEngaged?.(name) ?? "not discovered yet";
      return { name, status: "Unknown", reason: "ClusterNotEngaged", message: `not engaged: ${why}` };
    }
    try {
      await ensureCopy(member, fcm);
      return { name, status: "True", reason: "Propagated", message: `ConfigMap ${keyOf(fcm)} as desired` };
    } catch (err) {
      return { name, status: "False", reason: "PropagationFailed", message: (err as Error).message };
    }
  }
}

/** The `Propagated` condition: True when every selected member holds the data. */
function propagated(clusters: readonly ClusterStatus[]): ConditionReport {
  const behind = clusters.filter((c) => c.status !== "True");
  if (behind.length === 0)
    return { status: "True", reason: "Propagated", message: `to ${clusters.length} member cluster(s)` };
  const failed = behind.some((c) => c.status === "False");
  return {
    status: failed ? "False" : "Unknown",
    reason: failed ? "PropagationFailed" : "ClustersNotEngaged",
    message: behind.map((c) => `${c.name}: ${c.message}`).join("; "),
  };
}
