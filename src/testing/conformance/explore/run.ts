/**
 * `verify --explore`: trials on one session until the trial count or the time budget is reached,
 * each planned from the run's seed; the first violation is shrunk (delta debugging over its steps)
 * and reported with the command that replays it.
 */
import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { KubeObject } from "../../../api/index.ts";
import { type AnyKind, crdFor, type JSONSchemaProps } from "../../../schema/index.ts";
import { ConformanceError } from "../errors.ts";
import { now } from "../internal/poll.ts";
import { type ConformanceSession, openSession, type SessionOptions } from "../session.ts";
import type { ConformanceSpec } from "../spec.ts";
import { candidateSteps, type Step } from "./generate.ts";
import { targetFixture } from "./oracles.ts";
import { keepSteps, planTrial, replayPlan, type TrialPlan } from "./plan.ts";
import { shrink } from "./shrink.ts";
import { runTrial, type TrialResult } from "./trial.ts";

/** Options of {@link runExploration}. */
export interface ExploreOptions extends SessionOptions {
  /** How many trials at most. Default 20. */
  trials?: number;
  /** The run's seed. Default 1. */
  seed?: number;
  /** Stop starting trials (and shrinking) after this long, in milliseconds. Default 10 minutes. */
  budgetMs?: number;
  /** Replay this one trial only (with `steps`, only those of its generated steps). */
  trial?: number;
  /** With `trial`: the positions of the trial's generated steps to keep (a shrunk sequence). */
  steps?: number[];
  /**
   * The file the spec was loaded from, relative to the current directory, for the replay command.
   * Without it (a spec built in code) the report prints how to replay the trial in code instead.
   */
  specPath?: string;
}

/** A violation found, shrunk, with its replay command. */
export interface Finding {
  /** The trial as it first failed. */
  original: TrialResult;
  /** The smallest failing trial the shrinker found (the original when nothing could be dropped). */
  shrunk: TrialResult;
  /** Positions of the original steps the shrunk trial keeps. */
  positions: number[];
  /** Trials the shrinker ran. */
  shrinkRuns: number;
  /**
   * One command that replays the shrunk trial, or, when the spec came from no file, a sentence
   * saying so with the options that replay it in code.
   */
  replay: string;
}

/** The result of an exploration. */
export interface ExploreReport {
  operator: string;
  seed: number;
  trials: TrialResult[];
  finding?: Finding;
  ok: boolean;
  wallMs: number;
}

/** The spec's schema of the kind of `obj`, from the CRD kubeloop generates for it. */
export function specSchema(kinds: readonly AnyKind[], obj: KubeObject): JSONSchemaProps {
  const [group, version] = (obj.apiVersion ?? "").split("/");
  const kind = kinds.find((k) => k.kind === obj.kind && k.group === group);
  const versions = kind ? crdFor(kind).spec.versions : [];
  const schema = versions.find((v) => v.name === version)?.schema?.openAPIV3Schema;
  const spec = schema?.properties?.spec;
  if (!spec) {
    throw new ConformanceError(
      `${obj.kind} (${obj.apiVersion}) has no spec schema the operator defines: --explore generates changes from the primary kind's CRD`,
    );
  }
  return spec as JSONSchemaProps;
}

/** The candidate steps of the session's target primary. */
function candidatesOf(session: ConformanceSession): Step[] {
  const target = targetFixture(session, "explore");
  return candidateSteps(
    specSchema(session.subject.operator.kinds, target),
    (target as { spec?: unknown }).spec,
  );
}

/**
 * The resources the operator was seen to watch so far, sorted: what a stale-state perturbation
 * picks from. Taken once the session is open (the operator started and its caches synced), the
 * same on a replay.
 */
function watchedResources(session: ConformanceSession): string[] {
  const watched = session
    .requestsSince(0)
    .flatMap((r) => (r.verb === "watch" && r.resource ? [r.resource] : []));
  return [...new Set(watched)].sort();
}

/** How to replay `plan` in code: the options of {@link runExploration} that run it again. */
function replayOptions(plan: TrialPlan, positions: number[]): string {
  return `runExploration(spec, { seed: ${plan.seed}, trial: ${plan.trial}, steps: [${positions.join(",")}] })`;
}

