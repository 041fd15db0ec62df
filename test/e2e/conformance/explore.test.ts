/**
 * `verify --explore` finds planted bugs and replays them: a status computed from the previous
 * status (found by comparing with a fresh start on the final spec), a child name that is not
 * idempotent after a crash (found by a kill after the 3rd write), a reconcile failure the object
 * never shows (found by the failure-shown oracle), a child looked up in a stale cache and
 * created twice (found by a restart on a stale view) and a condition not reset when its cause goes
 * (found by comparing with a fresh start), a finalizer cleanup that is not idempotent (found by a kill
 * during a deletion) and a missing watch on an output (found by the output deleted by another hand
 * at each trial's end); the well-behaved operator shows no violation
 * over the same budget, under all three perturbation classes. Seeds are fixed, so each test runs the same trials every time. Each replay
 * runs the command's own arguments on the spec file the command names, loaded as the CLI loads it.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { formatExploreReport, runExploration } from "../../../src/testing/conformance/explore/index.ts";
import { loadConformanceSpec } from "../../../src/testing/conformance/index.ts";
import { exploreSpec } from "./fixtures/explore-spec.ts";
import type { ParcelVariant } from "./fixtures/spec.ts";
import { kitCluster } from "./support.ts";

const cluster = kitCluster();

/** Parses the replay command's --spec, --seed, --trial and --steps. */
function replayArgs(command: string) {
  const arg = (name: string) => command.match(new RegExp(`--${name} (\\S+)`))?.[1] ?? "";
  const steps = arg("steps");
  return {
    spec: arg("spec"),
    seed: Number(arg("seed")),
    trial: Number(arg("trial")),
    steps: steps === "none" ? [] : steps.split(",").map(Number),
  };
}

/** The variants with a spec module of their own, for their replay commands. */
type FlawedVariant = Extract<
  ParcelVariant,
  | "counted-changes"
  | "unrecorded-label-name"
  | "unreported-failure"
  | "stale-label-lookup"
  | "sticky-sender-warning"
  | "strict-cleanup"
  | "unwatched-outputs"
>;

/** The spec module of a flawed variant (`fixtures/explore/<variant>.ts`). */
const specFile = (variant: FlawedVariant) =>
  fileURLToPath(new URL(`./fixtures/explore/${variant}.ts`, import.meta.url));

/**
 * Explores `variant` (seed 2, 3 trials and the default budget unless told), asserts that a violation was found, and
 * replays it by its replay command: the spec file it names, its seed, trial and steps; both
 * reports go to the test's diagnostics.
 */
async function findAndReplay(
  t: TestContext,
  variant: FlawedVariant,
  { seed = 2, trials = 3, budgetMs }: { seed?: number; trials?: number; budgetMs?: number } = {},
) {
  const report = await runExploration(exploreSpec(variant), {
    cluster: cluster(),
    seed,
    trials,
    budgetMs,
    specPath: specFile(variant),
  });
  t.diagnostic(formatExploreReport(report));
  const finding = report.finding;
  assert.ok(finding, "a violation was found");
  const { spec, ...args } = replayArgs(finding.replay);
  // The test runs from the repository root, as `kubeloop verify` from a project's: the path from there.
  assert.equal(spec, `test/e2e/conformance/fixtures/explore/${variant}.ts`);
  const replay = await runExploration(await loadConformanceSpec(spec), { cluster: cluster(), ...args });
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
    /^kubeloop verify --explore --spec test\/e2e\/conformance\/fixtures\/explore\/counted-changes\.ts --seed 2 --trial \d+ --steps \d+$/,
  );
  assert.match(formatExploreReport(report), /replay: kubeloop verify --explore/);
  assert.equal(replay.trials.length, 1);
  assert.equal(replay.finding?.shrunk.violation?.oracle, "history-independent");
});

