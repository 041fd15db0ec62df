/**
 * One replica's resident memory with N Pod-like objects cached (issue 33: 200,000 objects of
 * about 4.7 KB in ≤ 1 GiB), kubeloop beside controller-runtime in one run.
 *
 * A local control plane of its own (etcd and kube-apiserver only, so the Pods stay Pending and
 * nothing else writes them) gets N Pods from bench/support/pods.ts in `--namespaces` namespaces,
 * each created and then given its status by a merge patch (a Pod's status is dropped on create), many requests in
 * flight from one unthrottled client. Then, one at a time so they do not share the machine, each
 * contender is started as its own process, caches every Pod in the cluster and prints
 * `BENCH synced <count>`; the runner records the time from process start to that line, then
 * samples VmRSS for `--settle` seconds and reads VmRSS (steady) and VmHWM (peak) from
 * /proc/<pid>/status. Each contender is also run once per repetition caching an empty namespace's
 * Pods: its RSS is the process baseline that "per object" is measured over.
 *
 * Contenders: `kubeloop` (bench/peers/kubeloop/cache-rss.ts, bundled by `kubeloop build`, run with
 * the generated Dockerfile's node flags on the Dockerfile's Node LTS), `controller-runtime`
 * (bench/peers/controller-runtime/cache-rss, its defaults: managedFields kept) and
 * `controller-runtime-stripped` (the same with `DefaultTransform: TransformStripManagedFields()`).
 * Repetitions rotate the order.
 *
 * Usage: `npx tsx bench/cache-rss.ts [--n 200000] [--reps 2] [--namespaces 100] [--in-flight 64]
 * [--settle 5] [--node lts|current]`; writes bench/results/cache-rss.md and cache-rss.json.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Namespace, Pod, type PodObject, ServiceAccount } from "../src/api/index.ts";
import { AlreadyExistsError, ApiError, Client, loadKubeconfig } from "../src/client/index.ts";
import { startCluster } from "../src/cluster/index.ts";
import { OPERATOR_NODE_FLAGS } from "../src/generate/index.ts";
import { bundleOperator } from "../src/operator/index.ts";
import { builtDir } from "./peers/harness/build.ts";
import { peersDir, resultsDir } from "./peers/harness/paths.ts";
import { BenchProcess } from "./peers/harness/process.ts";
import { ensureGoBinary, nodeForContenders } from "./peers/harness/setup.ts";
import { podLike } from "./support/pods.ts";
import { fmt, loadLine, machineLine, median, table, writeResult } from "./support/report.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "200000" },
    reps: { type: "string", default: "2" },
    namespaces: { type: "string", default: "100" },
    "in-flight": { type: "string", default: "64" },
    settle: { type: "string", default: "5" },
    node: { type: "string", default: "lts" },
  },
});
const n = Number(values.n);
const reps = Number(values.reps);
const namespaceCount = Number(values.namespaces);
const inFlight = Number(values["in-flight"]);
const settleMs = Number(values.settle) * 1000;
const goalMiB = 1024;
const emptyNamespace = "cache-rss-empty";
const syncTimeoutMs = 30 * 60_000;
const log = (line: string) => process.stderr.write(`cache-rss: ${line}\n`);

type ContenderName = "kubeloop" | "controller-runtime" | "controller-runtime-stripped";
const contenders: { name: ContenderName; label: string }[] = [
  { name: "kubeloop", label: "kubeloop (default transform, bundled, node --max-semi-space-size=1)" },
  { name: "controller-runtime", label: "controller-runtime v0.25.2 (defaults: managedFields kept)" },
  {
    name: "controller-runtime-stripped",
    label: "controller-runtime v0.25.2, DefaultTransform: TransformStripManagedFields()",
  },
];

/** One contender process, run until synced and settled. */
interface Sample {
  contender: ContenderName;
  rep: number;
  objects: number;
  syncSeconds: number;
  steadyMiB: number;
  peakMiB: number;
}

/** The `i`-th Pod as a client creates it: no server-set metadata, no managedFields. */
function podToCreate(i: number): PodObject {
  const pod = podLike(i, `cache-rss-${i % namespaceCount}`) as PodObject;
  const {
    uid: _u,
    resourceVersion: _r,
    creationTimestamp: _c,
    managedFields: _m,
    ...metadata
  } = pod.metadata;
  return { ...pod, metadata };
}

/** Runs `task(i)` for i in [0, count) with `inFlight` calls at a time. */
async function pool(count: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
}

/** Swallows `err` when it is a `kind`, else throws it. */
function ignore(kind: new (...args: never[]) => Error, err: unknown): undefined {
  if (err instanceof kind) return undefined;
  throw err;
}

