/**
 * Starts and stops a real local control plane: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler and kwok (standing in for kubelets), from binaries built by `assets.ts`.
 *
 * Each run gets its own directory (PKI, kubeconfig, etcd data, one log file per component),
 * loopback ports chosen at random, and a reaper that cleans up if the starting process dies.
 */
import { execFile } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import { systemClock } from "../clock/index.ts";
import { issueCertificate, type KeyPair, type LeafRequest } from "../tls/index.ts";
import { AdminApi, insecureHealthy } from "./admin-api.ts";
import { type Assets, ensureAssets, formatElapsed, type ProgressReporter } from "./assets.ts";
import { type ComponentName, componentArgs, type Ports, prepareRunDir } from "./components.ts";
import { StartError } from "./errors.ts";
import { buildKubeconfig, type KubeconfigDocument, kubeconfigYaml } from "./kubeconfig.ts";
import { freePort } from "./ports.ts";
import { type ComponentProcess, startProcess, stopProcess, waitReady } from "./process.ts";
import { startReaper } from "./reaper.ts";

const execFileAsync = promisify(execFile);

/** The components that can be switched off; etcd and kube-apiserver always run. */
export interface ClusterComponents {
  /** kube-controller-manager: garbage collection, Deployments, Jobs, namespaces. Default true. */
  controllerManager?: boolean;
  /** kube-scheduler: binds pods to nodes. Default true. */
  scheduler?: boolean;
  /** kwok: fake kubelets that run pods. Default true. */
  kwok?: boolean;
}

/** Options for {@link startCluster}. */
export interface ClusterOptions {
  /** Number of kwok nodes to create. Default 1. */
  nodes?: number;
  /** Which optional components to run. */
  components?: ClusterComponents;
  /** Use this directory for the run and keep it after stop. Default: a new temporary directory, removed on stop. */
  runDir?: string;
  /** Extra kube-apiserver flags, e.g. `["--watch-cache=false"]`. */
  apiserverArgs?: string[];
  /** Progress lines while building or starting. Default: stderr. */
  report?: ProgressReporter;
  /** How long each component may take to become ready. Default 120 s. */
  readyTimeoutMs?: number;
}

/** The components that watch the apiserver, restarted with it. */
const dependents: readonly ComponentName[] = ["kube-controller-manager", "kube-scheduler"];

