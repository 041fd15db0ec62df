/**
 * The sharded-replica scenario (support.ts) on a control plane of its own whose apiserver has the
 * `ShardedListAndWatch` gate off, as an older or unconfigured cluster: the server ignores shard
 * selectors, which each replica finds out at start; it then watches the Widgets whole, once (not
 * once per shard it holds), each shard seeing them through a filter of the same hash
 * (`kubeloop_shard_client_filtered{kind="Widget"}` 1) — and the guarantees hold all the same.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Namespace } from "../../../src/api/index.ts";
import { Client, loadKubeconfig } from "../../../src/client/index.ts";
import { type Cluster, startCluster } from "../../../src/cluster/index.ts";
import { shareWidgets, widgetCount } from "./support.ts";

let cluster: Cluster | undefined;
before(async () => {
  cluster = await startCluster({
    apiserverArgs: ["--feature-gates=ShardedListAndWatch=false"],
    components: { controllerManager: true, scheduler: false, kwok: false },
    report: () => {},
  });
});
after(() => cluster?.stop());

test("with the gate off, sharded replicas filter on the client: each receives every widget once, and the guarantees hold", async (t) => {
  const kubeconfig = (cluster as Cluster).kubeconfigPath;
  const client = new Client(await loadKubeconfig({ kubeconfig }), { qps: Number.POSITIVE_INFINITY });
  t.after(() => client.close());
  const namespace = "sharded-fallback";
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  const { events, outside, clientFiltered, cached, takeoverMs } = await shareWidgets(t, {
    kubeconfig,
    client,
    namespace,
    serverShards: false,
  });
  for (const [i, received] of events.entries()) {
    assert.ok(
      received >= widgetCount && received < 1.5 * widgetCount,
      `replica ${i + 1} received ${received} widget events: the kind once, not once per shard`,
    );
  }
  assert.deepEqual(clientFiltered, [1, 1, 1]);
  assert.deepEqual(
    cached,
    [widgetCount, widgetCount, widgetCount],
    "each replica caches the kind whole, once",
  );
  assert.deepEqual(outside, [0, 0, 0], "no sharded watch was asked for, so none dropped anything");
  t.diagnostic(
    `takeover after SIGKILL: ${Math.round(takeoverMs)} ms; widget events per replica: ${events.join(", ")}`,
  );
});
