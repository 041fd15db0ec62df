import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, Secret } from "../../../src/api/index.ts";
import { type BudgetCrossing, BudgetWatch, InvalidCacheBudgetError } from "../../../src/cache/index.ts";

const brief = ({ type, bytes, exceeded }: BudgetCrossing) =>
  `${type.kind} ${exceeded ? "over" : "under"} ${bytes}`;

describe("BudgetWatch", () => {
  it("tells once when a kind's informers together go over its budget, and once when back under 90 % of it", () => {
    const told: string[] = [];
    const watch = new BudgetWatch({ "v1/ConfigMap": 1000 }, (c) => told.push(brief(c)));
    const passedOn: number[] = [];
    const shard1 = watch.watch({ storeBytes: (b) => passedOn.push(b) }, ConfigMap);
    const shard2 = watch.watch({}, ConfigMap);
    shard1.storeBytes?.(600);
    shard2.storeBytes?.(400);
    assert.deepEqual(told, [], "at the budget is not over it");
    shard2.storeBytes?.(500);
    shard1.storeBytes?.(700);
    assert.deepEqual(told, ["ConfigMap over 1100"], "told once while over");
    shard1.storeBytes?.(450);
    assert.deepEqual(told, ["ConfigMap over 1100"], "950 is under the budget but above 90 % of it");
    shard2.storeBytes?.(0);
    shard1.storeBytes?.(1200);
    assert.deepEqual(told, ["ConfigMap over 1100", "ConfigMap under 450", "ConfigMap over 1200"]);
    assert.deepEqual(passedOn, [600, 700, 450, 1200], "the hooks it wraps still hear every value");
  });

  it("leaves kinds without a budget alone", () => {
    const hooks = { storeBytes: () => {} };
    const watch = new BudgetWatch({ "v1/ConfigMap": 1000 }, () => assert.fail("no budget"));
    assert.equal(watch.watch(hooks, Secret), hooks);
  });

  it("refuses a budget that is not a positive number of bytes", () => {
    for (const budget of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, "512Mi" as unknown as number])
      assert.throws(
        () => new BudgetWatch({ "v1/Pod": budget }, () => {}),
        (err: unknown) =>
          err instanceof InvalidCacheBudgetError &&
          err.code === "KL_CACHE_BUDGET" &&
          /v1\/Pod must be a positive number of bytes/.test(err.message),
      );
  });
});
