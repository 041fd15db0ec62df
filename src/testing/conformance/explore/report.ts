/**
 * The report of an exploration as text: one line per trial (its plan, result and time), then the
 * violation in full — the oracle, where it showed, what was expected and seen, the shrunk sequence
 * with what each step did, the requests involved — and the command that replays it.
 */
import { describeRequest } from "../internal/requests.ts";
import { seconds } from "../internal/steps.ts";
import { describeStep } from "./generate.ts";
import type { Perturbation, TrialPlan } from "./plan.ts";
import type { ExploreReport, Finding } from "./run.ts";

/** The perturbation in a few words: `kill after write 2 of the reconcile of step 1`, ... */
export function describePerturbation(p: Perturbation): string {
  const where = p.at === 0 ? "the creation" : `step ${p.at}`;
  switch (p.kind) {
    case "kill":
      return `kill after write ${p.k} of the reconcile of ${where}`;
    case "stale":
      return `restart on a stale view of ${p.resource} from before ${where}`;
    case "unobserved":
      return `events of steps ${p.at}–${p.at + 1} unobserved`;
  }
}

/** The plan in one line: its steps and perturbation. */
export function describePlan(plan: TrialPlan): string {
  const steps = plan.steps.map((s, i) => `${i + 1}. ${describeStep(s)}`).join("; ") || "no step";
  return plan.perturbation ? `${steps}; ${describePerturbation(plan.perturbation)}` : steps;
}

function formatFinding(finding: Finding): string[] {
  const { shrunk } = finding;
  const v = shrunk.violation ?? finding.original.violation;
  if (!v) return [];
  const dropped = finding.original.plan.steps.length - shrunk.plan.steps.length;
  return [
    `✗ ${v.oracle} — trial ${shrunk.plan.trial} of seed ${shrunk.plan.seed}, ${shrunk.at ?? finding.original.at}`,
    `  expected: ${v.expected}`,
    `  seen:     ${v.seen}`,
    finding.shrinkRuns === 0
      ? "  sequence (not shrunk: replayed as given, or the budget was spent):"
      : `  sequence (shrunk from ${finding.original.plan.steps.length} to ${shrunk.plan.steps.length} steps in ${finding.shrinkRuns} runs${dropped ? "" : ", nothing could be dropped"}):`,
    ...shrunk.log.map((line) => `    ${line}`),
    ...(v.requests.length
      ? ["  requests involved:", ...v.requests.map((r) => `    ${describeRequest(r)}`)]
      : ["  requests involved: none (the operator sent no write and no request failed)"]),
    `  replay: ${finding.replay}`,
  ];
}

/** The whole report: a title, one line per trial, the violation, a verdict with the time per trial. */
export function formatExploreReport(report: ExploreReport): string {
  const trials = report.trials.map(
    (t) =>
      `  trial ${t.plan.trial}: ${t.violation ? `✗ ${t.violation.oracle}` : "✓"} ${seconds(t.wallMs)} — ${describePlan(t.plan)}`,
  );
  const per = report.trials.length
    ? seconds(report.trials.reduce((sum, t) => sum + t.wallMs, 0) / report.trials.length)
    : "–";
  const verdict = report.finding
    ? `a violation found (${report.trials.length} trials, ${per} per trial; ${seconds(report.wallMs)} in all)`
    : `no violation in ${report.trials.length} trials (${per} per trial; ${seconds(report.wallMs)} in all)`;
  return [
    `Exploration of ${report.operator} (seed ${report.seed})`,
    "",
    ...trials,
    ...(report.finding ? ["", ...formatFinding(report.finding)] : []),
    "",
    verdict,
  ].join("\n");
}
