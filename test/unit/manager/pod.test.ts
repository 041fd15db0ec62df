/**
 * The replica's pod from the downward API: its identity, and the owner of its membership Lease
 * only when it runs in the Lease's namespace (a namespaced owner elsewhere reads as gone to the
 * garbage collector, which would delete the Lease at once).
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { podIdentity, podIn } from "../../../src/manager/pod.ts";

function setEnv(env: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

/** Sets `env` for the test, restoring what was there after it. */
function withEnv(t: TestContext, env: Record<string, string | undefined>): void {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  t.after(() => setEnv(saved));
  setEnv(env);
}

describe("the replica's pod", () => {
  it("is the membership Lease's owner only in the Lease's namespace", (t) => {
    withEnv(t, { POD_NAME: "widgets-7d9c-x2x7q", POD_UID: "0b8e5d6e", POD_NAMESPACE: "widgets-system" });
    assert.equal(podIdentity(), "widgets-7d9c-x2x7q_0b8e5d6e");
    assert.deepEqual(podIn("widgets-system"), { name: "widgets-7d9c-x2x7q", uid: "0b8e5d6e" });
    assert.equal(podIn("default"), undefined);
  });

  it("is unknown outside a pod", (t) => {
    withEnv(t, { POD_NAME: undefined, POD_UID: undefined, POD_NAMESPACE: "widgets-system" });
    assert.equal(podIdentity(), undefined);
    assert.equal(podIn("widgets-system"), undefined);
  });
});
