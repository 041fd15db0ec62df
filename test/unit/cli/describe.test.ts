/** `kubeloop describe`'s flags: `--fleet-namespace` with a value, without one (the object's namespace), or absent. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type DescribeFlags, describeCommand, fleetNamespaceOf } from "../../../src/cli/describe.ts";

/** The namespace of the members' kubeconfig Secrets that `args` ask for, with `default` as the context's. */
function fleetNamespace(args: string[]): string | undefined {
  const command = describeCommand().action(() => {});
  command.parse(["configmap/settings", ...args], { from: "user" });
  return fleetNamespaceOf(command.opts<DescribeFlags>(), "default");
}

describe("kubeloop describe --fleet-namespace", () => {
  it("follows no member cluster without the flag", () => {
    assert.equal(fleetNamespace(["-n", "apps"]), undefined);
  });

  it("reads the kubeconfig Secrets of the namespace given", () => {
    assert.equal(fleetNamespace(["-n", "apps", "--fleet-namespace", "fleet"]), "fleet");
  });

  it("without a value, reads those of the object's namespace, or of the context's", () => {
    assert.equal(fleetNamespace(["--fleet-namespace", "-n", "apps"]), "apps");
    assert.equal(fleetNamespace(["--fleet-namespace"]), "default");
  });
});
