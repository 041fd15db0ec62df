/**
 * Three replicas of a sharded operator, run as deployed, share 1,000 Widgets over 16
 * virtual shards (a Lease each), sharded by uid on the apiserver (the run's cluster has the
 * `ShardedListAndWatch` gate on), their ConfigMaps routed by the shard label: see support.ts for
 * the scenario. Filtered by the server, each replica receives about its share of the watch
 * events, and drops nothing on its client.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testClient, testNamespace } from "../support.ts";
import { shareObjects } from "./support.ts";
import { widgets } from "./workloads.ts";

test("three sharded replicas share 1,000 widgets, survive a SIGKILL within a Lease duration and two retry periods, rebalance onto a fourth, and never reconcile a widget twice at once", async (t) => {
  const where = {
    kubeconfig: process.env.KUBECONFIG ?? "",
    client: await testClient(),
    namespace: await testNamespace(t),
    serverShards: true,
  };
  const { events, whole, outside, clientFiltered, cached, takeoverMs } = await shareObjects(
    t,
    where,
    widgets,
  );
  for (const [i, received] of events.entries()) {
    assert.ok(received < 0.6 * whole, `replica ${i + 1} received ${received} of ${whole} widget events`);
  }
  assert.deepEqual(outside, [0, 0, 0], "the server sent each replica only its shards");
  assert.deepEqual(clientFiltered, [0, 0, 0]);
  assert.equal(
    cached.reduce((sum, n) => sum + n, 0),
    1_000,
    `each widget cached by one replica: ${cached.join(", ")}`,
  );
  t.diagnostic(
    `takeover after SIGKILL: ${Math.round(takeoverMs)} ms; widget events per replica: ${events.join(", ")} of ${whole}`,
  );
});
