/**
 * The load generator: AdmissionReview POSTs over HTTPS with keep-alive, as the apiserver's webhook
 * client sends them over HTTP/1.1 (one connection per request in flight), `concurrency` in flight
 * at all times for a warm-up and then a measured window. Each request's latency is taken from
 * before it is sent to its whole answer read; every answer is checked (reviews.ts). The server's
 * CPU time and the generator's own are read at both edges of the window, and only requests that
 * complete inside it count.
 * HTTP/1.1 on both sides: Node's https server speaks nothing else, and the Kubebuilder scaffold
 * turns HTTP/2 off in controller-runtime's.
 */
import { Pool } from "undici";
import { bodyOf, type ReviewTemplate, wrongAnswer } from "./reviews.ts";

/** What a load run needs. */
export interface LoadOptions {
  /** e.g. `https://127.0.0.1:9443` */
  readonly origin: string;
  /** The webhook's path. */
  readonly path: string;
  /** The CA that signed the server's certificate (PEM). */
  readonly ca: string;
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly templates: readonly ReviewTemplate[];
  /** The server's CPU seconds so far (`BenchProcess.cpuSeconds`). */
  readonly serverCpuSeconds: () => number;
}

/** What a load run measured inside its window. */
export interface LoadResult {
  /** Latencies of the requests that completed in the window, ms. */
  readonly latenciesMs: number[];
  /** The window's actual length, ms. */
  readonly windowMs: number;
  /** The server's CPU seconds in the window. */
  readonly serverCpuSeconds: number;
  /** This process's (the load generator's) CPU seconds in the window. */
  readonly generatorCpuSeconds: number;
  /** Requests sent in all, warm-up included. */
  readonly sent: number;
  /** How many answers were wrong or failed, warm-up included, and the first few. */
  readonly wrong: number;
  readonly wrongExamples: string[];
}

interface Edge {
  at: number;
  cpu: number;
  own: number;
}

const ownCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** Runs the load against one server; see the module's description. */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const pool = new Pool(o.origin, { connections: o.concurrency, pipelining: 1, connect: { ca: o.ca } });
  const done: number[] = [];
  const latencies: number[] = [];
  const wrongExamples: string[] = [];
  let wrong = 0;
  let sent = 0;
  const edges: Edge[] = [];
  const edge = () => edges.push({ at: performance.now(), cpu: o.serverCpuSeconds(), own: ownCpuSeconds() });
  const timers = [setTimeout(edge, o.warmupMs), setTimeout(edge, o.warmupMs + o.durationMs)];
  const headers = { "content-type": "application/json", accept: "application/json" };
  const one = async (i: number): Promise<void> => {
    const template = o.templates[i % o.templates.length] as ReviewTemplate;
    const uid = `r-${i}`;
    const started = performance.now();
    let problem: string | undefined;
    try {
      const res = await pool.request({ path: o.path, method: "POST", headers, body: bodyOf(template, uid) });
      const text = await res.body.text();
      const at = performance.now();
      done.push(at);
      latencies.push(at - started);
      problem = wrongAnswer(res.statusCode, text, uid, template.allowed);
    } catch (err) {
      problem = `request ${uid} failed: ${(err as Error).message}`;
    }
    if (problem && wrong++ < 5) wrongExamples.push(problem);
  };
  // Requests go on until the window's end edge is taken, so the window never has idle time.
  const worker = async () => {
    while (edges.length < 2) await one(sent++);
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  for (const t of timers) clearTimeout(t);
  await pool.close();
  return { ...inWindow(done, latencies, edges), sent, wrong, wrongExamples };
}

/** The latencies of requests done between the two edges, the window's length and the CPU used in it. */
function inWindow(done: number[], latencies: number[], edges: Edge[]) {
  const [start, end] = edges;
  if (!start || !end) throw new Error("the measured window did not close: the load ended early");
  const latenciesMs = latencies.filter(
    (_, i) => (done[i] as number) >= start.at && (done[i] as number) < end.at,
  );
  return {
    latenciesMs,
    windowMs: end.at - start.at,
    serverCpuSeconds: end.cpu - start.cpu,
    generatorCpuSeconds: end.own - start.own,
  };
}
