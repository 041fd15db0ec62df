/**
 * The reference operator sharded: three replicas of myproxy, each a process of its own, share 32
 * namespaces of MyProxies and 1,024 ProxyRoutes over 16 virtual shards by namespace, on a control
 * plane of their own with the `ShardedListAndWatch` gate on (see support.ts for the scenario).
 * Filtered by the server, each replica receives about its share of the route events and caches
 * only its namespaces' routes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { clusterOfItsOwn, shareObjects } from "./support.ts";
import { proxies, routeCount } from "./workloads.ts";

test("three myproxy replicas sharded by namespace serve 1,024 routes, survive a SIGKILL within the Lease duration + 5 s, rebalance onto a fourth, and never reconcile an object twice at once", async (t) => {
  const where = await clusterOfItsOwn(t, true);
  const { events, whole, outside, clientFiltered, cached, takeoverMs } = await shareObjects(
    t,
    where,
    proxies,
  );
  for (const [i, received] of events.entries()) {
    assert.ok(received < 0.6 * whole, `replica ${i + 1} received ${received} of ${whole} route events`);
  }
  assert.deepEqual(outside, [0, 0, 0], "the server sent each replica only its shards");
  assert.deepEqual(clientFiltered, [0, 0, 0]);
  assert.equal(
    cached.reduce((sum, n) => sum + n, 0),
    routeCount,
    `each route cached by one replica: ${cached.join(", ")}`,
  );
  t.diagnostic(
    `takeover after SIGKILL: ${Math.round(takeoverMs)} ms; route events per replica: ${events.join(", ")} of ${whole}`,
  );
});
