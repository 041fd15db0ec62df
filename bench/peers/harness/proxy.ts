/** The runner's side of harness/proxy-child.ts: start a counting proxy in front of a cluster. */
import { type ChildProcess, fork } from "node:child_process";
import { join } from "node:path";
import type { Cluster } from "../../../src/cluster/index.ts";
import { type RequestCounts, upstreamFromKubeconfig } from "../../../src/testing/proxy/index.ts";
import { repoRoot } from "./paths.ts";

/** A running counting proxy. */
export interface CountingProxy {
  /** Kubeconfig pointing at the proxy (admin credentials). */
  readonly kubeconfig: string;
  readonly pid: number;
  counts(): Promise<RequestCounts>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export async function startCountingProxy(cluster: Cluster): Promise<CountingProxy> {
  const child: ChildProcess = fork(join(import.meta.dirname, "proxy-child.ts"), [], {
    cwd: repoRoot,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let nextId = 1;
  const waiting = new Map<number, (msg: { id?: number; counts?: RequestCounts }) => void>();
  const ready = new Promise<{ kubeconfig: string }>((resolve, reject) => {
    child.once("message", (msg) => resolve(msg as { kubeconfig: string }));
    child.once("exit", (code) => reject(new Error(`the proxy process exited (${code}) before it was ready`)));
  });
  child.on("message", (msg: { id?: number }) => {
    if (msg.id === undefined) return;
    waiting.get(msg.id)?.(msg);
    waiting.delete(msg.id);
  });
  const ask = (type: string) =>
    new Promise<{ id?: number; counts?: RequestCounts }>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.send({ id, type });
    });
  child.send({
    upstream: upstreamFromKubeconfig(cluster.kubeconfig),
    serving: {
      ...(await cluster.issueCertificate({
        commonName: "kubeloop-proxy",
        hosts: ["127.0.0.1", "localhost"],
        usage: "server",
      })),
      caPem: cluster.caPem,
    },
    clientCa: cluster.caPem,
  });
  const { kubeconfig } = await ready;
  return {
    kubeconfig,
    pid: child.pid ?? 0,
    counts: async () => (await ask("counts")).counts as RequestCounts,
    reset: async () => void (await ask("reset")),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      await Promise.race([ask("stop"), exited]);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
