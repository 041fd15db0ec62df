/** A namespace-scoped manager keeps every informer in its namespace, per-kind overrides too. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { type KubeObject, resourceType } from "../../../src/api/index.ts";
import { Client } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { controller } from "../../../src/controller/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { fakeConnection } from "../client/support.ts";

const Widget = resourceType<KubeObject>("example.com/v1", "Widget", "widgets", true);
const Gadget = resourceType<KubeObject>("example.com/v1", "Gadget", "gadgets", true);

describe("Manager: namespace and per-kind cache overrides", () => {
  it("keeps a per-kind override within the manager's namespace unless it names one", async () => {
    const clock = new FakeClock();
    const manager = await Manager.create({
      name: "widgets",
      namespace: "team-a",
      cache: {
        byKind: {
          "example.com/v1/Widget": { labelSelector: "tier=gold" },
          "example.com/v1/Gadget": { namespace: "shared" },
        },
      },
      client: new Client(fakeConnection(), { clock }),
      logger: pino({ level: "silent" }),
      metrics: false,
      health: false,
      clock,
    });
    controller(manager)
      .for(Widget)
      .watches(Gadget, () => [])
      .reconcile(async () => undefined);
    const scopes = manager.cache
      .informers()
      .map((i) => [i.type.kind, i.scope.namespace, i.scope.labelSelector]);
    assert.deepEqual(scopes, [
      ["Widget", "team-a", "tier=gold"],
      ["Gadget", "shared", undefined],
    ]);
  });
});