/** Runs `write` until it succeeds, at most 5 times, again after a timeout or an internal error. */
async function retrying(write: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await write();
      return;
    } catch (err) {
      const again = err instanceof ApiError && [500, 504].includes(err.statusCode);
      if (!again || attempt === 5) throw err;
    }
  }
}

/** Creates the namespaces (each with the `default` ServiceAccount Pods need) and the N Pods with their status. */
async function populate(client: Client): Promise<number> {
  const names = [emptyNamespace, ...Array.from({ length: namespaceCount }, (_, k) => `cache-rss-${k}`)];
  for (const name of names) {
    await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    await client.create(ServiceAccount, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "default", namespace: name },
    });
  }
  const t0 = performance.now();
  await pool(n, async (i) => {
    const desired = podToCreate(i);
    const { name, namespace } = desired.metadata;
    // An overloaded apiserver answers some writes with a timeout after doing them: try again,
    // taking an object that already exists as created.
    await retrying(() => client.create(Pod, desired).catch((err) => ignore(AlreadyExistsError, err)));
    await retrying(() =>
      client.status.patch(Pod, name ?? "", { status: desired.status }, { namespace, type: "merge" }),
    );
    if ((i + 1) % 20_000 === 0) log(`${fmt(i + 1)} Pods created`);
  });
  return (performance.now() - t0) / 1000;
}

/** Mean JSON bytes of the stored Pods (with managedFields), from one page of 500. */
async function storedJsonBytes(client: Client): Promise<number> {
  const page = await client.listPage(Pod, { limit: 500 });
  return page.items.reduce((sum, p) => sum + JSON.stringify(p).length, 0) / page.items.length;
}

/** Builds the contenders: the kubeloop one bundled as `kubeloop build` does, the Go one into the cache. */
async function buildContenders(): Promise<{ kubeloop: string; go: string }> {
  log("bundling the kubeloop contender (kubeloop build)");
  const bundle = await bundleOperator({
    cwd: peersDir,
    entry: "kubeloop/cache-rss.ts",
    outfile: join(builtDir, "cache-rss-kubeloop.mjs"),
  });
  return { kubeloop: bundle.outfile, go: ensureGoBinary("cache-rss", "cache-rss", log) };
}

/** Starts `name` (caching `namespace`'s Pods, or every Pod), waits for its sync and settle, and measures it. */
async function measure(
  name: ContenderName,
  expected: number,
  setup: { kubeloop: string; go: string; node: string; kubeconfig: string; logDir: string },
  namespace?: string,
): Promise<Omit<Sample, "rep">> {
  const command =
    name === "kubeloop"
      ? { cmd: setup.node, args: [...OPERATOR_NODE_FLAGS, setup.kubeloop] }
      : { cmd: setup.go, args: [] };
  const env: Record<string, string> = { KUBECONFIG: setup.kubeconfig, LOG_LEVEL: "info" };
  if (name === "controller-runtime-stripped") env.BENCH_STRIP_MANAGED_FIELDS = "1";
  if (namespace) env.BENCH_NAMESPACE = namespace;
  const proc = new BenchProcess(name, command, { env, logFile: join(setup.logDir, `${name}.log`) });
  try {
    const syncedAt = await proc.marker(`synced ${expected}`, syncTimeoutMs);
    const settled = performance.now() + settleMs;
    while (performance.now() < settled) await new Promise((r) => setTimeout(r, 500)); // sampling window
    return {
      contender: name,
      objects: expected,
      syncSeconds: (syncedAt - proc.startedAt) / 1000,
      steadyMiB: proc.rssMiB(),
      peakMiB: proc.peakRssMiB(),
    };
  } finally {
    await proc.stop();
  }
}

/** Medians per contender: sync time, steady and peak RSS, and the empty-cache baseline. */
function summarise(samples: Sample[], baselines: Sample[]) {
  const med = (xs: Sample[], f: (s: Sample) => number) => median(xs.map(f));
  return contenders.map(({ name, label }) => {
    const mine = samples.filter((s) => s.contender === name);
    return {
      name,
      label,
      steady: med(mine, (s) => s.steadyMiB),
      peak: med(mine, (s) => s.peakMiB),
      sync: med(mine, (s) => s.syncSeconds),
      base: med(
        baselines.filter((s) => s.contender === name),
        (s) => s.steadyMiB,
      ),
    };
  });
}

