import { ConfigMap, type ConfigMapObject, type KubeObject } from "kubeloop/api";
import { type Client, loadKubeconfig } from "kubeloop/client";
import { untilAborted } from "kubeloop/clock";
import { controller } from "kubeloop/controller";
import type { Manager } from "kubeloop/manager";
import {
  type ClusterProvider,
  clusterApiProvider,
  Fleet,
  type FleetCluster,
  type FleetReconciler,
  HUB_OWNER_LABELS,
  hubChildrenSelector,
  hubOwnerKey,
  hubOwnerLabels,
  inCluster,
  kubeconfigSecretClusters,
  kubeconfigSecretProvider,
  MemberChildren,
  staticProvider,
  withHubOwner,
} from "kubeloop/multicluster";
import { withFinalizer } from "kubeloop/ownership";
import { FleetConfigMap, type FleetConfigMapObject } from "../fleet-configmap/src/api.ts";

declare const hub: Client;
declare const management: Client;
declare const provider: ClusterProvider;
declare const signal: AbortSignal;
declare const copy: FleetReconciler<ConfigMapObject>;
declare const member: FleetCluster;
declare const child: KubeObject;
declare const settings: KubeObject & { spec: { data: Record<string, string> } };
declare const hubManager: Manager;
declare const FINALIZER: string;
declare const propagate: (fcm: FleetConfigMapObject, members: FleetCluster[]) => Promise<undefined>;

// #region module
const fleet = new Fleet({
  name: "labeller",
  providers: [kubeconfigSecretProvider({ client: hub, namespace: "fleet" })],
  setup: (manager, cluster) =>
    controller(manager)
      .for(ConfigMap)
      .reconcile(inCluster(cluster, async (ctx) => ctx.log.info({ cluster: ctx.cluster.name }, "seen"))),
});
await fleet.start(signal);
// #endregion

{
  // #region Fleet
  const fleet = new Fleet({
    name: "copier",
    providers: [kubeconfigSecretProvider({ client: hub, namespace: "fleet" })],
    setup: (manager, cluster) => controller(manager).for(ConfigMap).reconcile(inCluster(cluster, copy)),
  });
  await fleet.start(AbortSignal.timeout(60_000));
  // #endregion
}

{
  // #region inCluster
  const fleet = new Fleet({
    name: "copier",
    providers: [provider],
    setup: (manager, cluster) =>
      controller(manager)
        .for(ConfigMap)
        .reconcile(
          inCluster(cluster, async (ctx) => {
            ctx.log.info({ cluster: ctx.cluster.name }, "reconciled");
          }),
        ),
  });
  // #endregion
  void fleet;
}

{
  // #region ClusterProvider
  const one: ClusterProvider = {
    name: "one",
    async run(sink, signal) {
      sink.engage("dev", await loadKubeconfig({ kubeconfig: "dev.yaml" }));
      sink.ready();
      await untilAborted(signal);
    },
  };
  // #endregion
  void one;
}

{
  // #region kubeconfigSecretProvider
  const provider = kubeconfigSecretProvider({ client: hub, namespace: "fleet" });
  // #endregion
  void provider;
}

{
  // #region staticProvider
  const provider = staticProvider({ directory: "/etc/fleet" });
  // #endregion
  void provider;
}

{
  // #region clusterApiProvider
  const provider = clusterApiProvider({ client: management, namespace: "clusters" });
  // #endregion
  void provider;
}

{
  // #region HUB_OWNER_LABELS
  const children = await member.client.list(ConfigMap, {
    labelSelector: `${HUB_OWNER_LABELS.name}=settings`,
  });
  // #endregion
  void children;
}

// #region hubOwnerLabels
hubOwnerLabels(settings);
// { "kubeloop.dev/hub-owner-kind": "FleetConfigMap", "kubeloop.dev/hub-owner-namespace": "apps",
//   "kubeloop.dev/hub-owner-name": "settings", "kubeloop.dev/hub-owner-uid": "6f1c…" }
// #endregion

{
  // #region withHubOwner
  const desired = withHubOwner(settings, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", namespace: "apps" },
    data: settings.spec.data,
  });
  // #endregion
  void desired;
}

// #region hubOwnerKey
hubOwnerKey(child, "FleetConfigMap"); // "apps/settings"
// #endregion

{
  // #region hubChildrenSelector
  const children = await member.client.list(ConfigMap, { labelSelector: hubChildrenSelector(settings) });
  // #endregion
  void children;
}

{
  // #region MemberChildren
  const children = new MemberChildren({ owner: FleetConfigMap, kinds: [ConfigMap] });
  controller(hubManager, "fleet-configmap")
    .for(FleetConfigMap)
    .reconcile(async (ctx) => {
      if (!ctx.object) return undefined;
      return withFinalizer(ctx.client, FleetConfigMap, ctx.object, FINALIZER, async (event) => {
        if (event.type === "cleanup") return void (await children.cleanup(event.object));
        return propagate(event.object, children.members());
      });
    });
  children.queueTo(hubManager, "fleet-configmap");
  const fleet = new Fleet({ name: "fleet-configmap", providers: [provider], setup: children.setup });
  // #endregion
  void fleet;
}

// #region kubeconfigSecretClusters
for (const cluster of await kubeconfigSecretClusters({ client: hub, namespace: "fleet" }))
  console.log(cluster.name, "connection" in cluster ? cluster.connection.server : cluster.error);
// #endregion
