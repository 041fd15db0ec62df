/**
 * Requests per second through kubeloop's `Client` versus raw undici against the same real
 * kube-apiserver in the same run: GET of one ConfigMap, and LIST of a namespace holding 100
 * ConfigMaps, at 1 and 16 requests in flight.
 *
 * - The client's own rate limiter is disabled (`qps: Infinity`); retries, metrics (no-op) and
 *   401 refresh stay in the chain.
 * - Raw undici is an `Agent` with the same CA, client certificate and key, the same URLs
 *   (including the `limit=500` the client adds to lists), the same headers, and the body
 *   parsed with `res.body.json()`, since a useful client has to parse it too.
 * - Each contender warms up first (TLS connections opened, JIT warm). Each repetition then runs
 *   the two as A-B-B-A (the first flipping every repetition), so drift hits both alike; its
 *   ratio is the mean kubeloop rate over the mean undici rate, and the table shows medians.
 * - Client CPU per request (this process's user + system time / requests) is reported too: it
 *   is the client's own cost, and moves less than req/s when the machine is shared.
 * - Only etcd and kube-apiserver run (no controller manager, scheduler or kwok), but the
 *   apiserver shares the machine's cores with this process.
 *
 * Usage: `npx tsx bench/client-throughput.ts [repetitions=9] [secondsPerRun=1]`.
 */
import { Agent } from "undici";
import { ConfigMap, type ConfigMapObject, Namespace } from "../src/api/index.ts";
import { Client, loadKubeconfig } from "../src/client/index.ts";
import { type Cluster, startCluster, versions } from "../src/cluster/index.ts";
import { fmt, loadLine, machineLine, median, table, writeResult } from "./support/report.ts";

const repetitions = Number(process.argv[2] ?? 9);
const runMs = Number(process.argv[3] ?? 1) * 1000;
const warmupMs = 1500;
const namespace = "bench";
const listSize = 100;
const concurrencies = [1, 16] as const;

type Request = () => Promise<unknown>;
type Op = "GET" | "LIST";
interface Contenders {
  kubeloop: Record<Op, Request>;
  undici: Record<Op, Request>;
}

interface Sample {
  /** Completed requests per second. */
  rate: number;
  /** CPU time this process spent per request (user + system), in microseconds. */
  cpuUs: number;
}

function mean(samples: Sample[]): Sample {
  const avg = (pick: (s: Sample) => number) => samples.reduce((sum, s) => sum + pick(s), 0) / samples.length;
  return { rate: avg((s) => s.rate), cpuUs: avg((s) => s.cpuUs) };
}

/** Throughput and client CPU cost with `concurrency` workers sending back to back for `ms`. */
async function throughput(request: Request, concurrency: number, ms: number): Promise<Sample> {
  let done = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + ms;
  const worker = async () => {
    while (performance.now() < deadline) {
      await request();
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { rate: done / seconds, cpuUs: (cpu.user + cpu.system) / done };
}

function configMap(i: number): ConfigMapObject {
  const name = `cm-${String(i).padStart(3, "0")}`;
  const lines = Array.from({ length: 8 }, (_, k) => `  key${k}: value-${i}-${k}-${"x".repeat(24)}`);
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels: { app: "bench", shard: String(i % 4) } },
    data: { "config.yaml": `settings:\n${lines.join("\n")}\n`, mode: "production" },
  };
}

/** Creates the namespace and its ConfigMaps; returns the mean JSON size of one listed item. */
async function seed(client: Client): Promise<number> {
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  await Promise.all(Array.from({ length: listSize }, (_, i) => client.create(ConfigMap, configMap(i))));
  const { items } = await client.list(ConfigMap, { namespace });
  if (items.length !== listSize) throw new Error(`expected ${listSize} ConfigMaps, found ${items.length}`);
  return JSON.stringify(items).length / listSize;
}

/** A raw undici request function: same origin, path, headers and TLS identity as the client. */
function rawUndici(cluster: Cluster): { agent: Agent; requests: Record<Op, Request> } {
  const cluster0 = cluster.kubeconfig.clusters[0]?.cluster;
  const user = cluster.kubeconfig.users[0]?.user;
  const decode = (b64: string | undefined) => Buffer.from(b64 ?? "", "base64").toString("utf8");
  const agent = new Agent({
    connect: {
      ca: decode(cluster0?.["certificate-authority-data"]),
      cert: decode(user?.["client-certificate-data"]),
      key: decode(user?.["client-key-data"]),
      keepAlive: true,
      keepAliveInitialDelay: 30_000,
    },
    keepAliveTimeout: 30_000,
  });
  const origin = new URL(cluster.server).origin;
  const headers = { accept: "application/json", "user-agent": "kubeloop" };
  const get = (path: string) => async () => {
    const res = await agent.request({ origin, path, method: "GET", headers });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
    return body;
  };
  return {
    agent,
    requests: {
      GET: get(`/api/v1/namespaces/${namespace}/configmaps/cm-000`),
      LIST: get(`/api/v1/namespaces/${namespace}/configmaps?limit=500`),
    },
  };
}