/** The markdown report. */
function report(samples: Sample[], baselines: Sample[], createSeconds: number, jsonBytes: number): string {
  const rows = summarise(samples, baselines);
  const kubeloop = rows.find((r) => r.name === "kubeloop");
  const lines = rows.map((r) => [
    r.label,
    fmt(n),
    fmt(r.sync, 1),
    fmt(r.steady),
    fmt(r.peak),
    fmt(r.base),
    fmt(((r.steady - r.base) * 2 ** 20) / n),
    fmt(r.steady / (kubeloop?.steady ?? Number.NaN), 2),
  ]);
  const verdict = (kubeloop?.peak ?? Number.POSITIVE_INFINITY) <= goalMiB ? "met" : "MISSED";
  return [
    "# One replica's RSS with N Pods cached, kubeloop beside controller-runtime",
    "",
    `\`${["npx tsx bench/cache-rss.ts", ...process.argv.slice(2)].join(" ")}\``,
    "",
    machineLine(),
    loadLine(),
    "",
    `N = ${fmt(n)} Pods (bench/support/pods.ts) in ${namespaceCount} namespaces, ${fmt(jsonBytes)} B of JSON each as ` +
      `the apiserver stores them (managedFields included), created with their status in ${fmt(createSeconds)} s ` +
      `(${fmt(n / createSeconds)}/s, ${inFlight} in flight, create + status patch each) on a control plane ` +
      "of etcd and kube-apiserver only. Each contender, one at a time, caches every Pod cluster-wide; sync = from " +
      `process start to its cache holding all N; steady = VmRSS ${settleMs / 1000} s after sync; peak = VmHWM; ` +
      `baseline = steady VmRSS of the same program caching an empty namespace. Median of ${reps} repetitions, order rotated.`,
    "",
    table(
      [
        "contender",
        "N",
        "sync s",
        "RSS steady MiB",
        "RSS peak MiB",
        "baseline MiB",
        "B/object over baseline",
        "steady / kubeloop",
      ],
      lines,
    ),
    "",
    `goal: kubeloop ≤ ${fmt(goalMiB)} MiB (peak) at ${fmt(n)} objects: ${verdict} (steady ${fmt(kubeloop?.steady ?? 0)} MiB, peak ${fmt(kubeloop?.peak ?? 0)} MiB); ` +
      rows
        .filter((r) => r.name !== "kubeloop")
        .map((r) => `kubeloop / ${r.name} steady RSS = ${fmt((kubeloop?.steady ?? 0) / r.steady, 2)}`)
        .join(", "),
    "",
    "Every sample (contender, repetition, sync s, steady MiB, peak MiB):",
    "",
    table(
      ["contender", "rep", "objects", "sync s", "steady MiB", "peak MiB"],
      [...samples, ...baselines].map((s) => [
        s.contender,
        String(s.rep + 1),
        fmt(s.objects),
        fmt(s.syncSeconds, 1),
        fmt(s.steadyMiB),
        fmt(s.peakMiB),
      ]),
    ),
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const built = await buildContenders();
  const node = nodeForContenders(String(values.node), log);
  const logDir = mkdtempSync(join(tmpdir(), "cache-rss-"));
  log(`process logs in ${logDir}`);
  const cluster = await startCluster({
    components: { controllerManager: false, scheduler: false, kwok: false },
    report: () => {},
  });
  const client = new Client(await loadKubeconfig({ kubeconfig: cluster.kubeconfigPath }), {
    qps: Number.POSITIVE_INFINITY,
  });
  try {
    log(`creating ${fmt(n)} Pods`);
    const createSeconds = await populate(client);
    const jsonBytes = await storedJsonBytes(client);
    log(`created in ${fmt(createSeconds, 1)} s, ${fmt(jsonBytes)} B of JSON each`);
    const setup = { ...built, node, kubeconfig: cluster.kubeconfigPath, logDir };
    const samples: Sample[] = [];
    const baselines: Sample[] = [];
    for (let rep = 0; rep < reps; rep++) {
      const order = contenders.map(
        (_, k) => contenders[(k + rep) % contenders.length]?.name as ContenderName,
      );
      for (const name of order) {
        baselines.push({ rep, ...(await measure(name, 0, setup, emptyNamespace)) });
        const sample = { rep, ...(await measure(name, n, setup)) };
        samples.push(sample);
        log(
          `rep ${rep + 1} ${name}: sync ${fmt(sample.syncSeconds, 1)} s, steady ${fmt(sample.steadyMiB)} MiB, peak ${fmt(sample.peakMiB)} MiB`,
        );
      }
    }
    const markdown = report(samples, baselines, createSeconds, jsonBytes);
    console.log(markdown);
    writeFileSync(join(resultsDir, "cache-rss.md"), markdown);
    writeResult("cache-rss", {
      n,
      reps,
      namespaces: namespaceCount,
      inFlight,
      createSeconds,
      jsonBytes,
      samples,
      baselines,
    });
  } finally {
    await client.close();
    await cluster.stop();
  }
}

await main();
