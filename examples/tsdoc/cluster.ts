import { startCluster, startMemberClusters } from "kubeloop/cluster";

// #region startCluster
await using cluster = await startCluster({ nodes: 2 });
process.env.KUBECONFIG = cluster.kubeconfigPath;
// #endregion

{
  // #region startMemberClusters
  await using fleet = await startMemberClusters({ count: 3 });
  for (const member of fleet.members) console.log(member.name, member.kubeconfigPath);
  // #endregion
}
