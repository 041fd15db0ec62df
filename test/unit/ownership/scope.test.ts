/**
 * ensureChild inside a real controller: children are read through the informer of the scope given
 * to `owns()`, so no second (cluster-wide, unfiltered) informer of the child's kind starts.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { pino } from "pino";
import { ConfigMap, type KubeObject } from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import {
  buildController,
  type ControllerHost,
  controller,
  type HostedController,
} from "../../../src/controller/index.ts";
import type { EventRecorder } from "../../../src/events/index.ts";
import { type EnsureResult, ensureChild } from "../../../src/ownership/index.ts";
import { newCache } from "../cache/support.ts";
import { flush } from "../controller/support.ts";
import { configMap, Widget, widget } from "./support.ts";

it("with owns(ConfigMap, { scope: { namespace } }), ensureChild starts no other informer", async (t) => {
  const { client: watches, cache, lazy, stop } = newCache(t);
  const created: KubeObject[] = [];
  const client = {
    fieldManager: "widgets",
    async create(_type: unknown, obj: KubeObject) {
      created.push(obj);
      return obj;
    },
    fenced: () => client,
    written: () => client,
  } as unknown as Client;
  const built: HostedController[] = [];
  const host: ControllerHost = {
    cache,
    addController: (spec) => {
      const logger = pino({ level: "silent" });
      built.push(buildController(spec, { client, cache, logger, recorder: {} as EventRecorder }));
    },
  };
  const results: EnsureResult[] = [];
  controller(host)
    .for(Widget, { scope: { namespace: "a" } })
    .owns(ConfigMap, { scope: { namespace: "a" } })
    .reconcile(async (ctx) => {
      if (ctx.object)
        results.push(
          await ensureChild(ctx, ctx.object, ConfigMap, configMap("w-config", {}, { namespace: "a" })),
        );
    });
  const declared = cache.informers().map((i) => `${i.type.kind} ${JSON.stringify(i.scope)}`);
  watches.kind("Widget").page([widget({ namespace: "a" })], "1");
  watches.kind("ConfigMap").page([], "1");
  watches.kind("Widget").stream();
  watches.kind("ConfigMap").stream();
  cache.start(stop.signal);
  await cache.waitForSync();
  void built[0]?.run(stop.signal);
  await flush();

  assert.deepEqual(results, ["created"]);
  assert.equal(created[0]?.metadata.namespace, "a");
  assert.deepEqual(
    cache.informers().map((i) => `${i.type.kind} ${JSON.stringify(i.scope)}`),
    declared,
    "the informers are the declared ones",
  );
  assert.deepEqual(lazy, []);
});
