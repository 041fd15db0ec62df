// #region testing-proxy
import assert from "node:assert/strict";
import { startCluster } from "kubeloop/cluster";
import { startProxy } from "kubeloop/testing/proxy";

await using cluster = await startCluster();
await using proxy = await startProxy({ cluster });
process.env.KUBECONFIG = proxy.kubeconfig();
const drop = proxy.inject({ verb: "watch", resource: "configmaps" }, { dropEvents: "all" });
// ... change ConfigMaps; the controller's watch sees none of it, its resync must catch up ...
drop.remove();
proxy.inject({ verb: "patch", times: 2 }, { status: 429, retryAfterSeconds: 1 });
proxy.resetCounts();
// ... let the controller settle ...
assert.equal(proxy.mutatingCount(), 0);
// #endregion
