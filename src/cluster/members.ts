/**
 * Cheap member clusters for multi-cluster tests: one etcd (a cluster's own, or one started here)
 * and, per member, only a kube-apiserver storing under an `--etcd-prefix` of its own — no
 * controller manager, scheduler or kwok, so no pods run, but every API (CRDs, RBAC, watches) does.
 * Each member has its own port and kubeconfig; they share one CA and admin certificate.
 */
import { rmSync, writeFileSync } from "node:fs";
import { systemClock } from "../clock/index.ts";
import { AdminApi } from "./admin-api.ts";
import { ensureAssets, formatElapsed, type ProgressReporter } from "./assets.ts";
import { etcdHealthy } from "./cluster.ts";
import { componentArgs, type Ports, prepareRunDir, type RunFiles } from "./components.ts";
import { buildKubeconfig, type KubeconfigDocument, kubeconfigYaml } from "./kubeconfig.ts";
import { freePort } from "./ports.ts";
import { type ComponentProcess, startProcess, stopProcess, waitReady } from "./process.ts";
import { startReaper } from "./reaper.ts";

/** Options for {@link startMemberClusters}. */
export interface MemberClusterOptions {
  /** How many members to start, named `member-0`, `member-1`, .... */
  count: number;
  /** The etcd to store in, e.g. a `Cluster`'s `etcdUrl`. Default: an etcd started for the members. */
  etcdUrl?: string;
  /** Extra kube-apiserver flags for every member. */
  apiserverArgs?: string[];
  /** Progress lines. Default: stderr. */
  report?: ProgressReporter;
  /** How long each apiserver may take to become ready. Default 120 s. */
  readyTimeoutMs?: number;
}

/** One member: a kube-apiserver with an etcd prefix of its own. */
export interface MemberCluster {
  /** `member-<i>`, also the last segment of its etcd prefix. */
  readonly name: string;
  /** `https://127.0.0.1:<port>`. */
  readonly server: string;
  /** Path of its admin kubeconfig. */
  readonly kubeconfigPath: string;
  /** Its admin kubeconfig, parsed. */
  readonly kubeconfig: KubeconfigDocument;
  /** The PID of its apiserver; undefined while it is stopped. */
  pid(): number | undefined;
  /** Stops its apiserver (SIGKILL): its clients see connections refused until {@link start}. */
  stop(): Promise<void>;
  /** Starts its apiserver again, on the same port and storage; resolves once `/readyz` answers. */
  start(): Promise<void>;
}

/** Running member clusters. */
export interface MemberClusters {
  readonly members: readonly MemberCluster[];
  /** Stops every member and the etcd started for them, and removes their run directory. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The processes of a member set, recorded in the run's pid file for the reaper. */
class Processes {
  readonly #procs = new Map<string, ComponentProcess>();
  readonly #pidsFile: string;

  constructor(run: RunFiles) {
    this.#pidsFile = run.path("pids");
    writeFileSync(this.#pidsFile, "");
    startReaper(this.#pidsFile, run.dir, true);
  }

  set(key: string, proc: ComponentProcess): void {
    this.#procs.set(key, proc);
    writeFileSync(this.#pidsFile, [...this.#procs.values()].map((p) => `${p.pid} ${p.name}\n`).join(""));
  }

  pid(key: string): number | undefined {
    const proc = this.#procs.get(key);
    return proc && proc.child.exitCode === null && proc.child.signalCode === null ? proc.pid : undefined;
  }

  async stop(key: string, graceMs?: number): Promise<void> {
    const proc = this.#procs.get(key);
    if (proc) await stopProcess(proc, graceMs);
  }

  async stopAll(): Promise<void> {
    for (const key of [...this.#procs.keys()].reverse()) await this.stop(key);
    this.#procs.clear();
  }
}

/**
 * Starts `count` member clusters at once, each a kube-apiserver on one shared etcd, and waits
 * until each answers `/readyz`. For a hub and its members in tests: a member costs one process.
 *
 * @example
 * ```ts
 * await using fleet = await startMemberClusters({ count: 3 });
 * for (const member of fleet.members) console.log(member.name, member.kubeconfigPath);
 * ```
 */
export async function startMemberClusters(options: MemberClusterOptions): Promise<MemberClusters> {
  const assets = await ensureAssets(options.report);
  const report = options.report ?? ((m: string) => process.stderr.write(`kubeloop: ${m}\n`));
  const started = systemClock.now();
  const timeout = options.readyTimeoutMs ?? 120_000;
  const base = await basePorts(options.etcdUrl);
  const run = await prepareRunDir(undefined, `https://127.0.0.1:${base.apiserver}`);
  const processes = new Processes(run);
  const apis: AdminApi[] = [];
  const stop = async () => {
    await processes.stopAll();
    await Promise.all(apis.map((api) => api.close()));
    rmSync(run.dir, { recursive: true, force: true });
  };
  try {
    if (options.etcdUrl === undefined) {
      const etcd = startProcess("etcd", assets.etcd, componentArgs("etcd", run, base), run.path("etcd.log"));
      processes.set("etcd", etcd);
      await waitReady(etcd, () => etcdHealthy(`http://127.0.0.1:${base.etcdClient}`), timeout);
    }
    const launcher = { run, base, processes, apis, binary: assets["kube-apiserver"], options, timeout };
    const names = Array.from({ length: options.count }, (_, i) => `member-${i}`);
    const members = await Promise.all(names.map((name) => startMember(launcher, name)));
    report(`${options.count} member clusters ready in ${formatElapsed(systemClock.now() - started)}`);
    return { members, stop, [Symbol.asyncDispose]: stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The ports every member shares: etcd's (given or new), and a placeholder apiserver port. */
async function basePorts(etcdUrl: string | undefined): Promise<Ports> {
  const etcdClient = etcdUrl === undefined ? await freePort() : Number(new URL(etcdUrl).port);
  return {
    etcdClient,
    etcdPeer: await freePort(),
    apiserver: await freePort(),
    controllerManager: 0,
    scheduler: 0,
  };
}

/** What starting a member needs. */
interface Launcher {
  run: RunFiles;
  base: Ports;
  processes: Processes;
  apis: AdminApi[];
  binary: string;
  options: MemberClusterOptions;
  timeout: number;
}

/** Starts member `name`'s apiserver on a port of its own and writes its kubeconfig. */
async function startMember(launcher: Launcher, name: string): Promise<MemberCluster> {
  const { run, base, processes, options } = launcher;
  const ports = { ...base, apiserver: await freePort() };
  const server = `https://127.0.0.1:${ports.apiserver}`;
  const args = componentArgs("kube-apiserver", run, ports, [
    `--etcd-prefix=/kubeloop-members/${name}`,
    ...(options.apiserverArgs ?? []),
  ]);
  const api = new AdminApi(server, { ca: run.ca.certPem, cert: run.admin.certPem, key: run.admin.keyPem });
  launcher.apis.push(api);
  const start = async () => {
    const proc = startProcess(name, launcher.binary, args, run.path(`${name}.log`));
    processes.set(name, proc);
    await waitReady(proc, () => api.ok("/readyz"), launcher.timeout, "did not report /readyz");
  };
  await start();
  const kubeconfig = buildKubeconfig({ name, server, caPem: run.ca.certPem, ...run.admin });
  const kubeconfigPath = run.path(`kubeconfig-${name}`);
  writeFileSync(kubeconfigPath, kubeconfigYaml(kubeconfig), { mode: 0o600 });
  return {
    name,
    server,
    kubeconfigPath,
    kubeconfig,
    pid: () => processes.pid(name),
    stop: () => processes.stop(name, 0),
    start,
  };
}
