/** The benchmark's contenders run as deployed: the shipped kubeloop one with the Dockerfile's node flags. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commandOf, type LaunchOptions } from "../../../bench/peers/harness/contenders.ts";
import { OPERATOR_NODE_FLAGS } from "../../../src/generate/index.ts";

const opts: LaunchOptions = {
  kubeconfig: "/kubeconfig",
  env: {},
  logFile: "/dev/null",
  node: "/node",
  goBinary: "/widgets",
  built: { kubeloop: "/built/kubeloop.mjs", "kubeloop-unbundled": "/built/kubeloop-unbundled.mjs" },
};

describe("commandOf", () => {
  it("runs the shipped kubeloop contender and its variants with the generated Dockerfile's node flags", () => {
    for (const name of ["kubeloop", "kubeloop-own-writes-off"] as const)
      assert.deepEqual(commandOf(name, opts), {
        cmd: "/node",
        args: [...OPERATOR_NODE_FLAGS, "/built/kubeloop.mjs"],
      });
  });

  it("runs the other Node contenders on plain node", () => {
    assert.deepEqual(commandOf("kubeloop-unbundled", opts).args, ["/built/kubeloop-unbundled.mjs"]);
    assert.equal(commandOf("client-node", opts).args.length, 1);
  });
});
