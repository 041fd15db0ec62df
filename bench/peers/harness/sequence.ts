/**
 * One repetition for one contender and one N, on a fresh cluster: converge N new Widgets, stay
 * settled (resync on) and count writes, update every spec, delete children and time the repairs,
 * restart the operator with N objects present. Every number is taken from outside the contender:
 * the tracker (convergence), the counting proxy (requests by verb) and /proc (CPU, memory).
 */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startCluster } from "../../../src/cluster/index.ts";
import { crdYaml } from "../../../src/schema/index.ts";
import type { RequestCounts } from "../../../src/testing/proxy/index.ts";
import { Widget } from "../kubeloop/kinds.ts";
import type { ClientSettings } from "./client-settings.ts";
import { type ContenderName, ContenderProcess, type LaunchOptions } from "./contenders.ts";
import {
  type ChangeDuringRestart,
  changeDuringRestart,
  type RestartContext,
  STREAM_KEYS,
  type Starvation,
  starvation,
} from "./during-restart.ts";
import { Kube, widgetName, widgetsPath } from "./kube.ts";
import { startCountingProxy } from "./proxy.ts";
import { Stopwatches } from "./stopwatches.ts";
import { Tracker } from "./tracker.ts";

export type ScenarioName =
  | "converge"
  | "settled"
  | "update"
  | "repair"
  | "restart"
  | "change-during-restart"
  | "starvation";
export const scenarioNames: ScenarioName[] = [
  "converge",
  "settled",
  "update",
  "repair",
  "restart",
  "change-during-restart",
  "starvation",
];

export interface SequenceOptions {
  contender: ContenderName;
  n: number;
  scenarios: ScenarioName[];
  settleSeconds: number;
  /** False to skip the settled scenario in this repetition. */
  settle: boolean;
  workers: number;
  resyncSeconds: number;
  /** Every contender's client-side rate limit off, or each at its framework's defaults. */
  clientSettings: ClientSettings;
  repairCount: number;
  /** Widgets created 0.5 s after the restart in the change-during-restart scenario. */
  changeCount: number;
  /** Spec changes per second in the starvation scenario. */
  streamRate: number;
  logDir: string;
  goBinary: string;
  node: string;
  built: LaunchOptions["built"];
  cpuProfile: boolean;
}

/** Requests by verb, as counted by the proxy, and per object. */
export interface Requests {
  total: number;
  byVerb: Partial<Record<string, number>>;
  byResource: RequestCounts["byResource"];
  writes: number;
}

export interface PhaseCost {
  seconds: number;
  /** CPU of kube-apiserver + etcd in the window (includes the runner's own creates and patches). */
  controlPlaneCpuSeconds?: number;
  cpuSeconds: number;
  requests: Requests;
}

export interface RunResult {
  contender: ContenderName;
  n: number;
  /** `createSeconds`: how long the runner took to create the N Widgets. */
  converge?: PhaseCost & { peakRssMiB: number; createSeconds: number };
  settled?: { seconds: number; cpuSeconds: number; requests: Requests };
  update?: PhaseCost;
  repair?: {
    deleted: number;
    repaired: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    requests: Requests;
  };
  restart?: {
    firstReconcileSeconds: number;
    allReconciledSeconds: number;
    peakRssMiB: number;
    cpuSeconds: number;
    requests: Requests;
  };
  changeDuringRestart?: ChangeDuringRestart;
  starvation?: Starvation;
  peakRssMiB?: number;
  /** 1-minute load average when the repetition started and ended (2 cores). */
  load?: [number, number];
  error?: string;
}

const writeVerbs = ["create", "update", "patch", "delete", "deletecollection"];

function requests(counts: RequestCounts): Requests {
  const writes = writeVerbs.reduce(
    (sum, v) => sum + (counts.byVerb[v as keyof typeof counts.byVerb] ?? 0),
    0,
  );
  return { total: counts.total, byVerb: counts.byVerb, byResource: counts.byResource, writes };
}

/**
 * Waits until the contender has sent no request for 2 s (at most `maxMs`), so that work still
 * queued inside it from the previous scenario (invisible from outside once objects look converged)
 * is not billed to the next one.
 */