/** A running local control plane. */
export interface Cluster {
  /** `https://127.0.0.1:<port>`. */
  readonly server: string;
  /** Path of the admin kubeconfig (client certificate in `system:masters`). */
  readonly kubeconfigPath: string;
  /** The admin kubeconfig, parsed. */
  readonly kubeconfig: KubeconfigDocument;
  /** The run directory: PKI, kubeconfig, etcd data and `<component>.log` files. */
  readonly runDir: string;
  /** Paths of the binaries, including `kubectl`. */
  readonly assets: Assets;
  /** etcd's client URL, `http://127.0.0.1:<port>`. */
  readonly etcdUrl: string;
  /** PIDs of the running components. */
  pids(): Partial<Record<ComponentName, number>>;
  /**
   * Kills a component (SIGKILL) and starts it again with the same flags; resolves once it is ready.
   * Restarting the kube-apiserver restarts the controller manager and the scheduler after
   * it, which otherwise back off for up to half a minute (more with each restart) before they
   * watch again, or stall waiting to read back writes made before the restart.
   */
  restart(component: ComponentName, opts?: { downMs?: number }): Promise<void>;
  /** Compacts etcd's history up to its current revision, so older resourceVersions expire. Returns the revision. */
  compactEtcd(): Promise<number>;
  /** Writes a kubeconfig for another user (client certificate signed by the cluster CA) and returns its path. */
  userKubeconfig(user: string, groups?: string[]): Promise<string>;
  /** The cluster CA's certificate (PEM), which clients of this cluster trust. */
  readonly caPem: string;
  /** Issues a certificate signed by the cluster CA, e.g. for a proxy placed in front of the apiserver. */
  issueCertificate(request: LeafRequest): Promise<KeyPair>;
  /** Runs the built kubectl against this cluster. */
  kubectl(args: string[], opts?: { input?: string; timeoutMs?: number }): Promise<KubectlResult>;
  /** Stops every component this cluster started (by PID) and removes a temporary run directory. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** What a kubectl invocation printed and how it exited. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Starts a local control plane and waits until it is ready: apiserver `/readyz`, the `default`
 * ServiceAccount (the controller manager is working), the scheduler's health, and every kwok
 * node `Ready`. Builds the binaries first if this machine has none.
 *
 * @example
 * ```ts
 * await using cluster = await startCluster({ nodes: 2 });
 * process.env.KUBECONFIG = cluster.kubeconfigPath;
 * ```
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const assets = await ensureAssets(options.report);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(assets, options);
    } catch (err) {
      const portClash = err instanceof StartError && /address already in use/.test(err.message);
      if (!portClash || attempt >= 3) throw err;
    }
  }
}

async function startOnce(assets: Assets, options: ClusterOptions): Promise<Cluster> {
  const started = systemClock.now();
  const report = options.report ?? ((m: string) => process.stderr.write(`kubeloop: ${m}\n`));
  const timeout = options.readyTimeoutMs ?? 120_000;
  const ports: Ports = {
    etcdClient: await freePort(),
    etcdPeer: await freePort(),
    apiserver: await freePort(),
    controllerManager: await freePort(),
    scheduler: await freePort(),
  };
  const server = `https://127.0.0.1:${ports.apiserver}`;
  const run = await prepareRunDir(options.runDir, server);
  const temporary = options.runDir === undefined;
  const pidsFile = run.path("pids");
  const procs = new Map<ComponentName, ComponentProcess>();
  const api = new AdminApi(server, { ca: run.ca.certPem, cert: run.admin.certPem, key: run.admin.keyPem });
  const wanted = { controllerManager: true, scheduler: true, kwok: true, ...options.components };

  const recordPids = () =>
    writeFileSync(pidsFile, [...procs.values()].map((p) => `${p.pid} ${p.name}\n`).join(""));
  const launch = (name: ComponentName) => {
    const proc = startProcess(
      name,
      assets[name],
      componentArgs(name, run, ports, options.apiserverArgs),
      run.path(`${name}.log`),
    );
    procs.set(name, proc);
    recordPids();
    return proc;
  };
  const ready = (name: ComponentName) =>
    readiness(name, procs.get(name) as ComponentProcess, api, ports, timeout, options.nodes ?? 1);
  const relaunch = async (name: ComponentName) => {
    await stopProcess(procs.get(name) as ComponentProcess, 0);
    launch(name);
    await ready(name);
  };

  const stop = async () => {
    for (const name of [...procs.keys()].reverse()) await stopProcess(procs.get(name) as ComponentProcess);
    procs.clear();
    await api.close();
    if (temporary) rmSync(run.dir, { recursive: true, force: true });
    else rmSync(pidsFile, { force: true });
  };

  writeFileSync(pidsFile, "");
  startReaper(pidsFile, run.dir, temporary);
  try {
    launch("etcd");
    await ready("etcd");
    launch("kube-apiserver");
    await ready("kube-apiserver");
    const optional: ComponentName[] = [];
    if (wanted.controllerManager) optional.push("kube-controller-manager");
    if (wanted.scheduler) optional.push("kube-scheduler");
    if (wanted.kwok) optional.push("kwok");
    for (const name of optional) launch(name);
    if (wanted.kwok) await createNodes(api, options.nodes ?? 1);
    await Promise.all(optional.map(ready));
    report(
      `control plane ready in ${formatElapsed(systemClock.now() - started)} (${server}, run dir ${run.dir})`,
    );
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    server,
    kubeconfigPath: run.kubeconfigPath,
    kubeconfig: run.kubeconfig,
    runDir: run.dir,
    assets,
    etcdUrl: `http://127.0.0.1:${ports.etcdClient}`,
    pids: () => Object.fromEntries([...procs].map(([name, p]) => [name, p.pid])),
    async restart(name, opts = {}) {
      const proc = procs.get(name);
      if (proc) await stopProcess(proc, 0);
      await systemClock.sleep(opts.downMs ?? 0);
      launch(name);
      await ready(name);
      // The components that watch the apiserver back off while it is away, exponentially and
      // for longer with each restart (client-go's reflector), so a test cluster could stall for
      // half a minute after it is back; the controller manager also refuses to act while its
      // informers have not read back its own last writes ("read version ... is not as new as
      // written version"). They are restarted with the apiserver and start from fresh lists.
      if (name === "kube-apiserver") await Promise.all(dependents.filter((d) => procs.has(d)).map(relaunch));
    },
    compactEtcd: () => compactEtcd(`http://127.0.0.1:${ports.etcdClient}`),
    caPem: run.ca.certPem,
    issueCertificate: (request) => issueCertificate(run.ca, request),
    async userKubeconfig(user, groups = []) {
      const pair = await issueCertificate(run.ca, {
        commonName: user,
        organizations: groups,
        usage: "client",
      });
      const doc = buildKubeconfig({ name: "kubeloop", server, caPem: run.ca.certPem, ...pair });
      const path = run.path(`kubeconfig-${user.replace(/[^\w.-]/g, "_")}`);
      writeFileSync(path, kubeconfigYaml(doc), { mode: 0o600 });
      return path;
    },
    kubectl: (args, opts = {}) => kubectl(assets.kubectl, run.kubeconfigPath, args, opts),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

async function readiness(
  name: ComponentName,
  proc: ComponentProcess,
  api: AdminApi,
  ports: Ports,
  timeout: number,
  nodeCount: number,
): Promise<void> {
  switch (name) {
    case "etcd":
      return waitReady(proc, () => etcdHealthy(`http://127.0.0.1:${ports.etcdClient}`), timeout);
    case "kube-apiserver":
      return waitReady(proc, () => api.ok("/readyz"), timeout, "did not report /readyz");
    case "kube-controller-manager":
      await waitReady(
        proc,
        () => insecureHealthy(`https://127.0.0.1:${ports.controllerManager}/healthz`),
        timeout,
      );
      return waitReady(
        proc,
        () => api.ok("/api/v1/namespaces/default/serviceaccounts/default"),
        timeout,
        "did not create the default ServiceAccount",
      );
    case "kube-scheduler":
      return waitReady(proc, () => insecureHealthy(`https://127.0.0.1:${ports.scheduler}/healthz`), timeout);
    case "kwok":
      return waitReady(proc, () => nodesReady(api, nodeCount), timeout, "did not make every node Ready");
  }
}

/** Whether the etcd at `url` reports itself healthy. */
export async function etcdHealthy(url: string): Promise<boolean> {
  const res = await fetch(`${url}/health`);
  return res.ok && ((await res.json()) as { health?: string }).health === "true";
}

async function createNodes(api: AdminApi, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const name = `kwok-node-${i}`;
    const { status, body } = await api.call("POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        labels: {
          "kubernetes.io/hostname": name,
          "kubernetes.io/os": "linux",
          "kubernetes.io/arch": "amd64",
          type: "kwok",
        },
        annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
      },
      status: {
        allocatable: { cpu: "32", memory: "256Gi", pods: "110" },
        capacity: { cpu: "32", memory: "256Gi", pods: "110" },
      },
    });
    if (status !== 201 && status !== 409)
      throw new Error(`creating node ${name} failed (${status}): ${JSON.stringify(body)}`);
  }
}

