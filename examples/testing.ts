// #region testing
import { startCluster } from "kubeloop/cluster";
import { startProxy } from "kubeloop/testing";

const cluster = await startCluster();
const proxy = await startProxy({ cluster });
proxy.inject({ verb: "watch", resource: "configmaps" }, { dropEvents: "all" }); // the watch sees nothing
// #endregion
