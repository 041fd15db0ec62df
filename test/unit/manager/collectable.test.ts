/**
 * A manager nobody references any more is garbage collected: nothing process-wide (signal
 * handlers, observers, timers) keeps it, its cache and its controllers alive once it has stopped.
 * The fleet creates and drops a manager per engaged cluster, so one kept alive is a leak.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { setImmediate } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { fakeManager } from "./support.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A weak reference to a manager without endpoints that ran and stopped. */
async function stoppedManager(): Promise<WeakRef<object>> {
  const { manager } = await fakeManager();
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  stop.abort();
  await running;
  return new WeakRef(manager);
}

it("lets a stopped manager without a metrics endpoint be garbage collected", async () => {
  const manager = await stoppedManager();
  await setImmediate(); // a WeakRef keeps its target until the current job ends
  gc();
  assert.equal(manager.deref(), undefined, "the manager is still referenced");
});
