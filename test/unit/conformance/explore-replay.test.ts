/**
 * The replay command of a finding names a spec file it can load when pasted from the current
 * directory (the project root, where `kubeloop verify` runs): its path below that directory, or
 * its absolute path; a spec that came from no file (built in memory) or a path naming no file gets
 * a plain sentence instead of a command that cannot work.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, it } from "node:test";
import { replayCommand, type TrialPlan } from "../../../src/testing/conformance/explore/index.ts";

const plan: TrialPlan = { seed: 2, trial: 5, indices: [3, 1], steps: [], perturbation: undefined };

describe("replayCommand", () => {
  const project = mkdtempSync(join(tmpdir(), "kubeloop-replay-"));
  const elsewhere = mkdtempSync(join(tmpdir(), "kubeloop-replay-elsewhere-"));
  writeFileSync(join(project, "conformance.ts"), "export default {};\n");
  writeFileSync(join(elsewhere, "spec.ts"), "export default {};\n");
  after(() => {
    rmSync(project, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it("names a spec below the current directory by its path from there", () => {
    assert.equal(
      replayCommand(join(project, "conformance.ts"), plan, [0, 1], project),
      "kubeloop verify --explore --spec conformance.ts --seed 2 --trial 5 --steps 0,1",
    );
    assert.equal(
      replayCommand("./conformance.ts", plan, [], project),
      "kubeloop verify --explore --spec conformance.ts --seed 2 --trial 5 --steps none",
    );
  });

  it("names a spec outside the current directory by its absolute path", () => {
    assert.equal(
      replayCommand(relative(project, join(elsewhere, "spec.ts")), plan, [1], project),
      `kubeloop verify --explore --spec ${join(elsewhere, "spec.ts")} --seed 2 --trial 5 --steps 1`,
    );
  });

  it("prints no command for a spec path that names no file, and says so", () => {
    const line = replayCommand("explore-spec.ts", plan, [0], project);
    assert.doesNotMatch(line, /^kubeloop verify/);
    assert.match(line, /explore-spec\.ts names no file/);
    assert.match(line, /runExploration\(spec, \{ seed: 2, trial: 5, steps: \[0\] \}\)/);
  });

  it("prints no command for a spec that came from no file, and says so", () => {
    const line = replayCommand(undefined, plan, [0, 1], project);
    assert.doesNotMatch(line, /kubeloop verify/);
    assert.match(line, /the spec came from no file/);
    assert.match(line, /runExploration\(spec, \{ seed: 2, trial: 5, steps: \[0,1\] \}\)/);
  });
});
