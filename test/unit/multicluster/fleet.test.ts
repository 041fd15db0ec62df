import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ForbiddenError, UnauthorizedError } from "../../../src/client/index.ts";
import type { ReconcileContext } from "../../../src/controller/index.ts";
import { type FleetCluster, inCluster } from "../../../src/multicluster/index.ts";
import { probeFailure } from "../../../src/multicluster/slot.ts";
import { until } from "../controller/support.ts";
import { type configMap, fenced, refusedConnection, startedFleet, tickUntil } from "./support.ts";

const request = { method: "GET", path: "/api" };

describe("Fleet", () => {
  it("engages a cluster its provider offers: a manager with the fleet's controllers and their informers", async () => {
    const { fleet, provider, setups, stop } = startedFleet();
    await until(() => provider.sink !== undefined);
    provider.sink?.engage("east", refusedConnection());
    await until(() => fleet.clusters()[0]?.engaged === true);
    assert.deepEqual(fleet.clusters(), [
      { name: "east", engaged: true, reason: "discovered", synced: false, informers: 1 },
    ]);
    assert.deepEqual(
      setups.map((c) => c.name),
      ["east"],
    );
    await stop();
    assert.deepEqual(fleet.clusters(), []);
  });

  it("disengages a cluster its provider drops: writes fenced, informers stopped, then forgotten", async () => {
    const { fleet, provider, setups, stop } = startedFleet();
    await until(() => provider.sink !== undefined);
    provider.sink?.engage("east", refusedConnection());
    await until(() => fleet.clusters()[0]?.engaged === true);
    const [east] = setups as [FleetCluster];
    const informers = east.cache.informers();
    provider.sink?.disengage("east", "Secret deleted");
    await until(() => fleet.clusters().length === 0);
    assert.ok(await fenced(east));
    assert.deepEqual(
      informers.map((i) => i.health().state),
      ["stopped"],
    );
    assert.match(
      await fleet.registry.metrics(),
      /kubeloop_fleet_disengagements_total\{reason="Secret deleted"\} 1/,
    );
    await stop();
  });

  it("counts a cluster whose setup throws as not engaged (setup failed), with a metric, and tries again", async () => {
    let attempts = 0;
    const setup = () => {
      attempts++;
      throw new Error("no such kind");
    };
    const { fleet, provider, clock, stop } = startedFleet({ setup });
    await until(() => provider.sink !== undefined);
    provider.sink?.engage("east", refusedConnection());
    await tickUntil(clock, () => attempts >= 2);
    assert.deepEqual(
      fleet.clusters().map((c) => [c.name, c.engaged, c.reason]),
      [["east", false, "setup failed"]],
    );
    assert.match(
      await fleet.registry.metrics(),
      /kubeloop_fleet_engagement_failures_total\{reason="setup failed"\} [2-9]/,
    );
    await stop();
  });

  it("re-engages a cluster whose connection changed, fencing the old engagement", async () => {
    const { fleet, provider, setups, stop } = startedFleet();
    await until(() => provider.sink !== undefined);
    provider.sink?.engage("east", refusedConnection());
    await until(() => setups.length === 1);
    provider.sink?.engage("east", refusedConnection());
    await until(() => setups.length === 2 && fleet.clusters().length === 1);
    assert.ok(await fenced(setups[0] as FleetCluster));
    assert.deepEqual(
      (setups[1] as FleetCluster).cache.informers().map((i) => i.health().state),
      ["syncing"],
    );
    await stop();
  });

  it("disengages a cluster after repeated failed probes and engages it again once it answers", async () => {
    let answering = true;
    const { fleet, provider, clock, stop } = startedFleet({
      probeWith: async () => {
        if (!answering) throw new Error("connect ECONNREFUSED");
      },
    });
    await until(() => provider.sink !== undefined);
    provider.sink?.engage("east", refusedConnection());
    await until(() => fleet.clusters()[0]?.engaged === true);
    answering = false;
    await tickUntil(clock, () => fleet.clusters()[0]?.engaged === false);
    assert.deepEqual(fleet.clusters()[0], {
      name: "east",
      engaged: false,
      reason: "unreachable",
      synced: false,
      informers: 0,
    });
    answering = true;
    await tickUntil(clock, () => fleet.clusters()[0]?.engaged === true);
    assert.equal(fleet.clusters()[0]?.reason, "recovered");
    assert.match(await fleet.registry.metrics(), /kubeloop_fleet_engagements_total\{reason="recovered"\} 1/);
    await stop();
  });

  it("tells why a cluster that never answered is not engaged, and engages it once it answers", async () => {
    let answering = false;
    const { fleet, provider, clock, stop } = startedFleet({
      probeWith: async () => {
        if (!answering)
          throw new UnauthorizedError({ code: 401, reason: "Unauthorized", message: "" }, request);
      },
    });
    await until(() => provider.sink !== undefined);
    provider.sink?.engage("east", refusedConnection());
    await tickUntil(clock, () => fleet.clusters()[0]?.reason === "unauthorized");
    assert.deepEqual(
      fleet.clusters().map((c) => [c.engaged, c.reason]),
      [[false, "unauthorized"]],
    );
    answering = true;
    await tickUntil(clock, () => fleet.clusters()[0]?.engaged === true);
    assert.equal(fleet.clusters()[0]?.reason, "discovered");
    await stop();
  });

  it("is not ready while a provider's run failed, runs it again after a backoff, and is ready again once it reports its clusters", async () => {
    const { fleet, provider, clock, stop } = startedFleet({}, [new Error("watch failed")]);
    const failing = () => {
      try {
        fleet.readiness();
        return false;
      } catch {
        return true;
      }
    };
    await until(failing);
    assert.throws(() => fleet.readiness(), /^Error: cluster providers failing: driven$/);
    assert.match(
      await fleet.registry.metrics(),
      /kubeloop_fleet_provider_failures_total\{provider="driven"\} 1/,
    );
    await tickUntil(clock, () => provider.sink !== undefined);
    assert.equal(provider.runs, 2);
    provider.sink?.ready();
    assert.equal(fleet.readiness(), true);
    await stop();
  });
});

describe("probeFailure", () => {
  it("calls a 401 or 403 unauthorized, anything else unreachable", () => {
    const status = (code: number, reason: string) => ({ code, reason, message: reason });
    assert.equal(probeFailure(new UnauthorizedError(status(401, "Unauthorized"), request)), "unauthorized");
    assert.equal(probeFailure(new ForbiddenError(status(403, "Forbidden"), request)), "unauthorized");
    assert.equal(probeFailure(new Error("connect ECONNREFUSED")), "unreachable");
  });
});

describe("inCluster", () => {
  it("gives the reconciler ctx.cluster and the builder's context, read lazily", async () => {
    const cluster = { name: "east" } as FleetCluster;
    let logReads = 0;
    const ctx = {
      controller: "widget",
      get log() {
        logReads++;
        return undefined;
      },
    } as unknown as ReconcileContext<typeof configMap>;
    const seen: string[] = [];
    await inCluster<typeof configMap>(cluster, async (c) => {
      seen.push(c.cluster.name, c.controller);
    })(ctx);
    assert.deepEqual(seen, ["east", "widget"]);
    assert.equal(logReads, 0);
  });
});
