import { ConfigMap, type ConfigMapObject } from "kubeloop/api";
import { type Client, loadKubeconfig } from "kubeloop/client";
import { untilAborted } from "kubeloop/clock";
import { controller } from "kubeloop/controller";
import {
  type ClusterProvider,
  clusterApiProvider,
  Fleet,
  type FleetReconciler,
  inCluster,
  kubeconfigSecretProvider,
  staticProvider,
} from "kubeloop/multicluster";

declare const hub: Client;
declare const management: Client;
declare const provider: ClusterProvider;
declare const signal: AbortSignal;
declare const copy: FleetReconciler<ConfigMapObject>;

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
