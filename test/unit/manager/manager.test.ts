import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { type KubeObject, resourceType } from "../../../src/api/index.ts";
import {
  type ControllerOptions,
  controller,
  type ReconcileContext,
  ReconcileTimeoutError,
} from "../../../src/controller/index.ts";
import { hasCode } from "../../../src/errors/index.ts";
import { DuplicateControllerError, type Manager } from "../../../src/manager/index.ts";
import { flush } from "../client/support.ts";
import { fakeManager } from "./support.ts";

const Widget = resourceType<KubeObject>("example.com/v1", "Widget", "widgets", true);

describe("Manager as a controller host", () => {
  it("builds and keeps the controllers handed to it", async () => {
    const { manager } = await fakeManager();
    controller(manager)
      .for(Widget)
      .reconcile(async () => undefined);
    const [built] = manager.controllers;
    assert.equal(built?.name, "widget");
    assert.equal(built?.primary, Widget);
    assert.deepEqual(
      manager.cache.informers().map((i) => i.type),
      [Widget],
    );
  });

  it("rejects a second controller of the same name with a coded error", async () => {
    const { manager } = await fakeManager();
    const build = () =>
      controller(manager)
        .for(Widget)
        .reconcile(async () => undefined);
    build();
    assert.throws(
      build,
      (err) =>
        err instanceof DuplicateControllerError &&
        hasCode(err, "KL_DUPLICATE_CONTROLLER") &&
        /a controller named "widget" is already registered.*\.named\(\)/.test(err.message),
    );
    controller(manager)
      .for(Widget)
      .named("widget-2")
      .reconcile(async () => undefined);
    assert.deepEqual(
      manager.controllers.map((c) => c.name),
      ["widget", "widget-2"],
    );
  });
});

/**
 * Runs a Widget controller of `manager` whose reconciles never finish and ignore their signal,
 * with one reconcile in flight. Resolves with its signal, whether the controller stopped, and a
 * stop that begins shutdown.
 */
async function stuckReconcile(t: TestContext, manager: Manager, options: ControllerOptions = {}) {
  const contexts: ReconcileContext<KubeObject>[] = [];
  controller(manager)
    .for(Widget)
    .withOptions({ resyncPeriodMs: 0, ...options })
    .reconcile((ctx) => {
      contexts.push(ctx);
      return new Promise(() => {});
    });
  const [built] = manager.controllers;
  assert.ok(built);
  const stop = new AbortController();
  t.after(() => stop.abort());
  let stopped = false;
  void built.run(stop.signal).then(() => {
    stopped = true;
  });
  built.enqueue("ns/w1", "manual");
  await flush();
  assert.equal(contexts.length, 1, "one reconcile is in flight");
  return { signal: () => contexts[0]?.signal, stopped: () => stopped, stop: () => stop.abort() };
}

/** {@link stuckReconcile}, then shutdown begins. */
async function stoppingWithStuckReconcile(t: TestContext, manager: Manager, options: ControllerOptions = {}) {
  const run = await stuckReconcile(t, manager, options);
  run.stop();
  await flush();
  return run;
}

describe("Manager: graceful shutdown", () => {
  it("gives in-flight reconciles gracefulShutdownMs, then aborts them and stops without them", async (t) => {
    const { manager, clock } = await fakeManager({ gracefulShutdownMs: 2_000 });
    const run = await stoppingWithStuckReconcile(t, manager);
    clock.advance(1_999);
    await flush();
    assert.equal(run.stopped(), false, "waits within the grace period");
    assert.equal(run.signal()?.aborted, false);
    clock.advance(1);
    await flush();
    assert.equal(run.signal()?.aborted, true, "ctx.signal aborts when the grace period is over");
    assert.match(String(run.signal()?.reason), /grace period/);
    assert.equal(run.stopped(), true, "stops although the reconcile ignores its signal");
  });

  it("lets a controller's own gracefulShutdownMs win over the manager's", async (t) => {
    const { manager, clock } = await fakeManager({ gracefulShutdownMs: 60_000 });
    const run = await stoppingWithStuckReconcile(t, manager, { gracefulShutdownMs: 500 });
    clock.advance(500);
    await flush();
    assert.equal(run.stopped(), true);
  });

  it("waits 30 s by default", async (t) => {
    const { manager, clock } = await fakeManager();
    const run = await stoppingWithStuckReconcile(t, manager);
    clock.advance(29_999);
    await flush();
    assert.equal(run.stopped(), false);
    clock.advance(1);
    await flush();
    assert.equal(run.stopped(), true);
  });
});

describe("Manager: reconciliationTimeoutMs", () => {
  it("is the default of every controller's reconciliationTimeoutMs", async (t) => {
    const { manager, clock } = await fakeManager({ reconciliationTimeoutMs: 5_000 });
    const { signal } = await stuckReconcile(t, manager);
    clock.advance(4_999);
    assert.equal(signal()?.aborted, false);
    clock.advance(1);
    assert.ok(signal()?.reason instanceof ReconcileTimeoutError);
  });

  it("lets a controller's own reconciliationTimeoutMs win, and is off by default", async (t) => {
    const own = await fakeManager({ reconciliationTimeoutMs: 5_000 });
    const ownRun = await stuckReconcile(t, own.manager, { reconciliationTimeoutMs: 500 });
    own.clock.advance(500);
    assert.ok(ownRun.signal()?.reason instanceof ReconcileTimeoutError);
    const none = await fakeManager();
    const noneRun = await stuckReconcile(t, none.manager);
    none.clock.advance(24 * 3600_000);
    assert.equal(noneRun.signal()?.aborted, false);
  });
});
