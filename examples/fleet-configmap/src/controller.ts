/**
 * The fleet example's controller, in the hub: a FleetConfigMap is propagated to every member
 * cluster its `clusterSelector` selects (matched against the labels of the members' kubeconfig
 * Secrets) as a ConfigMap labelled with its hub owner; `MemberChildren` watches those children in
 * each member (drift repair), removes them from members no longer selected and, through a
 * finalizer, from every engaged member before the owner goes. Status says, per selected member,
 * whether it holds the data.
 */
import { isDeepStrictEqual } from "node:util";
import {
  type Action,
  ConfigMap,
  type ConfigMapObject,
  controller,
  keyOf,
  type Manager,
  Namespace,
  type ReconcileContext,
  Secret,
  withFinalizer,
  writeStatus,
} from "kubeloop";
import {
  type FleetCluster,
  KUBECONFIG_SECRET_LABEL,
  MemberChildren,
  withHubOwner,
} from "kubeloop/multicluster";
import { metadataMatches } from "kubeloop/ownership";
import type { ConditionReport } from "kubeloop/status";
import {
  type ClusterStatus,
  FleetConfigMap,
  FleetConfigMapConditions,
  type FleetConfigMapObject,
} from "./api.ts";

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
 * `children.setup` is the fleet's `setup` for each member cluster.
 */
export class FleetConfigMaps {
  /** The FleetConfigMaps' ConfigMaps in the members, and the members engaged now. */
  readonly children = new MemberChildren({ owner: FleetConfigMap, kinds: [ConfigMap] });
  readonly #options: FleetConfigMapsOptions;
  readonly #secrets: { namespace: string; labelSelector: string };

  constructor(options: FleetConfigMapsOptions) {
    this.#options = options;
    this.#secrets = { namespace: options.fleetNamespace, labelSelector: `${KUBECONFIG_SECRET_LABEL}=true` };
  }

  /** Builds the FleetConfigMap controller on `manager`, a manager of the hub; a Secret's change requeues every one. */
  setupHub(manager: Manager): void {
    const fleetConfigMaps = manager.cache.informer(FleetConfigMap);
    controller(manager, NAME)
      .for(FleetConfigMap)
      .watches(Secret, () => fleetConfigMaps.store.list().map(keyOf), { scope: this.#secrets })
      .reconcile((ctx) => this.#reconcile(ctx));
    this.children.queueTo(manager, NAME);
  }

  #reconcile(ctx: Context): Promise<Action | undefined> {
    const fcm = ctx.object;
    if (!fcm) return Promise.resolve(undefined);
    return withFinalizer(ctx.client, FleetConfigMap, fcm, FINALIZER, async (event) => {
      if (event.type === "apply") return this.#converge(ctx, event.object);
      return void (await this.children.cleanup(event.object));
    });
  }

  async #converge(ctx: Context, fcm: FleetConfigMapObject): Promise<undefined> {
    const selected = ctx.cache
      .informer(Secret, this.#secrets)
      .store.list({ labelSelector: fcm.spec.clusterSelector })
      .map((secret) => secret.metadata.name ?? "")
      .sort();
    const clusters = await Promise.all(selected.map((name) => this.#propagate(name, fcm)));
    await this.children.prune(fcm, selected);
    await writeStatus(ctx, FleetConfigMap, fcm, FleetConfigMapConditions, (draft) => {
      draft.set("Propagated", propagated(clusters));
      return { clusters };
    });
    return undefined;
  }

  /** Propagates `fcm` to member `name`: what the hub says of it. */
  async #propagate(name: string, fcm: FleetConfigMapObject): Promise<ClusterStatus> {
    const member = this.children.member(name);
    if (!member) {
      const why = this.#options.whyNotEngaged?.(name) ?? "not discovered yet";
      return { name, status: "Unknown", reason: "ClusterNotEngaged", message: `not engaged: ${why}` };
    }
    try {
      await this.#ensureCopy(member, fcm);
      return { name, status: "True", reason: "Propagated", message: `ConfigMap ${keyOf(fcm)} as desired` };
    } catch (err) {
      return { name, status: "False", reason: "PropagationFailed", message: (err as Error).message };
    }
  }

  /** Writes `fcm`'s child to `member` unless its cached copy is as desired (its namespace first when it has none). */
  async #ensureCopy(member: FleetCluster, fcm: FleetConfigMapObject): Promise<void> {
    const { name, namespace = "" } = fcm.metadata;
    const child: ConfigMapObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } };
    const desired = withHubOwner(fcm, { ...child, data: fcm.spec.data });
    const [current] = this.children.cached(member, ConfigMap, fcm);
    if (current && isDeepStrictEqual(current.data ?? {}, desired.data) && metadataMatches(desired, current))
      return;
    if (!current)
      await member.client.apply(Namespace, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: namespace },
      });
    await member.client.apply(ConfigMap, desired, { force: true });
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
