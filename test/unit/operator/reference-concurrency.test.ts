/**
 * The reference operators reconcile several objects at once: with one worker per controller, the
 * MyProxy and LoadTest workers were busy every second for 6 s after an apiserver restart under
 * load (bench/restart.ts), and a child's readiness reached its parent's status 2-6 s late, queued.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import loadtestOperator from "../../../operators/loadtest/operator.ts";
import myproxyOperator from "../../../operators/myproxy/operator.ts";
import { InformerCache } from "../../../src/cache/index.ts";
import type { ControllerHost, ControllerOptions } from "../../../src/controller/index.ts";

/** Each controller's options, by name, as `setup` hands them to a host that runs nothing. */
async function optionsOf(setup: (host: ControllerHost) => unknown): Promise<Map<string, ControllerOptions>> {
  const never = () => Promise.reject(new Error("this cache never lists or watches"));
  const options = new Map<string, ControllerOptions>();
  const host: ControllerHost = {
    cache: new InformerCache({ listPage: never, watchStream: never }),
    addController: (spec) => options.set(spec.declaration.name, spec.options),
  };
  await setup(host);
  return options;
}

it("the MyProxy and LoadTest controllers run 4 reconciles at once", async () => {
  const myproxy = await optionsOf(myproxyOperator.setup);
  const loadtest = await optionsOf(loadtestOperator.setup);
  assert.equal(myproxy.get("myproxy")?.concurrency, 4);
  assert.equal(loadtest.get("loadtest")?.concurrency, 4);
});
