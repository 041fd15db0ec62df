import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, Secret } from "../../../src/api/index.ts";
import type { DivergedObject } from "../../../src/cache/index.ts";
import {
  logBudgetCrossing,
  logDivergence,
  ownPod,
  shardFallbackWarnings,
  withPodEvents,
} from "../../../src/manager/cache-reports.ts";

describe("cache reports: the manager's pod", () => {
  it("is named by the downward-API variables of the generated Deployment", () => {
    assert.deepEqual(ownPod({ POD_NAME: "op-1", POD_NAMESPACE: "ops", POD_UID: "u1" }), {
      apiVersion: "v1",
      kind: "Pod",
      namespace: "ops",
      name: "op-1",
      uid: "u1",
    });
    assert.equal(ownPod({ POD_NAME: "op-1" }), undefined, "outside a cluster (no namespace) there is none");
    assert.equal(ownPod({}), undefined);
  });

  it("gets a Warning event each time an informer dies and restarts, besides the metric", () => {
    const pod = ownPod({ POD_NAME: "op-1", POD_NAMESPACE: "ops" });
    const events: string[] = [];
    const restarts: number[] = [];
    const recorder = {
      warning: (regarding: { name?: string }, reason: string, action: string, note?: string) =>
        events.push(`${regarding.name} ${reason} ${action}: ${note}`),
    };
    const hooks = withPodEvents({ restart: (_e, ms) => restarts.push(ms) }, ConfigMap, pod, () => recorder);
    hooks.restart?.(new TypeError("boom"), 812.4);
    assert.deepEqual(restarts, [812.4]);
    assert.deepEqual(events, [
      "op-1 InformerRestarted Watch: the ConfigMap informer died (boom); restarting in 812 ms",
    ]);
  });

  it("leaves the hooks alone outside a cluster", () => {
    const hooks = { restart: () => undefined };
    assert.equal(
      withPodEvents(hooks, ConfigMap, undefined, () => {
        throw new Error("no recorder outside a cluster");
      }),
      hooks,
    );
  });
});

describe("cache reports: divergence", () => {
  it("logs one warning per relist, counting each change and naming the first ten keys", () => {
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    const logger = {
      warn: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }),
    };
    const found: DivergedObject[] = [
      { change: "deleted", key: "ns/gone" },
      ...Array.from({ length: 11 }, (_, i) => ({ change: "added" as const, key: `ns/new-${i}` })),
    ];
    logDivergence(logger as never, ConfigMap, found);
    assert.equal(lines.length, 1);
    assert.deepEqual(lines[0]?.fields, { kind: "ConfigMap", added: 11, updated: 0, deleted: 1 });
    assert.match(
      lines[0]?.message ?? "",
      /^the periodic relist of ConfigMap found 12 change\(s\) its watch had missed/,
    );
    assert.match(
      lines[0]?.message ?? "",
      /\(deleted ns\/gone, added ns\/new-0, .*added ns\/new-8, and 2 more\)/,
    );
    assert.match(lines[0]?.message ?? "", /the cache is repaired and the objects re-queued$/);
  });
});

describe("cache reports: a shard selector the apiserver ignored", () => {
  it("is counted every time and warned about once per kind, across its informers, naming the feature gate", () => {
    const warnings: string[] = [];
    let counted = 0;
    const logger = { warn: (_fields: object, message: string) => warnings.push(message) };
    const withWarning = shardFallbackWarnings(logger as never);
    const count = { outsideShard: () => counted++ };
    const [shard0, shard1] = [withWarning(count, ConfigMap), withWarning(count, ConfigMap)];
    shard0.outsideShard?.();
    shard0.outsideShard?.();
    shard1.outsideShard?.();
    withWarning(count, Secret).outsideShard?.();
    assert.equal(counted, 4);
    assert.equal(warnings.length, 2, "once for ConfigMap, once for Secret");
    assert.match(
      warnings[0] ?? "",
      /ignored the shard selector of ConfigMap.*ShardedListAndWatch feature gate/,
    );
  });
});

describe("cache reports: heap budgets", () => {
  it("warns when a kind's caches go over budget, naming the estimate, the budget and the fixes, and says when back under", () => {
    const lines: string[] = [];
    const logger = {
      warn: (fields: object, message: string) => lines.push(`warn ${JSON.stringify(fields)} ${message}`),
      info: (fields: object, message: string) => lines.push(`info ${JSON.stringify(fields)} ${message}`),
    };
    const budget = 512 * 2 ** 20;
    logBudgetCrossing(logger as never, { type: ConfigMap, bytes: 600 * 2 ** 20, budget, exceeded: true });
    logBudgetCrossing(logger as never, {
      type: ConfigMap,
      bytes: 400 * 2 ** 20 + 0.4,
      budget,
      exceeded: false,
    });
    assert.equal(lines.length, 2);
    assert.match(
      lines[0] ?? "",
      /^warn \{"kind":"ConfigMap","apiVersion":"v1","bytes":629145600,"budget":536870912\} the cache of ConfigMap \(v1\) holds an estimated 600\.0 MiB, over its budget of 512\.0 MiB \(cache\.budgets\["v1\/ConfigMap"\]\): narrow what it caches .*metadataOnly.*raise the budget/,
    );
    assert.match(
      lines[1] ?? "",
      /^info .*"bytes":419430400,.* holds an estimated 400\.0 MiB, back under its budget of 512\.0 MiB$/,
    );
  });
});
