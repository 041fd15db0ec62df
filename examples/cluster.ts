// #region cluster
import { startCluster } from "kubeloop/cluster";

const cluster = await startCluster({ nodes: 2 });
try {
  const { stdout } = await cluster.kubectl(["get", "nodes"]);
  console.log(stdout);
} finally {
  await cluster.stop();
}
// #endregion
