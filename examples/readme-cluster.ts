// #region readme-cluster
import { startCluster } from "kubeloop/cluster";

const cluster = await startCluster({ nodes: 3 }); // PKI, ports and run directory of its own
process.env.KUBECONFIG = cluster.kubeconfigPath; // admin client certificate (system:masters)
await cluster.kubectl(["get", "nodes"]); // the kubectl built for this cluster
await cluster.stop(); // stops only its own processes, by PID
// #endregion
