/**
 * What tracing costs a reconcile: CPU time of this process per reconcile, traces off (no
 * `OTEL_EXPORTER_OTLP_ENDPOINT`: the default) against on (`exportTraces` as `runManager` starts
 * it, with the SDK's default sampler: every reconcile recorded, batched and sent over OTLP/HTTP),
 * and on with `OTEL_TRACES_SAMPLER=parentbased_traceidratio` at 1 % (the setting the docs advise
 * for a busy operator). Each reconcile reads a ConfigMap and patches it, so a traced one makes
 * three spans (the reconcile's and its two API calls').
 *
 * The apiserver stand-in (answers every request with the ConfigMap) and the OTLP collector stand-in
 * (reads and drops each export) run in a child process: their CPU is not counted. Every run is a
 * fresh process (`--run off|on|sampled`), one of each mode per round, so one's JIT state or heap
 * does not help another; each mode's overhead is the median over the rounds of its ratio to the
 * round's `off` run (a loaded machine slows whole rounds: the ratio within one round holds better
 * than a ratio of medians). The measured window starts after a warm-up, a first export (the
 * exporter loads modules then) and one `node:http` request in every mode (see `postOnce`), and ends once its spans are sent. CPU time (user + system, all
 * threads) rather than wall time: it holds on a loaded machine.
 *
 * Usage: `npx tsx bench/tracing.ts [reconciles=20000] [runs=5]`.
 */
import { type ChildProcess, fork, spawnSync } from "node:child_process";
import { Agent, createServer, request } from "node:http";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { ConfigMap, type ConfigMapObject } from "../src/api/index.ts";
import { createStore, type Informer, type InformerCache } from "../src/cache/index.ts";
import { Client } from "../src/client/index.ts";
import { Controller, type Enqueue, noopControllerMetrics } from "../src/controller/index.ts";
import { EventRecorder } from "../src/events/index.ts";
import { exportTraces } from "../src/manager/index.ts";
import { fmt, loadLine, machineLine, median, table, writeResult } from "./support/report.ts";

const here = fileURLToPath(import.meta.url);
const configMap: ConfigMapObject = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "a", namespace: "ns", resourceVersion: "1", uid: "u" },
  data: { message: "hello" },
};

/** The stand-ins: an apiserver answering the ConfigMap, a collector dropping exports; sends their ports. */
function serveStandIns(): void {
  const body = JSON.stringify(configMap);
  const api = createServer((req, res) => {
    req.resume().on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(body));
  });
  const collector = createServer((req, res) => {
    req.resume().on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  api.listen(0, "127.0.0.1", () =>
    collector.listen(0, "127.0.0.1", () => {
      const port = (s: typeof api) => (s.address() as { port: number }).port;
      process.send?.({ api: port(api), collector: port(collector) });
    }),
  );
}

/**
 * Sends one request through `node:http`, in every mode, as the OTLP exporter does on its first
 * export: like with like. Measured (2026-11-28, Node 20, no OpenTelemetry loaded at all): a
 * process that has sent a single `node:http` request runs the reconcile loop 25-40 % slower
 * afterwards (off: 239-268 µs a reconcile; off after one request: 300-306 µs), with keep-alive
 * or not. Without this, `on` carried that step alone and it read as the tracer's cost.
 */
function postOnce(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: "POST", agent: new Agent() }, (res) =>
      res.resume().on("end", resolve),
    );
    req.on("error", reject).end("{}");
  });
}

