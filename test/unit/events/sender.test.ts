import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ForbiddenError, InvalidError } from "../../../src/client/index.ts";
import { apiError, configMap, driven, settle, setup, unavailable } from "./support.ts";

/** A gate the fake client waits on, and the function that opens it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("EventRecorder: background sender", () => {
  it("drops the oldest pending writes when the queue is full, counts them and logs once", async () => {
    const { client, logger, recorder } = setup({ maxQueued: 3, rateLimit: false });
    const blocked = gate();
    client.gate = blocked.promise;
    recorder.normal(configMap("o0"), "Step", "Reconcile");
    await settle(); // o0 is in flight, the queue is empty
    for (let i = 1; i <= 6; i++) recorder.normal(configMap(`o${i}`), "Step", "Reconcile");
    client.gate = undefined;
    blocked.open();
    await recorder.flush();

    assert.deepEqual(
      client.callsOf("create").map((c) => c.body.regarding?.name),
      ["o0", "o4", "o5", "o6"],
    );
    assert.equal(recorder.stats.droppedQueueFull, 3);
    assert.deepEqual(
      logger.lines.map((l) => l.msg),
      ["event queue is full: dropping the oldest pending event writes until it drains"],
    );
  });

  it("forgets a dropped event, so its next occurrence is a new event rather than a lost series", async () => {
    const { client, recorder } = setup({ maxQueued: 1, rateLimit: false });
    const blocked = gate();
    client.gate = blocked.promise;
    recorder.normal(configMap("o0"), "Step", "Reconcile");
    await settle();
    recorder.normal(configMap("o1"), "Step", "Reconcile");
    recorder.normal(configMap("o2"), "Step", "Reconcile"); // drops o1
    client.gate = undefined;
    blocked.open();
    await recorder.flush();
    recorder.normal(configMap("o1"), "Step", "Reconcile");
    await recorder.flush();
    const o1 = client.events().filter((e) => e.regarding?.name === "o1");
    assert.equal(o1.length, 1);
    assert.equal(o1[0]?.series, undefined);
  });

  it("retries a transient failure with backoff until it succeeds", async () => {
    const { client, clock, logger, recorder } = setup({ retry: { baseDelayMs: 500, maxDelayMs: 10_000 } });
    client.faults.push(unavailable(), unavailable(), unavailable());
    const started = clock.now();
    recorder.normal(configMap("settings"), "Created", "Create");
    await driven(clock, recorder.flush(), 100);
    assert.equal(client.callsOf("create").length, 4);
    assert.equal(client.events().length, 1);
    assert.equal(clock.now() - started >= 500 + 1000 + 2000, true, "waits 0.5 s, 1 s, 2 s");
    assert.equal(recorder.stats.failed, 0);
    assert.equal(logger.lines.length, 0);
  });

  it("gives up after the last attempt, logging and counting it", async () => {
    const { client, clock, logger, recorder } = setup({ retry: { attempts: 3, baseDelayMs: 10 } });
    for (let i = 0; i < 5; i++) client.faults.push(unavailable());
    recorder.normal(configMap("settings"), "Created", "Create");
    await driven(clock, recorder.flush(), 10);
    assert.equal(client.calls.length, 3);
    assert.equal(recorder.stats.failed, 1);
    assert.match(logger.lines[0]?.msg ?? "", /giving up after 3 attempt/);
  });

  it("drops an event refused because its namespace is being deleted, counting it without a warning", async () => {
    const { client, logger, recorder } = setup();
    const message = "unable to create new content in namespace shop because it is being terminated";
    const path = "/apis/events.k8s.io/v1/namespaces/shop/events";
    client.faults.push(
      () => new ForbiddenError({ code: 403, reason: "Forbidden", message }, { method: "POST", path }),
    );
    recorder.normal(configMap("settings"), "Created", "Create");
    await recorder.flush();
    assert.equal(client.calls.length, 1);
    assert.equal(recorder.stats.failed, 1);
    assert.deepEqual(logger.lines, []);
  });

  it("does not retry an invalid Event", async () => {
    const { client, recorder } = setup();
    client.faults.push(() => apiError(InvalidError, 422, "Invalid"));
    recorder.normal(configMap("settings"), "Created", "Create");
    await recorder.flush();
    assert.equal(client.calls.length, 1);
    assert.equal(recorder.stats.failed, 1);
  });

  it("keeps the series count right when a series patch fails transiently", async () => {
    const { client, clock, recorder } = setup({ seriesUpdateIntervalMs: 0, retry: { baseDelayMs: 1000 } });
    recorder.normal(configMap("settings"), "Synced", "Sync");
    await recorder.flush();
    client.faults.push(unavailable());
    recorder.normal(configMap("settings"), "Synced", "Sync");
    await settle(); // the patch failed and waits to retry
    recorder.normal(configMap("settings"), "Synced", "Sync");
    await driven(clock, recorder.flush(), 250);
    assert.equal(client.events()[0]?.series?.count, 3);
    assert.equal(client.callsOf("create").length, 1);
  });

  it("close writes pending series updates, then ignores later calls", async () => {
    const { client, clock, recorder } = setup({ seriesUpdateIntervalMs: 60_000 });
    recorder.normal(configMap("settings"), "Synced", "Sync");
    await settle();
    recorder.normal(configMap("settings"), "Synced", "Sync");
    assert.equal(clock.pending, 1, "the series update waits for its interval");
    await recorder.close();
    assert.equal(clock.pending, 0);
    assert.equal(client.events()[0]?.series?.count, 2);
    recorder.normal(configMap("other"), "Synced", "Sync");
    await recorder.flush();
    assert.equal(client.events().length, 1);
  });

  it("close gives up what is still pending when its signal aborts, and resolves", async () => {
    const { client, logger, recorder } = setup();
    client.gate = new Promise(() => {}); // the apiserver never answers
    recorder.normal(configMap("a"), "Step", "Reconcile");
    recorder.normal(configMap("b"), "Step", "Reconcile");
    const controller = new AbortController();
    const closing = recorder.close(controller.signal);
    await settle();
    controller.abort();
    await closing;
    assert.equal(recorder.stats.failed, 2, "the write in flight and the queued one");
    assert.ok(logger.lines.some((l) => /recorder closed/.test(l.msg)));
  });

  it("flush rejects with the signal's reason when it aborts first", async () => {
    const { client, recorder } = setup();
    client.gate = new Promise(() => {});
    recorder.normal(configMap("a"), "Step", "Reconcile");
    const controller = new AbortController();
    const flushing = recorder.flush(controller.signal);
    controller.abort(new Error("deadline"));
    await assert.rejects(flushing, /deadline/);
    await recorder.close(AbortSignal.abort());
  });
});
