/**
 * `verify --explore` on the reference operators, as CI runs it on a small budget (issue 35 item
 * 4): their own conformance specs, seed 2, two trials each, on one control plane with pods (the
 * LoadTest's workers run as kwok's pods). Unmodified, each shows no violation; each trial names the
 * perturbation it applied, so a trial that perturbed nothing would fail here too.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { formatExploreReport, runExploration } from "../../../src/testing/conformance/explore/index.ts";
import { loadConformanceSpec } from "../../../src/testing/conformance/index.ts";
import { kitCluster } from "./support.ts";

const cluster = kitCluster({ pods: true });

/** Explores the reference operator `name` from its own spec and asserts that no trial found a violation. */
async function exploresClean(t: TestContext, name: "loadtest" | "myproxy"): Promise<void> {
  const spec = fileURLToPath(new URL(`../../../operators/${name}/test/conformance.ts`, import.meta.url));
  const report = await runExploration(await loadConformanceSpec(spec), {
    cluster: cluster(),
    seed: 2,
    trials: 2,
  });
  t.diagnostic(formatExploreReport(report));
  assert.equal(report.finding, undefined, formatExploreReport(report));
  assert.ok(report.ok);
  assert.equal(report.trials.length, 2);
  for (const trial of report.trials) {
    assert.ok(trial.plan.perturbation, `trial ${trial.plan.trial} applies a perturbation`);
    assert.equal(trial.violation, undefined);
  }
}

test("the LoadTest operator shows no violation over two explored trials", { timeout: 600_000 }, (t) =>
  exploresClean(t, "loadtest"),
);

test("the MyProxy operator shows no violation over two explored trials", { timeout: 600_000 }, (t) =>
  exploresClean(t, "myproxy"),
);
