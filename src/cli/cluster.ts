/**
 * `kubeloop cluster up | down | status`: a named local control plane that outlives the command
 * only while `up` runs. Its state (kubeconfig, PKI, logs, the owner's PID) lives in
 * `<cache>/clusters/<name>`.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Command, Option } from "commander";
import { systemClock } from "../clock/index.ts";
import { cacheRoot, ensureAssets, ensureHelm, startCluster, versions } from "../cluster/index.ts";
import { KubeloopError } from "../errors/index.ts";

/** The directory holding a named cluster's state. */
export function clusterDir(name: string): string {
  return join(cacheRoot(), "clusters", name);
}

function ownerPid(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, "owner.pid"), "utf8"));
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

const nameOption = () => new Option("--name <name>", "which local cluster").default("default");

async function up(opts: { name: string; nodes: string }): Promise<void> {
  const dir = clusterDir(opts.name);
  const running = ownerPid(dir);
  if (running) {
    throw new KubeloopError(
      "KL_CLUSTER_RUNNING",
      `local cluster "${opts.name}" is already running (pid ${running}). Use it (export KUBECONFIG=${join(dir, "kubeconfig")}), stop it with \`kubeloop cluster down --name ${opts.name}\`, or pick another --name.`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  const cluster = await startCluster({ nodes: Number(opts.nodes), runDir: dir });
  writeFileSync(join(dir, "owner.pid"), String(process.pid));
  const kubectl = cluster.assets.kubectl;
  process.stdout.write(
    [
      `Local cluster "${opts.name}" is up: Kubernetes ${versions.kubernetes}, ${opts.nodes} kwok node(s), ${cluster.server}`,
      "",
      `  export KUBECONFIG=${cluster.kubeconfigPath}`,
      `  export PATH=${dirname(kubectl)}:$PATH   # the kubectl built for this cluster`,
      "  kubectl get nodes",
      "",
      "Press Ctrl-C to stop it and clean up.",
      "",
    ].join("\n"),
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  process.stdout.write("\nStopping the local cluster...\n");
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

async function down(opts: { name: string }): Promise<void> {
  const dir = clusterDir(opts.name);
  const pid = ownerPid(dir);
  if (pid === undefined) {
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(`Local cluster "${opts.name}" is not running.\n`);
    return;
  }
  process.kill(pid, "SIGTERM");
  const deadline = systemClock.now() + 60_000;
  while (existsSync(dir) && systemClock.now() < deadline) await systemClock.sleep(200);
  if (existsSync(dir)) {
    throw new KubeloopError(
      "KL_CLUSTER_STOP",
      `local cluster "${opts.name}" (pid ${pid}) did not stop within 60 s; stop that process by hand.`,
    );
  }
  process.stdout.write(`Local cluster "${opts.name}" stopped.\n`);
}

async function status(opts: { name: string }): Promise<void> {
  const dir = clusterDir(opts.name);
  const pid = ownerPid(dir);
  if (pid === undefined) {
    process.stdout.write(
      `Local cluster "${opts.name}" is not running. Start it with \`kubeloop cluster up\`.\n`,
    );
    process.exitCode = 3;
    return;
  }
  const lines = readFileSync(join(dir, "pids"), "utf8").trim().split("\n");
  const components = lines.map((line) => {
    const [componentPid = "", name = ""] = line.split(" ");
    let state = "running";
    try {
      process.kill(Number(componentPid), 0);
    } catch {
      state = "NOT RUNNING";
    }
    return `  ${name.padEnd(24)} pid ${componentPid.padEnd(8)} ${state}`;
  });
  process.stdout.write(
    [
      `Local cluster "${opts.name}" is running (owner pid ${pid}).`,
      `  export KUBECONFIG=${join(dir, "kubeconfig")}`,
      ...components,
      "",
    ].join("\n"),
  );
  if (components.some((c) => c.includes("NOT RUNNING"))) process.exitCode = 2;
}

async function build(opts: { withHelm?: boolean }): Promise<void> {
  const assets = await ensureAssets();
  process.stdout.write(
    `Control plane binaries (Kubernetes ${versions.kubernetes}, etcd ${versions.etcd}, kwok ${versions.kwok}):\n  ${dirname(assets.kubectl)}\n`,
  );
  if (opts.withHelm) process.stdout.write(`Helm ${versions.helm}:\n  ${await ensureHelm()}\n`);
}

/** The `cluster` command group. */
export function clusterCommand(): Command {
  const cluster = new Command("cluster").description(
    "run a real local Kubernetes control plane (etcd, apiserver, controller-manager, scheduler, kwok)",
  );
  cluster
    .command("up")
    .description("start a local cluster, print how to use it, and keep it running until Ctrl-C")
    .addOption(nameOption())
    .option("--nodes <n>", "number of kwok nodes", "1")
    .action(up);
  cluster
    .command("build")
    .description("build the control plane's binaries into the per-machine cache, or check they are there")
    .option("--with-helm", "build Helm too (for the tests of `kubeloop generate --helm`'s chart)")
    .action(build);
  cluster
    .command("down")
    .description("stop a local cluster started with `cluster up`")
    .addOption(nameOption())
    .action(down);
  cluster
    .command("status")
    .description("show whether a local cluster is running, and its components")
    .addOption(nameOption())
    .action(status);
  return cluster;
}
