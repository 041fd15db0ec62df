import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { configMap, setup } from "./support.ts";

const fiveMinutes = 300_000;

describe("EventRecorder: per-object rate limit", () => {
  it("drops new events about one object beyond the burst of 25, and counts them", async () => {
    const { client, recorder } = setup();
    for (let i = 0; i < 30; i++) recorder.normal(configMap("settings"), "Step", "Reconcile", `step ${i}`);
    await recorder.flush();
    assert.equal(client.callsOf("create").length, 25);
    assert.deepEqual(
      client.callsOf("create").map((c) => c.body.note),
      Array.from({ length: 25 }, (_, i) => `step ${i}`),
      "the first 25 pass",
    );
    assert.equal(recorder.stats.droppedRateLimited, 5);
    assert.equal(recorder.stats.recorded, 25);
  });

  it("gives one event back per refill interval", async () => {
    const { client, clock, recorder } = setup();
    for (let i = 0; i < 26; i++) recorder.normal(configMap("settings"), "Step", "Reconcile", `a${i}`);
    clock.advance(fiveMinutes - 1);
    recorder.normal(configMap("settings"), "Step", "Reconcile", "too early");
    clock.advance(1);
    recorder.normal(configMap("settings"), "Step", "Reconcile", "refilled");
    recorder.normal(configMap("settings"), "Step", "Reconcile", "only one came back");
    clock.advance(2 * fiveMinutes);
    recorder.normal(configMap("settings"), "Step", "Reconcile", "two more 1");
    recorder.normal(configMap("settings"), "Step", "Reconcile", "two more 2");
    recorder.normal(configMap("settings"), "Step", "Reconcile", "two more 3");
    await recorder.flush();
    const notes = client.callsOf("create").map((c) => c.body.note);
    assert.equal(notes.length, 28);
    assert.deepEqual(notes.slice(25), ["refilled", "two more 1", "two more 2"]);
    assert.equal(recorder.stats.droppedRateLimited, 4);
  });

  it("keeps a separate budget per object", async () => {
    const { client, recorder } = setup({ rateLimit: { burst: 2 } });
    for (const name of ["a", "b"]) {
      for (let i = 0; i < 3; i++) recorder.normal(configMap(name), "Step", "Reconcile", `${i}`);
    }
    await recorder.flush();
    assert.deepEqual(
      client.callsOf("create").map((c) => `${c.body.regarding?.name}:${c.body.note}`),
      ["a:0", "a:1", "b:0", "b:1"],
    );
  });

  it("does not spend the budget on repeats, which only update the series", async () => {
    const { client, recorder } = setup({ rateLimit: { burst: 2 } });
    for (let i = 0; i < 100; i++) recorder.warning(configMap("settings"), "Failed", "Reconcile", "same");
    recorder.normal(configMap("settings"), "Recovered", "Reconcile", "different");
    await recorder.flush();
    assert.deepEqual(
      client.events().map((e) => [e.reason, e.series?.count]),
      [
        ["Failed", 100],
        ["Recovered", undefined],
      ],
    );
    assert.equal(recorder.stats.droppedRateLimited, 0);
  });

  it("can be turned off", async () => {
    const { client, recorder } = setup({ rateLimit: false });
    for (let i = 0; i < 100; i++) recorder.normal(configMap("settings"), "Step", "Reconcile", `${i}`);
    await recorder.flush();
    assert.equal(client.callsOf("create").length, 100);
  });
});