async function quiesce(proxy: { counts(): Promise<RequestCounts> }, maxMs = 120_000): Promise<void> {
  const deadline = performance.now() + maxMs;
  let last = (await proxy.counts()).total;
  let quietSince = performance.now();
  while (performance.now() < deadline && performance.now() - quietSince < 2000) {
    await sleep(250);
    const now = (await proxy.counts()).total;
    if (now !== last) {
      last = now;
      quietSince = performance.now();
    }
  }
}

/** CPU seconds (user + system) of a process, from /proc. */
function cpuOf(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Runs every selected scenario for one contender; failures are recorded, not thrown. */
export async function runSequence(o: SequenceOptions, log: (line: string) => void): Promise<RunResult> {
  const result: RunResult = { contender: o.contender, n: o.n };
  const load0 = loadavg()[0] ?? 0;
  const cluster = await startCluster({ components: { scheduler: false, kwok: false }, report: () => {} });
  const kube = new Kube(cluster);
  const proxy = await startCountingProxy(cluster);
  let tracker: Tracker | undefined;
  const procs: ContenderProcess[] = [];
  const tag = `${o.contender}-n${o.n}-${Date.now()}`;
  const launch = (expect: number) => {
    const cpuProfileDir = o.cpuProfile ? join(o.logDir, `${tag}-cpuprofile`) : undefined;
    if (cpuProfileDir) mkdirSync(cpuProfileDir, { recursive: true });
    const p = new ContenderProcess(o.contender, {
      kubeconfig: proxy.kubeconfig,
      goBinary: o.goBinary,
      node: o.node,
      built: o.built,
      logFile: join(o.logDir, `${tag}.log`),
      cpuProfileDir,
      env: {
        BENCH_EXPECT: String(expect),
        BENCH_STREAMED: String(STREAM_KEYS),
        BENCH_WORKERS: String(o.workers),
        BENCH_RESYNC_SECONDS: String(o.resyncSeconds),
        BENCH_CLIENT_SETTINGS: o.clientSettings,
      },
    });
    procs.push(p);
    return p;
  };
  const timeoutMs = 120_000 + o.n * 100;
  try {
    const crd = join(o.logDir, "widgets-crd.yaml");
    writeFileSync(crd, crdYaml([Widget]));
    await cluster.kubectl(["apply", "--server-side", "-f", crd]);
    await cluster.kubectl([
      "wait",
      "--for=condition=Established",
      `crd/widgets.${Widget.group}`,
      "--timeout=60s",
    ]);
    await kube.createNamespace();
    await kube.call("GET", widgetsPath); // waits out the new CRD's 429s before any contender starts
    tracker = await Tracker.start(kube);
    let proc = launch(o.n);
    await proc.marker("ready", 120_000);
    await sleep(1000);

    // Converge: N Widgets created at once (16 in flight from the runner).
    await proxy.reset();
    const controlPlaneCpu = () => cpuOf(cluster.pids()["kube-apiserver"]) + cpuOf(cluster.pids().etcd);
    let apiserver0 = controlPlaneCpu();
    let cpu0 = proc.cpuSeconds();
    let t0 = performance.now();
    const creating = kube.each(o.n, 16, (i) => kube.createWidget(widgetName(i), `hello-${i}`));
    await creating;
    const created = performance.now();
    let done = await tracker.waitConverged(o.n, () => true, timeoutMs);
    result.converge = {
      seconds: (done - t0) / 1000,
      createSeconds: (created - t0) / 1000,
      controlPlaneCpuSeconds: controlPlaneCpu() - apiserver0,
      cpuSeconds: proc.cpuSeconds() - cpu0,
      requests: requests(await proxy.counts()),
      peakRssMiB: proc.peakRssMiB(),
    };
    log(
      `  converge ${result.converge.seconds.toFixed(2)} s (creates took ${result.converge.createSeconds.toFixed(2)} s), ${result.converge.cpuSeconds.toFixed(2)} CPU s`,
    );

    if (o.scenarios.includes("settled") && o.settle && o.contender !== "floor") {
      await quiesce(proxy);
      await proxy.reset();
      cpu0 = proc.cpuSeconds();
      await sleep(o.settleSeconds * 1000);
      result.settled = {
        seconds: o.settleSeconds,
        cpuSeconds: proc.cpuSeconds() - cpu0,
        requests: requests(await proxy.counts()),
      };
      log(`  settled ${o.settleSeconds} s: ${result.settled.requests.writes} writes`);
    }

    if (o.scenarios.includes("update")) {
      await quiesce(proxy);
      await proxy.reset();
      apiserver0 = controlPlaneCpu();
      cpu0 = proc.cpuSeconds();
      t0 = performance.now();
      await kube.each(o.n, 16, (i) => kube.patchMessage(widgetName(i), `updated-${i}`));
      const updated = (w: { metadata: { name?: string }; spec?: { message?: string } }) =>
        w.spec?.message === `updated-${Number(w.metadata.name?.slice(2))}`;
      done = await tracker.waitConverged(o.n, updated, timeoutMs);
      result.update = {
        seconds: (done - t0) / 1000,
        cpuSeconds: proc.cpuSeconds() - cpu0,
        requests: requests(await proxy.counts()),
        controlPlaneCpuSeconds: controlPlaneCpu() - apiserver0,
      };
      log(`  update ${result.update.seconds.toFixed(2)} s`);
    }

    if (o.scenarios.includes("repair")) await quiesce(proxy);
    if (o.scenarios.includes("repair")) result.repair = await repair(o, kube, tracker, proxy, log);

    result.peakRssMiB = proc.peakRssMiB();

    if (o.scenarios.includes("restart")) {
      await quiesce(proxy);
      await proc.stop();
      await proxy.reset();
      proc = launch(o.n);
      const first = await proc.marker("first-reconcile", timeoutMs);
      const all = await proc.marker("all-reconciled", timeoutMs);
      await sleep(1000);
      result.restart = {
        firstReconcileSeconds: (first - proc.startedAt) / 1000,
        allReconciledSeconds: (all - proc.startedAt) / 1000,
        peakRssMiB: proc.peakRssMiB(),
        cpuSeconds: proc.cpuSeconds(),
        requests: requests(await proxy.counts()),
      };
      log(
        `  restart: first reconcile ${result.restart.firstReconcileSeconds.toFixed(2)} s, all ${result.restart.allReconciledSeconds.toFixed(2)} s`,
      );
    }

    const restarts: RestartContext = {
      kube,
      tracker,
      timeoutMs,
      log,
      quiesce: () => quiesce(proxy),
      restart: async (expect) => {
        await proc.stop();
        await proxy.reset();
        proc = launch(expect);
        return proc;
      },
    };
    if (o.scenarios.includes("change-during-restart"))
      result.changeDuringRestart = await changeDuringRestart(restarts, o.changeCount);
    if (o.scenarios.includes("starvation")) result.starvation = await starvation(restarts, o.streamRate);
  } catch (err) {
    result.error = (err as Error).message;
    log(`  FAILED: ${result.error}`);
  } finally {
    result.load = [load0, loadavg()[0] ?? 0];
    for (const p of procs) await p.stop();
    tracker?.stop();
    await proxy.stop();
    await kube.close();
    await cluster.stop();
  }
  return result;
}

/**
 * Deletes `repairCount` children spread over the Widgets, one every 50 ms, and times each from the
 * moment its DELETE is sent to the tracker seeing the ConfigMap created again.
 */
async function repair(
  o: SequenceOptions,
  kube: Kube,
  tracker: Tracker,
  proxy: Awaited<ReturnType<typeof startCountingProxy>>,
  log: (line: string) => void,
): Promise<RunResult["repair"]> {
  const count = Math.min(o.repairCount, o.n);
  const step = Math.floor(o.n / count);
  const watches = new Stopwatches(count);
  tracker.onConfigMapAdded = watches.stop;
  await proxy.reset();
  for (let k = 0; k < count; k++) {
    const name = `${widgetName(k * step)}-config`;
    watches.start(name);
    await kube.deleteConfigMap(name);
    await sleep(50);
  }
  await Promise.race([watches.all, sleep(60_000, undefined, { ref: false })]);
  tracker.onConfigMapAdded = undefined;
  await tracker.waitConverged(o.n, () => true, 120_000).catch(() => {});
  const { stopped, p50Ms, p99Ms, maxMs } = watches.summary();
  const r = {
    deleted: count,
    repaired: stopped,
    p50Ms,
    p99Ms,
    maxMs,
    requests: requests(await proxy.counts()),
  };
  log(`  repair ${r.repaired}/${r.deleted}: p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms`);
  return r;
}
