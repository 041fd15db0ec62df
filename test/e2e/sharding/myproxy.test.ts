/**
 * The reference operator sharded: three replicas of myproxy, run as deployed (its webhooks too), share 32
 * namespaces of MyProxies and 512 ProxyRoutes over 16 virtual shards by namespace (see
 * support.ts for the scenario), on a control plane of their own: first with the apiserver's
 * `ShardedListAndWatch` gate on, then on another with it off. One after the other, so that the
 * run has one such control plane at a time.
 *
 * With the gate on, the server filters: each replica receives about its share of the route events
 * and caches only its namespaces' routes. With it off, as an older or unconfigured cluster, the
 * server ignores shard selectors, which each replica finds out at start; it then places MyProxies
 * and routes by the shard label `kubeloop.dev/shard` (`kubeloop_shard_labelled{kind="ProxyRoute"}`
 * 1), which the holders of their shards set, and watches its shards' label values plus the objects
 * not labelled yet — and the guarantees hold all the same.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { clusterOfItsOwn, shareObjects } from "./support.ts";
import { proxies, routeCount } from "./workloads.ts";

test("three myproxy replicas sharded by namespace serve 512 routes, survive a SIGKILL within a Lease duration and two retry periods, rebalance onto a fourth, and never reconcile an object twice at once", async (t) => {
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

test("with the gate off, sharded myproxy replicas place routes by the shard label: once labelled, each receives about its share, and the guarantees hold", async (t) => {
  const where = await clusterOfItsOwn(t, false);
  const { events, whole, firstUnlabelled, outside, clientFiltered, labelled, cached, takeoverMs, steady } =
    await shareObjects(t, where, proxies);
  assert.deepEqual(
    clientFiltered,
    [0, 0, 0],
    "the primary kinds are placed by the label, not filtered whole",
  );
  assert.deepEqual(labelled, [1, 1, 1], "kubeloop_shard_labelled says so");
  assert.equal(
    firstUnlabelled,
    0,
    "each route's first watch event carries the label its webhook set at creation",
  );
  assert.equal(
    cached.reduce((sum, n) => sum + n, 0),
    routeCount,
    `each route cached by one replica: ${cached.join(", ")}`,
  );
  assert.deepEqual(outside, [0, 0, 0], "no shard selector was sent, so none was ignored");
  // Routes created unlabelled reach every replica's watch of unlabelled objects (added, then gone
  // once labelled); once labelled, a change reaches the replica holding the route alone.
  for (const [i, received] of steady.events.entries()) {
    const share = steady.shares[i] ?? 0;
    assert.ok(
      received <= 1.2 * share * steady.whole + 10,
      `replica ${i + 1} received ${received} of ${steady.whole} route events while holding ${share} of the routes`,
    );
  }
  t.diagnostic(
    `takeover after SIGKILL: ${Math.round(takeoverMs)} ms; route events per replica while created: ${events.join(", ")} of ${whole}; ` +
      `once labelled: ${steady.events.join(", ")} of ${steady.whole} (shares ${steady.shares.map((s) => s.toFixed(2)).join(", ")})`,
  );
});