test("a label name not recorded before a crash is found by a kill after the 3rd write, and replayed", {
  timeout: 900_000,
}, async (t) => {
  // Seed 3: trial 2 kills at the creation after write 3 (finalizer, receipt, label; status next).
  // Trial 0 leaves steps 2–3 unobserved, trial 1 kills after step 4's 2nd write: no violation yet.
  const { finding, replay } = await findAndReplay(t, "unrecorded-label-name", { seed: 3 });
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

test("a reconcile failure the object never shows is found (failure-shown) and replayed", {
  timeout: 900_000,
}, async (t) => {
  // Seed 5, trial 0: step 2 sets spec.message to its maximum length (200), past what the variant's
  // courier takes (100); the reconcile fails terminally after writing Ready=True. A budget spent at
  // once: the first trial still runs, and finds it, but nothing is shrunk — the tests above prove
  // shrinking, which would cost this one 4 more trials (50 s at load average 15, 2026-11-28).
  const { finding, replay } = await findAndReplay(t, "unreported-failure", {
    seed: 5,
    trials: 1,
    budgetMs: 0,
  });
  const violation = finding.shrunk.violation;
  assert.equal(violation?.oracle, "failure-shown");
  assert.equal(
    finding.original.at,
    'after step 2 (spec.message = "exploreddddddddddddddddddddddddddddd... (maxLength))',
  );
  assert.match(
    violation?.seen ?? "",
    /^Parcel\/signed: its last (\d+ )?reconciles? failed \(the courier takes labels of at most 100 characters, not 200\), yet its conditions say nothing of it: .*Ready=True/,
  );
  assert.equal(finding.shrinkRuns, 0);
  assert.match(finding.replay, / --seed 5 --trial 0 --steps 0,1,2,3$/);
  assert.equal(replay.trials.length, 1);
  assert.equal(replay.finding?.shrunk.violation?.oracle, "failure-shown");
  assert.match(replay.finding?.shrunk.violation?.seen ?? "", /not 200\), yet its conditions say nothing/);
});

test("a child looked up in a stale cache and created twice is found by a restart on a stale view, and replayed", {
  timeout: 900_000,
}, async (t) => {
  // Seed 13, trial 0: once the creation's reconcile made the label, the operator restarts on a view
  // of ConfigMaps from before the creation, finds no label and makes a second (one per reconcile
  // while the view is held). Neither the unperturbed operator (read-your-own-writes) nor a kill (a
  // restart lists afresh) shows it. Not shrunk (`budgetMs: 0`), to save CI time (a trial takes
  // 30 s): shrinking drops all four steps in one run (the bug needs none), and the unit tests show
  // that a shrunk plan keeps its stale view with its step.
  const { finding, replay } = await findAndReplay(t, "stale-label-lookup", {
    seed: 13,
    trials: 1,
    budgetMs: 0,
  });
  const violation = finding.shrunk.violation;
  assert.equal(violation?.oracle, "history-independent");
  assert.match(violation?.seen ?? "", /ConfigMap\/signed-label-<generated name> #2 is an extra output/);
  assert.deepEqual(finding.original.plan.perturbation, { kind: "stale", at: 0, resource: "configmaps" });
  assert.ok(
    finding.original.log.some((line) =>
      /^creation: .*; operator restarted on a view of configmaps as of resourceVersion \d+/.test(line),
    ),
    "the trial restarted the operator on a stale view after the creation",
  );
  assert.match(finding.replay, / --seed 13 --trial 0 --steps 0,1,2,3$/);
  assert.equal(replay.trials.length, 1);
  assert.match(
    replay.finding?.shrunk.violation?.seen ?? "",
    /signed-label-<generated name> #2 is an extra output/,
  );
});

test("a condition not reset when its cause goes is found (history-independent) and replayed", {
  timeout: 900_000,
}, async (t) => {
  // Seed 3, trial 0: step 1 points spec.senderRef at no ConfigMap (SenderMissing=True), step 3
  // removes it, within a pair of steps left unobserved (2–3); the warning stays, where a fresh
  // start on the final spec has none. Not shrunk (`budgetMs: 0`), to save CI time: the tests above
  // prove shrinking.
  const { finding, replay } = await findAndReplay(t, "sticky-sender-warning", {
    seed: 3,
    trials: 1,
    budgetMs: 0,
  });
  const violation = finding.shrunk.violation;
  assert.equal(violation?.oracle, "history-independent");
  assert.match(
    violation?.seen ?? "",
    /^Parcel\/signed status: conditions: .*seen .*"status":"True","type":"SenderMissing"/,
  );
  assert.deepEqual(finding.original.plan.perturbation, { kind: "unobserved", at: 2 });
  assert.ok(
    finding.original.log.some((line) =>
      /events of steps 2–3 unobserved, the operator listed again/.test(line),
    ),
    "steps 2 and 3 ran back to back, unobserved",
  );
  assert.match(finding.replay, / --seed 3 --trial 0 --steps 0,1,2,3$/);
  assert.equal(replay.trials.length, 1);
  assert.match(replay.finding?.shrunk.violation?.seen ?? "", /"status":"True","type":"SenderMissing"/);
});

test("a finalizer cleanup that is not idempotent is found by a kill during a deletion, and replayed", {
  timeout: 900_000,
}, async (t) => {
  // Seed 203, trial 0: step 1 deletes and recreates the Parcel; the operator is killed after the
  // deletion's first write (the receipt's DELETE) and, restarted, runs the cleanup again, which
  // takes the receipt already gone for an error on every retry: the Parcel is never gone. Not
  // shrunk (`budgetMs: 0`), to save CI time: the tests above prove shrinking.
  const { finding, replay } = await findAndReplay(t, "strict-cleanup", { seed: 203, trials: 1, budgetMs: 0 });
  const violation = finding.shrunk.violation;
  assert.equal(violation?.oracle, "converges");
  assert.match(violation?.seen ?? "", /still there \(a finalizer not removed\?\)/);
  assert.deepEqual(finding.original.plan.perturbation, { kind: "kill", at: 1, k: 1 });
  assert.ok(
    violation?.requests.some((r) => r.method === "DELETE" && /\/secrets\/signed-receipt/.test(r.path)),
    "the receipt's deletion is among the requests involved",
  );
  assert.match(finding.replay, / --seed 203 --trial 0 --steps 0,1,2,3$/);
  assert.equal(replay.trials.length, 1);
  assert.equal(replay.finding?.shrunk.violation?.oracle, "converges");
});

test("a missing watch on an output is found by deleting the output by another hand, and replayed", {
  timeout: 900_000,
}, async (t) => {
  // Seed 2, trial 0: whatever the steps, every trial ends by deleting the Parcel's label as another
  // hand might; an operator that does not watch its labels never makes it again. Not shrunk
  // (`budgetMs: 0`), to save CI time: the tests above prove shrinking.
  const { finding, replay } = await findAndReplay(t, "unwatched-outputs", {
    seed: 2,
    trials: 1,
    budgetMs: 0,
  });
  const violation = finding.shrunk.violation;
  assert.equal(violation?.oracle, "converges");
  assert.equal(finding.original.at, "after deleting an output by another hand");
  assert.match(
    violation?.expected ?? "",
    /^ConfigMap\/signed-label, deleted by another hand, made again within 20 s$/,
  );
  assert.equal(violation?.seen, "never made again (is its kind watched?)");
  assert.equal(replay.trials.length, 1);
  assert.equal(replay.finding?.shrunk.violation?.oracle, "converges");
});

test("the well-behaved Parcel operator shows no violation over the same budget", {
  timeout: 900_000,
}, async (t) => {
  // Seed 5: trial 0 restarts on a stale view of Parcels, trial 1 kills after a write, trial 2
  // leaves steps 3–4 unobserved: the three classes, none a false violation.
  const report = await runExploration(exploreSpec("parcels"), { cluster: cluster(), seed: 5, trials: 3 });
  t.diagnostic(formatExploreReport(report));
  assert.equal(report.finding, undefined);
  assert.equal(report.trials.length, 3);
  assert.ok(report.ok);
  assert.deepEqual(
    report.trials.map((trial) => trial.plan.perturbation?.kind),
    ["stale", "kill", "unobserved"],
  );
  assert.ok(
    report.trials.some((trial) => trial.log.some((line) => /killed after write/.test(line))),
    "at least one kill landed mid-reconcile",
  );
  assert.ok(
    report.trials.some((trial) =>
      trial.log.some((line) => /restarted on a view of parcels as of/.test(line)),
    ),
    "a restart on a stale view",
  );
  assert.ok(
    report.trials.some((trial) =>
      trial.log.some((line) => /events of steps 3–4 unobserved, the operator listed again/.test(line)),
    ),
    "two changes left unobserved, then listed",
  );
  assert.ok(
    report.trials.some((trial) => trial.log.some((line) => /refused/.test(line))),
    "at least one invalid value was refused by the apiserver",
  );
  assert.ok(
    report.trials.every((trial) =>
      trial.log.some((line) => /^ConfigMap\/signed-label deleted by another hand: made again in/.test(line)),
    ),
    "every trial's deleted label was made again",
  );
});
