import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  nodeConditions,
  runnerLaunch,
  tsxLaunch,
} from "../../../src/testing/conformance/internal/runner-bundle.ts";

describe("the kit's operator processes: how they start", () => {
  it("resolve with the conditions of the kit's own process, in every spelling Node takes", () => {
    const flags = ["--conditions=kubeloop-source", "--import", "tsx", "-C", "dev", "--conditions", "edge"];
    assert.deepEqual(nodeConditions(flags), ["kubeloop-source", "dev", "edge"]);
    assert.deepEqual(nodeConditions(["--import", "tsx"]), []);
  });

  it("load the bundle, built once per operator module", async () => {
    let builds = 0;
    const bundler = async (operator: string) => {
      builds++;
      return `${operator}.bundle.mjs`;
    };
    const reports: string[] = [];
    const first = await runnerLaunch("/p/once.ts", (l) => reports.push(l), bundler);
    const again = await runnerLaunch("/p/once.ts", (l) => reports.push(l), bundler);
    assert.deepEqual(first, { script: "/p/once.ts.bundle.mjs", execArgv: [] });
    assert.equal(again, first);
    assert.equal(builds, 1);
    assert.deepEqual(reports, []);
  });

  it("fall back to the runner under tsx when the bundle cannot be built, saying why once", async () => {
    const reports: string[] = [];
    const failing = async () => {
      throw new Error("esbuild is not installed");
    };
    const launch = await runnerLaunch("/p/unbundled.ts", (l) => reports.push(l), failing);
    await runnerLaunch("/p/unbundled.ts", (l) => reports.push(l), failing);
    assert.deepEqual(launch, tsxLaunch());
    assert.equal(reports.length, 1);
    assert.match(reports[0] ?? "", /under tsx, not bundled .*esbuild is not installed/);
  });
});
