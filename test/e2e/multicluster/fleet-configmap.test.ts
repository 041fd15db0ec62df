/**
 * The FleetConfigMap example (examples/fleet-configmap) end to end: the hub (the run's cluster)
 * and three member clusters (`testFleet`), members selected by their kubeconfig
 * Secrets' labels. Propagation reaches the selected members only, a member added later within
 * 10 s; drift in a member is repaired; status says per member whether it holds the data, and a
 * member whose apiserver stops is not Ready there while the others stay Ready; deleting the hub
 * object deletes its children in every member first (the finalizer). `kubeloop describe
 * --fleet-namespace` shows the hub object's children under their member clusters; a member whose
 * apiserver was down when an owner went collects the orphaned child once engaged again.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { FleetConfigMap, type FleetConfigMapObject } from "../../../examples/fleet-configmap/src/api.ts";
import {
  type RunningFleetConfigMaps,
  startFleetConfigMaps,
} from "../../../examples/fleet-configmap/src/operator.ts";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { NotFoundError } from "../../../src/client/index.ts";
import { describeObject, renderDescription } from "../../../src/describe/index.ts";
import { installCrds } from "../../../src/operator/index.ts";
import { type TestFleet, testFleet } from "../../../src/testing/index.ts";
import { eventually, testClient, testLogger } from "../support.ts";

const NAME = "settings";

describe("the FleetConfigMap example on a hub and three member clusters", () => {
  let members: TestFleet;
  let namespace = "";
  const stop = new AbortController();
  let running: RunningFleetConfigMaps;
  const cleanups: (() => unknown)[] = [];

  before(async () => {
    const hub = await testClient();
    await installCrds(hub, [FleetConfigMap]);
    members = await testFleet(
      hub,
      { name: "fleet-configmap", after: (fn) => cleanups.push(fn) },
      { members: 3 },
    );
    namespace = members.namespace;
    running = await startFleetConfigMaps({
      hub,
      fleetNamespace: namespace,
      signal: stop.signal,
      fleet: {
        // Probes faster than the default (every 5 s, 3 failures) only to keep the file short: a stopped
        // apiserver is disengaged here in ~1 s rather than ~15 s. bench/fleet-outage.ts runs the defaults.
        probe: { intervalMs: 500, failureThreshold: 2, timeoutMs: 1000 },
        gracefulShutdownMs: 1000,
        logger: testLogger(),
      },
    });
    await members.join(0, { env: "prod" });
    await members.join(1, { env: "dev" });
  });

  after(async () => {
    stop.abort();
    await running?.stopped;
    for (const cleanup of cleanups) await cleanup();
  });

  const client = (i: number) => members.member(i).client;
  const child = (i: number): Promise<ConfigMapObject> => client(i).get(ConfigMap, NAME, { namespace });
  const hubObject = async (): Promise<FleetConfigMapObject> =>
    (await testClient()).get(FleetConfigMap, NAME, { namespace });
  /** Waits until the hub object is gone (its finalizer done). */
  const hubObjectGone = () =>
    eventually(
      () =>
        hubObject().then(
          () => false,
          (err) => err instanceof NotFoundError,
        ),
      {
        what: "the FleetConfigMap gone",
      },
    );
  /** Waits for member `i`'s child to hold `colour`. */
  const colourIn = (i: number, colour: string, timeoutMs?: number) =>
    eventually(async () => (await child(i)).data?.colour === colour, {
      timeoutMs,
      what: `${colour} in member-${i}`,
    });
  /** Waits for the hub object's status to say `expected` per member, and Ready `ready`. */
  const statusSays = (expected: Record<string, string>, ready: (status: string | undefined) => boolean) =>
    eventually(
      async () => {
        const status = (await hubObject()).status;
        const clusters = Object.fromEntries(
          (status?.clusters ?? []).map((c) => [c.name, `${c.status} ${c.reason}`]),
        );
        const summary = status?.conditions?.find((c) => c.type === "Ready")?.status;
        return isDeepStrictEqual(clusters, expected) && ready(summary) && status;
      },
      { what: `status ${JSON.stringify(expected)}` },
    );

  const typeMeta = { apiVersion: FleetConfigMap.apiVersion, kind: FleetConfigMap.kind };

  it("propagates to the selected members only, with their status on the hub object", async () => {
    await (await testClient()).create(FleetConfigMap, {
      ...typeMeta,
      metadata: { name: NAME, namespace },
      spec: { clusterSelector: "env=prod", data: { colour: "blue" } },
    });
    await colourIn(0, "blue");
    const status = await statusSays({ "member-0": "True Propagated" }, (ready) => ready === "True");
    assert.ok(status);
    assert.deepEqual((await child(0)).metadata.labels, {
      "kubeloop.dev/hub-owner-kind": "FleetConfigMap",
      "kubeloop.dev/hub-owner-name": NAME,
      "kubeloop.dev/hub-owner-namespace": namespace,
      "kubeloop.dev/hub-owner-uid": (await hubObject()).metadata.uid,
    });
    await assert.rejects(child(1), NotFoundError);
  });

  it("gives a member added later the ConfigMap within 10 s", async () => {
    const started = performance.now();
    await members.join(2, { env: "prod" });
    await colourIn(2, "blue", 10_000);
    assert.ok(performance.now() - started < 10_000);
    await statusSays({ "member-0": "True Propagated", "member-2": "True Propagated" }, (r) => r === "True");
    await assert.rejects(child(1), NotFoundError);
  });

  it("is described with its children under their member clusters (kubeloop describe --fleet-namespace)", async () => {
    const target = "fleetconfigmaps.fleet.example.com/settings";
    const options = { namespace, fleetNamespace: namespace };
    const description = await describeObject(await testClient(), target, options);
    const children = (description.clusters ?? []).map((c) => [
      c.cluster,
      c.children.map((child) => `${child.kind}/${child.name} ${child.kstatus.status}`),
    ]);
    assert.deepEqual(children, [
      ["member-0", ["ConfigMap/settings Current"]],
      ["member-1", []],
      ["member-2", ["ConfigMap/settings Current"]],
    ]);
    const text = renderDescription(description);
    assert.match(
      text,
      /Owned objects \(2, in this cluster and 3 member cluster\(s\)\):\n {2}FleetConfigMap\/settings /,
    );
    assert.match(text, /\n {2}├─ cluster member-0\n {2}│ {2}└─ ConfigMap\/settings +Current +Ready -\n/);
    assert.match(text, /\n {2}├─ cluster member-1 \(no children\)\n/);
    assert.match(text, /\n {2}└─ cluster member-2\n {5}└─ ConfigMap\/settings +Current +Ready -\n/);
  });

  it("restores a child deleted or edited in a member", async () => {
    await client(0).delete(ConfigMap, NAME, { namespace });
    await colourIn(0, "blue");
    const edit: ConfigMapObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: NAME, namespace },
      data: { colour: "red" },
    };
    await client(2).apply(ConfigMap, edit, { fieldManager: "someone-else", force: true });
    await colourIn(2, "blue");
  });

  it("shows a member whose apiserver stopped as not Ready, while the others stay Ready", async () => {
    await members.member(2).cluster.stop();
    const down = await statusSays(
      { "member-0": "True Propagated", "member-2": "Unknown ClusterNotEngaged" },
      (ready) => ready !== "True",
    );
    assert.ok(down);
    assert.match(down.clusters?.find((c) => c.name === "member-2")?.message ?? "", /unreachable/);
    await (await testClient()).apply(
      FleetConfigMap,
      {
        ...typeMeta,
        metadata: { name: NAME, namespace },
        spec: { clusterSelector: "env=prod", data: { colour: "green" } },
      },
      { force: true },
    );
    await colourIn(0, "green");
    await members.member(2).cluster.start();
    await colourIn(2, "green");
    await statusSays({ "member-0": "True Propagated", "member-2": "True Propagated" }, (r) => r === "True");
  });

  it("deletes the children in every member before the hub object goes", async () => {
    await (await testClient()).delete(FleetConfigMap, NAME, { namespace });
    await hubObjectGone();
    for (const i of [0, 2]) await assert.rejects(child(i), NotFoundError);
  });

  it("collects, in a member engaged again, the children whose owner went while it was away", async () => {
    const hub = await testClient();
    await hub.create(FleetConfigMap, {
      ...typeMeta,
      metadata: { name: NAME, namespace },
      spec: { clusterSelector: "env=prod", data: { colour: "violet" } },
    });
    await colourIn(0, "violet");
    await colourIn(2, "violet");
    // Away with its apiserver stopped, member-2 stays selected (its Secret is there), so no prune
    // reaches it: a member whose Secret is deleted is no longer selected, and may lose the child to
    // a prune before it is disengaged.
    await members.member(2).cluster.stop();
    await eventually(() => running.fleet.clusters().find((c) => c.name === "member-2")?.engaged === false, {
      what: "member-2 disengaged",
    });
    await hub.delete(FleetConfigMap, NAME, { namespace });
    await hubObjectGone();
    await assert.rejects(child(0), NotFoundError);
    await members.member(2).cluster.start();
    await eventually(
      () =>
        child(2).then(
          () => false,
          (err) => err instanceof NotFoundError,
        ),
      {
        what: "the orphan collected in member-2 once engaged again",
      },
    );
  });
});