/** One run in this process: `n` reconciles, traced or not; prints CPU µs per reconcile. */
async function measure(n: number, traced: boolean, apiPort: number, collectorPort: number): Promise<void> {
  const logger = pino({ level: "silent" });
  const env = traced ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}` } : {};
  const traces = await exportTraces("bench", logger, env);
  const client = new Client({
    server: `http://127.0.0.1:${apiPort}`,
    namespace: "ns",
    contextName: "bench",
    source: "kubeconfig",
    tls: { insecure: true },
    credentials: { get: async () => ({ headers: {}, identity: "bench" }), invalidate() {} },
  });
  const store = createStore<ConfigMapObject>();
  const informer = { type: ConfigMap, store: store.reader } as unknown as Informer<ConfigMapObject>;
  let enqueue: Enqueue = () => {};
  let done = 0;
  let finished = () => {};
  const controller = new Controller<ConfigMapObject>(
    "bench",
    informer,
    [
      {
        start: (e) => {
          enqueue = e;
          return () => {};
        },
      },
    ],
    async (ctx) => {
      const { name, namespace } = ctx.request;
      await ctx.client.get(ConfigMap, name, { namespace });
      await ctx.client.patch(ConfigMap, name, { data: { message: "hello" } }, { namespace, type: "merge" });
      if (++done === n) finished();
      return undefined;
    },
    {
      client,
      cache: {} as InformerCache,
      logger,
      recorder: new EventRecorder({} as never, { reportingController: "bench" }),
      metrics: noopControllerMetrics,
    },
    { resyncPeriodMs: 0, concurrency: 4 },
  );
  const stop = new AbortController();
  const running = controller.run(stop.signal);
  const round = async (count: number) => {
    done = 0;
    n = count;
    const all = new Promise<void>((resolve) => (finished = resolve));
    for (let i = 0; i < count; i++) enqueue(`ns/cm-${i}`, "bench");
    await all;
  };
  // Warm-up: JIT, connection pools, and the modules the exporter loads on its first export.
  await round(Math.min(2000, n));
  await traces?.forceFlush();
  await postOnce(collectorPort);
  const total = n;
  const before = process.cpuUsage();
  await round(total);
  await traces?.forceFlush(); // every span of the window exported, within it
  const cpu = process.cpuUsage(before);
  await traces?.shutdown();
  stop.abort();
  await running;
  await client.close();
  process.stdout.write(`${JSON.stringify({ cpuMicros: (cpu.user + cpu.system) / total })}\n`);
}

type Mode = "off" | "on" | "sampled";
const MODES: readonly Mode[] = ["off", "on", "sampled"];
/** The sampler of the `sampled` mode, set in its process's environment as a user would. */
const SAMPLED_ENV = { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.01" };

/** One measured run in a fresh process: its CPU µs per reconcile. */
function run(mode: Mode, n: number, ports: { api: number; collector: number }): number {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, here, "--run", mode, String(n), String(ports.api), String(ports.collector)],
    { encoding: "utf8", env: mode === "sampled" ? { ...process.env, ...SAMPLED_ENV } : process.env },
  );
  if (child.status !== 0) throw new Error(`run ${mode} failed: ${child.stderr}`);
  return (JSON.parse(child.stdout.trim().split("\n").pop() ?? "{}") as { cpuMicros: number }).cpuMicros;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const n = Number(args[0] ?? 20_000);
  const runs = Number(args[1] ?? 5);
  const standIns: ChildProcess = fork(here, ["--stand-ins"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ports = await new Promise<{ api: number; collector: number }>((resolve) =>
    standIns.once("message", resolve),
  );
  const results: Record<Mode, number[]> = { off: [], on: [], sampled: [] };
  try {
    for (let r = 0; r < runs; r++) {
      for (const mode of MODES) results[mode].push(run(mode, n, ports));
    }
  } finally {
    standIns.kill();
  }
  const overhead = (mode: Mode) => median(results[mode].map((cpu, r) => cpu / (results.off[r] ?? cpu) - 1));
  const row = (label: string, mode: Mode) => [
    label,
    fmt(median(results[mode]), 1),
    mode === "off" ? "" : `${fmt(overhead(mode) * 100, 1)} %`,
    results[mode].map((x) => fmt(x, 1)).join(" "),
  ];
  console.log(machineLine());
  console.log(loadLine());
  console.log(
    table(
      ["traces", "CPU µs / reconcile (median)", "overhead (median of the rounds' ratios)", "runs"],
      [
        row("off (default)", "off"),
        row("on (OTLP export, every reconcile)", "on"),
        row("on, sampled 1 %", "sampled"),
      ],
    ),
  );
  console.log(`goal: ≤ 3 % of a reconcile's CPU`);
  const written = writeResult("tracing", {
    reconciles: n,
    runs,
    cpuMicros: results,
    overhead: { on: overhead("on"), sampled: overhead("sampled") },
  });
  console.log(`written: ${written}`);
}

if (process.argv.includes("--stand-ins")) serveStandIns();
else if (process.argv.includes("--run")) {
  const [mode, n, api, collector] = process.argv.slice(process.argv.indexOf("--run") + 1);
  await measure(Number(n), mode !== "off", Number(api), Number(collector));
} else await main();