/** Whether `count` nodes (or more) exist and every one is Ready. */
async function nodesReady(api: AdminApi, count: number): Promise<boolean> {
  const { status, body } = await api.call("GET", "/api/v1/nodes");
  if (status !== 200) return false;
  const items = (body as { items: { status?: { conditions?: { type: string; status: string }[] } }[] }).items;
  return (
    items.length >= count &&
    items.every((n) => n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
  );
}

async function compactEtcd(url: string): Promise<number> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: "POST", body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`etcd ${path} failed: ${res.status} ${await res.text()}`);
    return (await res.json()) as { header?: { revision?: string } };
  };
  const revision = Number(
    (await post("/v3/kv/range", { key: Buffer.from("/").toString("base64") })).header?.revision,
  );
  await post("/v3/kv/compaction", { revision, physical: true });
  return revision;
}

async function kubectl(
  binary: string,
  kubeconfigPath: string,
  args: string[],
  opts: { input?: string; timeoutMs?: number },
): Promise<KubectlResult> {
  const child = execFileAsync(binary, [`--kubeconfig=${kubeconfigPath}`, ...args], {
    timeout: opts.timeoutMs ?? 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (opts.input !== undefined) {
    child.child.stdin?.end(opts.input);
  }
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === "number" ? e.code : 1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? String(err),
    };
  }
}
