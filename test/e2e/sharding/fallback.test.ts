/**
 * The sharded-replica scenario (support.ts) with the reference operator, on a control plane of its
 * own whose apiserver has the `ShardedListAndWatch` gate off, as an older or unconfigured cluster:
 * the server ignores shard selectors, which each replica finds out at start; it then watches each
 * kind whole, once (not once per shard it holds), each shard seeing it through a filter of the
 * same hash (`kubeloop_shard_client_filtered{kind="ProxyRoute"}` 1) — and the guarantees hold all
 * the same.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { clusterOfItsOwn, shareObjects } from "./support.ts";
import { proxies, routeCount } from "./workloads.ts";

test("with the gate off, sharded myproxy replicas filter on the client: each receives every route once, and the guarantees hold", async (t) => {
  const where = await clusterOfItsOwn(t, false);
  const { events, whole, outside, clientFiltered, cached, takeoverMs } = await shareObjects(
    t,
    where,
    proxies,
  );
  for (const [i, received] of events.entries()) {
    assert.ok(
      received >= 0.9 * whole && received < 1.3 * whole,
      `replica ${i + 1} received ${received} route events of ${whole}: the kind whole, once (not once per shard)`,
    );
  }
  assert.deepEqual(clientFiltered, [1, 1, 1]);
  assert.deepEqual(cached, [routeCount, routeCount, routeCount], "each replica caches the kind whole, once");
  assert.deepEqual(outside, [0, 0, 0], "no sharded watch was asked for, so none dropped anything");
  t.diagnostic(
    `takeover after SIGKILL: ${Math.round(takeoverMs)} ms; route events per replica: ${events.join(", ")} of ${whole}`,
  );
});