interface Row {
  op: Op;
  concurrency: number;
  kubeloop: number[];
  undici: number[];
  ratio: number[];
  kubeloopCpuUs: number[];
  undiciCpuUs: number[];
}

async function measure(contenders: Contenders): Promise<Row[]> {
  const cases = (["GET", "LIST"] as const).flatMap((op) => concurrencies.map((c) => ({ op, c })));
  for (const { op, c } of cases) {
    await throughput(contenders.kubeloop[op], c, warmupMs);
    await throughput(contenders.undici[op], c, warmupMs);
  }
  const rows: Row[] = cases.map(({ op, c }) => ({
    op,
    concurrency: c,
    kubeloop: [],
    undici: [],
    ratio: [],
    kubeloopCpuUs: [],
    undiciCpuUs: [],
  }));
  for (let rep = 0; rep < repetitions; rep++) {
    for (const row of rows) {
      // A-B-B-A within each repetition cancels linear drift; the first letter flips every repetition.
      const [a, b] = rep % 2 === 0 ? (["kubeloop", "undici"] as const) : (["undici", "kubeloop"] as const);
      const samples: Record<keyof Contenders, Sample[]> = { kubeloop: [], undici: [] };
      for (const who of [a, b, b, a]) {
        samples[who].push(await throughput(contenders[who][row.op], row.concurrency, runMs));
      }
      const kubeloop = mean(samples.kubeloop);
      const undici = mean(samples.undici);
      row.kubeloop.push(kubeloop.rate);
      row.undici.push(undici.rate);
      row.ratio.push(kubeloop.rate / undici.rate);
      row.kubeloopCpuUs.push(kubeloop.cpuUs);
      row.undiciCpuUs.push(undici.cpuUs);
    }
    process.stderr.write(`repetition ${rep + 1}/${repetitions} done\n`);
  }
  return rows;
}

const cluster = await startCluster({
  components: { controllerManager: false, scheduler: false, kwok: false },
  report: () => {},
});
try {
  const client = new Client(await loadKubeconfig({ kubeconfig: cluster.kubeconfigPath }), { qps: Infinity });
  const raw = rawUndici(cluster);
  try {
    const itemBytes = await seed(client);
    const rows = await measure({
      kubeloop: {
        GET: () => client.get(ConfigMap, "cm-000", { namespace }),
        LIST: () => client.list(ConfigMap, { namespace }),
      },
      undici: raw.requests,
    });
    console.log(machineLine());
    console.log(loadLine());
    console.log(
      `kube-apiserver ${versions.kubernetes} on loopback (etcd + apiserver only); client-side rate limit disabled (qps: Infinity); ` +
        `ConfigMaps of ${fmt(itemBytes)} B JSON; ` +
        `median of ${repetitions} interleaved (A-B-B-A) repetitions of ${runMs / 1000} s per run, after warm-up\n`,
    );
    console.log(
      table(
        [
          "request",
          "in flight",
          "kubeloop req/s",
          "raw undici req/s",
          "ratio (goal ≥ 0.8)",
          "client CPU µs/req kubeloop / undici",
        ],
        rows.map((r) => [
          r.op === "GET" ? "GET 1 ConfigMap" : `LIST ${listSize} ConfigMaps`,
          String(r.concurrency),
          fmt(median(r.kubeloop)),
          fmt(median(r.undici)),
          fmt(median(r.ratio), 2),
          `${fmt(median(r.kubeloopCpuUs))} / ${fmt(median(r.undiciCpuUs))}`,
        ]),
      ),
    );
    const path = writeResult("client-throughput", {
      repetitions,
      configMapJsonBytes: itemBytes,
      secondsPerRun: runMs / 1000,
      rateLimit: "disabled (qps: Infinity)",
      goal: { ratio: 0.8 },
      cases: rows.map((r) => ({
        ...r,
        median: {
          kubeloop: median(r.kubeloop),
          undici: median(r.undici),
          ratio: median(r.ratio),
          kubeloopCpuUs: median(r.kubeloopCpuUs),
          undiciCpuUs: median(r.undiciCpuUs),
        },
      })),
    });
    console.log(`\nwrote ${path}`);
  } finally {
    await client.close();
    await raw.agent.close();
  }
} finally {
  await cluster.stop();
}