/**
 * The command that replays `plan` (its kept steps, at their generated positions), naming the spec
 * file `specPath` (relative to `cwd`) as it loads from `cwd`: by its path from there when below it,
 * else by its absolute path. When the spec came from no file (`specPath` undefined) or `specPath`
 * names none, a sentence saying so and how to replay it in code instead: a command naming a file
 * that does not load replays nothing.
 */
export function replayCommand(
  specPath: string | undefined,
  plan: TrialPlan,
  positions: number[],
  cwd: string = process.cwd(),
): string {
  if (specPath === undefined)
    return `no command: the spec came from no file (no specPath given); replay with ${replayOptions(plan, positions)}`;
  const file = resolve(cwd, specPath);
  if (!existsSync(file))
    return `no command: the spec path ${specPath} names no file in ${cwd}; replay with ${replayOptions(plan, positions)}`;
  const below = relative(cwd, file);
  const spec = below === ".." || below.startsWith(`..${sep}`) || isAbsolute(below) ? file : below;
  return `kubeloop verify --explore --spec ${spec} --seed ${plan.seed} --trial ${plan.trial} --steps ${positions.join(",") || "none"}`;
}

/**
 * Shrinks a failing trial: drops steps while a trial of the rest still fails the same oracle; not
 * at all once past the budget's deadline.
 */
async function shrinkTrial(
  session: ConformanceSession,
  failed: TrialResult,
  deadline: number,
): Promise<{ result: TrialResult; positions: number[]; runs: number }> {
  let best = failed;
  const oracle = failed.violation?.oracle;
  const positions = failed.plan.steps.map((_, i) => i);
  if (now() > deadline) return { result: failed, positions, runs: 0 };
  const found = await shrink(
    positions,
    async (kept) => {
      if (now() > deadline) return false;
      const result = await runTrial(session, keepSteps(failed.plan, kept));
      session.log(`shrink: steps [${kept.join(",")}] → ${result.violation?.oracle ?? "passes"}`);
      if (result.violation?.oracle !== oracle) return false;
      best = result; // ddmin accepts only ever shorter sequences: the last failure is the smallest
      return true;
    },
    12,
  );
  return { result: best, positions: found.items, runs: found.runs };
}

/**
 * Explores the operator's state space: opens a session (a local control plane unless one is given),
 * runs trials planned from the seed until `trials` or the budget is reached or an oracle fails,
 * shrinks the failing trial and reports it with its replay command.
 */
export async function runExploration(
  spec: ConformanceSpec,
  options: ExploreOptions = {},
): Promise<ExploreReport> {
  const start = now();
  const seed = options.seed ?? 1;
  const deadline = start + (options.budgetMs ?? 600_000);
  const session = await openSession(spec, options);
  const trials: TrialResult[] = [];
  let finding: Finding | undefined;
  try {
    const candidates = candidatesOf(session);
    const watched = watchedResources(session);
    session.log(`watched resources (a stale view picks one): ${watched.join(", ") || "none"}`);
    const plans =
      options.trial === undefined
        ? Array.from(
            { length: options.trials ?? 20 },
            (_, t) => () => planTrial(candidates, seed, t, watched),
          )
        : [() => replayPlan(candidates, seed, options.trial ?? 0, options.steps, watched)];
    for (const plan of plans) {
      if (trials.length > 0 && now() > deadline) break;
      const result = await runTrial(session, plan());
      trials.push(result);
      session.log(
        `trial ${result.plan.trial}: ${result.violation ? `✗ ${result.violation.oracle}` : "✓"} (${(result.wallMs / 1000).toFixed(1)} s)`,
      );
      if (!result.violation) continue;
      const shrunk = options.trial === undefined ? await shrinkTrial(session, result, deadline) : undefined;
      const positions = shrunk?.positions ?? options.steps ?? result.plan.steps.map((_, i) => i);
      finding = {
        original: result,
        shrunk: shrunk?.result ?? result,
        positions,
        shrinkRuns: shrunk?.runs ?? 0,
        replay: replayCommand(options.specPath, result.plan, positions),
      };
      break;
    }
  } finally {
    await session.close();
  }
  return {
    operator: session.subject.operator.name,
    seed,
    trials,
    finding,
    ok: !finding,
    wallMs: now() - start,
  };
}
