import { startCluster } from "kubeloop/cluster";

// #region startCluster
await using cluster = await startCluster({ nodes: 2 });
process.env.KUBECONFIG = cluster.kubeconfigPath;
// #endregion
