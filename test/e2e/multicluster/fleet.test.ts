/**
 * A fleet end to end: a hub (the run's cluster) holding kubeconfig Secrets, and three member
 * clusters (a kube-apiserver each: `testFleet`). A controller copies each labelled
 * ConfigMap of a member into a `<name>-status` ConfigMap naming the member. A member whose Secret
 * is created is reconciled within 10 s; one whose Secret is deleted has its informers stopped and
 * is reconciled no more; one whose apiserver stops is disengaged while the others go on.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { NotFoundError } from "../../../src/client/index.ts";
import { controller } from "../../../src/controller/index.ts";
import {
  type ClusterState,
  Fleet,
  type FleetCluster,
  type FleetReconcileContext,
  inCluster,
  kubeconfigSecretProvider,
} from "../../../src/multicluster/index.ts";
import { type TestFleet, type TestFleetMember, testFleet } from "../../../src/testing/index.ts";
import { eventually, testClient, testLogger } from "../support.ts";

const COPY_LABEL = "fleet.kubeloop.dev/copy";

/** Reconciles per member, and the latest engaged view of each. */
const reconciles = new Map<string, number>();
const engaged = new Map<string, FleetCluster>();

/** Writes `<name>-status` with the member's name and the source's data, for a labelled ConfigMap. */
async function copy(ctx: FleetReconcileContext<ConfigMapObject>): Promise<void> {
  const source = ctx.object;
  if (!source?.metadata.labels?.[COPY_LABEL]) return;
  reconciles.set(ctx.cluster.name, (reconciles.get(ctx.cluster.name) ?? 0) + 1);
  await ctx.client.apply(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${source.metadata.name}-status`, namespace: source.metadata.namespace },
    data: { cluster: ctx.cluster.name, ...source.data },
  });
}

describe("a fleet of a hub and three member clusters", () => {
  let members: TestFleet;
  const stop = new AbortController();
  let fleet: Fleet;
  let running: Promise<void>;

  const cleanups: (() => unknown)[] = [];

  before(async () => {
    const scope = { name: "multicluster fleet", after: (fn: () => unknown) => cleanups.push(fn) };
    members = await testFleet(await testClient(), scope, { members: 3 });
    fleet = new Fleet({
      name: "fleet-copier",
      providers: [kubeconfigSecretProvider({ client: await testClient(), namespace: members.namespace })],
      setup: (manager, cluster) => {
        engaged.set(cluster.name, cluster);
        return controller(manager).for(ConfigMap).reconcile(inCluster(cluster, copy));
      },
      // Probes faster than the default (every 5 s, 3 failures) only to keep the file short: a stopped
      // apiserver is disengaged here in ~1 s rather than ~15 s. bench/fleet-outage.ts runs the defaults.
      probe: { intervalMs: 500, failureThreshold: 2, timeoutMs: 1000 },
      gracefulShutdownMs: 1000,
      logger: testLogger(),
    });
    running = fleet.start(stop.signal);
  });

  after(async () => {
    stop.abort();
    await running;
    for (const cleanup of cleanups) await cleanup();
  });

  const member = (i: number): TestFleetMember => members.member(i);
  const state = (name: string): ClusterState | undefined => fleet.clusters().find((c) => c.name === name);

  it("reconciles a member within 10 s of its kubeconfig Secret being created in the hub", async () => {
    for (const m of members.members) {
      await members.join(m.name);
      const started = performance.now();
      await labelled(m, "first", { colour: "blue" });
      const status = await statusOf(m, "first", 10_000);
      assert.equal(status.data?.cluster, m.name);
      assert.equal(status.data?.colour, "blue");
      assert.ok(performance.now() - started < 10_000);
    }
    assert.deepEqual(
      fleet.clusters().map((c) => [c.name, c.engaged, c.reason]),
      members.members.map((m) => [m.name, true, "discovered"]),
    );
  });

  it("stops a removed member's informers and reconciles it no more", async () => {
    const removed = member(2);
    const view = engaged.get(removed.name) as FleetCluster;
    assert.ok(view.cache.informers().length > 0);
    await members.leave(removed.name);
    await eventually(() => state(removed.name) === undefined, { what: "member-2 dropped by the fleet" });
    assert.deepEqual(
      view.cache.informers().map((i) => i.health().state),
      view.cache.informers().map(() => "stopped"),
    );
    const before = reconciles.get(removed.name);
    await labelled(removed, "after-removal", {});
    await labelled(member(0), "barrier", {});
    await statusOf(member(0), "barrier", 10_000);
    assert.equal(reconciles.get(removed.name), before);
    await assert.rejects(
      removed.client.get(ConfigMap, "after-removal-status", { namespace: "default" }),
      NotFoundError,
    );
    const metrics = await fleet.registry.metrics();
    assert.match(metrics, /kubeloop_fleet_disengagements_total\{reason="kubeconfig Secret deleted"\} 1/);
    assert.match(metrics, /kubeloop_fleet_clusters_engaged 2/);
  });

  it("disengages a member whose apiserver stops, while the others go on reconciling", async () => {
    const down = member(1);
    await down.cluster.stop();
    await labelled(member(0), "while-down", { n: "1" });
    await statusOf(member(0), "while-down", 10_000);
    await eventually(() => state(down.name)?.engaged === false, { what: "member-1 disengaged" });
    assert.equal(state(down.name)?.reason, "unreachable");
    assert.equal(state(down.name)?.informers, 0);
    await labelled(member(0), "after-down", { n: "2" });
    await statusOf(member(0), "after-down", 10_000);
    await down.cluster.start();
    await eventually(() => state(down.name)?.engaged, { what: "member-1 engaged again" });
    assert.equal(state(down.name)?.reason, "recovered");
    await labelled(down, "back", {});
    await statusOf(down, "back", 10_000);
  });
});

/** Creates a labelled ConfigMap `name` in `member`'s `default` namespace. */
async function labelled(member: TestFleetMember, name: string, data: Record<string, string>): Promise<void> {
  await member.client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default", labels: { [COPY_LABEL]: "true" } },
    data,
  });
}

/** Waits up to `timeoutMs` for `<name>-status` in `member`. */
function statusOf(member: TestFleetMember, name: string, timeoutMs: number): Promise<ConfigMapObject> {
  return eventually(() => member.client.get(ConfigMap, `${name}-status`, { namespace: "default" }), {
    timeoutMs,
    what: `${name}-status in ${member.name}`,
  });
}
