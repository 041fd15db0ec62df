/**
 * `verify --explore` finds planted bugs and replays them: a status computed from the previous
 * status (found by comparing with a fresh start on the final spec) and a child name that is not
 * idempotent after a crash (found by a kill after the 3rd write); the well-behaved operator shows
 * no violation over the same budget. Seeds are fixed, so each test runs the same trials every time.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { formatExploreReport, runExploration } from "../../../src/testing/conformance/explore/index.ts";
import { exploreSpec } from "./fixtures/explore-spec.ts";
import type { ParcelVariant } from "./fixtures/spec.ts";
import { kitCluster } from "./support.ts";

const cluster = kitCluster();

/** Parses the replay command's --seed, --trial and --steps. */
function replayArgs(command: string) {
  const arg = (name: string) => command.match(new RegExp(`--${name} (\\S+)`))?.[1] ?? "";
  const steps = arg("steps");
  return {
    seed: Number(arg("seed")),
    trial: Number(arg("trial")),
    steps: steps === "none" ? [] : steps.split(",").map(Number),
  };
}

/**
 * Explores `variant` (seed 2, 3 trials), asserts that a violation was found, and replays it with
 * the arguments of its replay command; both reports go to the test's diagnostics.
 */
async function findAndReplay(t: TestContext, variant: ParcelVariant) {
  const report = await runExploration(exploreSpec(variant), {
    cluster: cluster(),
    seed: 2,
    trials: 3,
    specPath: "explore-spec.ts",
  });
  t.diagnostic(formatExploreReport(report));
  const finding = report.finding;
  assert.ok(finding, "a violation was found");
  const replay = await runExploration(exploreSpec(variant), {
    cluster: cluster(),
    ...replayArgs(finding.replay),
  });
  t.diagnostic(formatExploreReport(replay));
  return { report, finding, replay };
}

test("a status counted from the previous status is found (history-independent), shrunk and replayed", {
  timeout: 900_000,
}, async (t) => {
  const { report, finding, replay } = await findAndReplay(t, "counted-changes");
  const violation = finding.shrunk.violation;
  assert.equal(violation?.oracle, "history-independent");
  assert.match(violation?.seen ?? "", /Parcel\/signed status: changes: expected 1, seen [2-9]/);
  // One accepted spec change is enough: the shrunk sequence is a single step.
  assert.equal(finding.shrunk.plan.steps.length, 1);
  assert.ok(finding.shrinkRuns > 0);
  assert.match(
    finding.replay,
    /^kubeloop verify --explore --spec explore-spec\.ts --seed 2 --trial \d+ --steps \d+$/,
  );
  assert.match(formatExploreReport(report), /replay: kubeloop verify --explore/);
  assert.equal(replay.trials.length, 1);
  assert.equal(replay.finding?.shrunk.violation?.oracle, "history-independent");
});

test("a label name not recorded before a crash is found by a kill after the 3rd write, and replayed", {
  timeout: 900_000,
}, async (t) => {
  // Seed 2: trial 2 kills at the creation after write 3 (finalizer, receipt, label; status next).
  // Trials 0 and 1 kill after writes 1 and 2, before the label exists: no violation yet.
  const { finding, replay } = await findAndReplay(t, "unrecorded-label-name");
  assert.equal(finding.shrunk.violation?.oracle, "history-independent");
  assert.match(finding.shrunk.violation?.seen ?? "", /ConfigMap\/signed-label-2 is an extra output/);
  assert.ok(
    finding.shrunk.log.some((line) => /operator killed after write \d, restarted/.test(line)),
    "the shrunk trial still kills the operator mid-reconcile",
  );
  assert.ok(
    finding.shrunk.violation?.requests.some((r) => r.method === "POST" && /\/configmaps\?/.test(r.path)),
    "the label creations are among the requests involved",
  );
  assert.match(replay.finding?.shrunk.violation?.seen ?? "", /ConfigMap\/signed-label-2 is an extra output/);
});

test("the well-behaved Parcel operator shows no violation over the same budget", {
  timeout: 900_000,
}, async (t) => {
  const report = await runExploration(exploreSpec("parcels"), { cluster: cluster(), seed: 2, trials: 3 });
  t.diagnostic(formatExploreReport(report));
  assert.equal(report.finding, undefined);
  assert.equal(report.trials.length, 3);
  assert.ok(report.ok);
  assert.ok(
    report.trials.some((trial) => trial.log.some((line) => /killed after write/.test(line))),
    "at least one kill landed mid-reconcile",
  );
  assert.ok(
    report.trials.some((trial) => trial.log.some((line) => /refused/.test(line))),
    "at least one invalid value was refused by the apiserver",
  );
});
