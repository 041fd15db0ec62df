/**
 * 12. Generation honesty: while the kit watches a primary object's status, its spec changes and
 * the proxy holds the operator's writes to its outputs for a while. Neither
 * `status.observedGeneration` nor any condition's `observedGeneration` may claim the new generation
 * before the operator's first successful write of an output after the change — nor ever claim a
 * generation the object does not have. (A change that alters no output cannot be judged; the
 * summary says so.)
 */
import type { KubeObject } from "../../../api/index.ts";
import { watch } from "../../../watch/index.ts";
import { mutatingVerbs } from "../../proxy/index.ts";
import type { ConformanceCheck } from "../check.ts";
import { now, poll } from "../internal/poll.ts";
import { concerns, isReconcileWrite, succeeded } from "../internal/requests.ts";
import { firstPrimary, mutatePrimary, prepare, seconds } from "../internal/steps.ts";
import { involved, keyOf, restoreProblems, settle, snapshot, typeOf } from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import { type ConformanceSession, hold } from "../session.ts";

interface Sample {
  at: number;
  object: KubeObject;
}

/** The highest generation the object's status claims to have acted on. */
function claimed(obj: KubeObject): number | undefined {
  const status = (obj as { status?: { observedGeneration?: unknown; conditions?: unknown } }).status;
  const conditions = Array.isArray(status?.conditions)
    ? (status.conditions as { observedGeneration?: unknown }[])
    : [];
  const values = [status?.observedGeneration, ...conditions.map((c) => c.observedGeneration)].filter(
    (v): v is number => typeof v === "number",
  );
  return values.length ? Math.max(...values) : undefined;
}

/** Records every version of `target` the apiserver sends, with its arrival time, until stopped. */
async function sampleStatus(session: ConformanceSession, target: KubeObject) {
  const samples: Sample[] = [];
  const stop = new AbortController();
  const running = (async () => {
    const events = watch(session.client, await typeOf(session, target), {
      namespace: target.metadata.namespace,
      fieldSelector: `metadata.name=${target.metadata.name}`,
      initialState: "list",
      signal: stop.signal,
    });
    for await (const event of events) {
      if (event.type === "apply" || event.type === "initApply")
        samples.push({ at: now(), object: event.object });
    }
  })().catch(() => {});
  await poll(() => (samples.length > 0 ? true : undefined), 30_000, 50);
  return {
    samples,
    async stop() {
      stop.abort();
      await running;
    },
  };
}

/** When the operator's first successful output write after `marker` completed. */
function firstActed(session: ConformanceSession, namespace: string, marker: number): number | undefined {
  const plurals = session.subject.outputs.map((t) => t.plural);
  const acted = session
    .requestsSince(marker)
    .filter(
      (r) =>
        isReconcileWrite(r) &&
        concerns(r, namespace) &&
        plurals.includes(r.resource?.split("/")[0] ?? "") &&
        succeeded(r) &&
        r.durationMs !== undefined,
    )
    .map((r) => r.startedAt + (r.durationMs ?? 0));
  return acted.length ? Math.min(...acted) : undefined;
}

export const generationHonesty: ConformanceCheck = {
  name: "generation-honesty",
  title: "observedGeneration never runs ahead of the work",
  async run(session) {
    if (!session.subject.spec.mutate) {
      return { skipped: true, summary: "no `mutate` in the spec: the kit cannot change a spec" };
    }
    const { namespace, snap } = await prepare(session, "generation");
    const target = await firstPrimary(session, namespace);
    const sampler = await sampleStatus(session, target);
    const marker = session.marker();
    const held = session.proxy.inject(
      { verb: [...mutatingVerbs], resource: session.subject.outputs.map((t) => t.plural), namespace },
      { blackhole: true },
    );
    const start = now();
    let generation: number;
    try {
      generation = await mutatePrimary(session, target, 1);
      await hold(session.subject.timings.holdMs);
    } finally {
      held.remove();
    }
    const ms = await settle(session, namespace, { start, marker, what: "the changed object to settle" });
    await sampler.stop();
    const actedAt = firstActed(session, namespace, marker);
    const changedOutputs = restoreProblems(snap, await snapshot(session, namespace)).length > 0;
    const describe = (s: Sample) =>
      `+${seconds(s.at - start)}: claims generation ${claimed(s.object)} (metadata.generation ${s.object.metadata.generation})`;
    const ahead = sampler.samples.filter(
      (s) => (claimed(s.object) ?? 0) > (s.object.metadata.generation ?? 0),
    );
    const early = changedOutputs
      ? sampler.samples.filter((s) => (claimed(s.object) ?? 0) >= generation && s.at < (actedAt ?? Infinity))
      : [];
    if (ahead.length || early.length) {
      const acted = actedAt === undefined ? "never" : `at +${seconds(actedAt - start)}`;
      throw new CheckFailed({
        expected: `no status of ${keyOf(target)} claiming generation ${generation} before the operator's first successful output write for it (${acted}; writes held ${seconds(session.subject.timings.holdMs)})`,
        seen: [...ahead, ...early].map(describe).join("; "),
        requests: involved(session, namespace, marker),
      });
    }
    const note = changedOutputs ? "" : " (the change altered no output: claims could not be judged)";
    return {
      timeMs: ms,
      summary: `${sampler.samples.length} status versions seen, none ahead of the work; settled ${seconds(ms)} after the change${note}`,
    };
  },
};
