/** What the numbers were measured on, and the version of every contender. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { versions } from "../../../src/cluster/index.ts";
import { peersDir, repoRoot } from "./paths.ts";
import { goVersion, nodeVersion } from "./setup.ts";

export interface MachineDescription {
  cpu: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  go: string;
  loadAverageAtStart: number;
  cluster: string;
  contenders: Record<string, string>;
}

const packageVersion = (path: string) =>
  (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { cwd: repoRoot }).toString().trim();
  } catch {
    return "";
  }
}

/** The version bench/peers/controller-runtime/go.mod requires of `module`. */
export function goModVersion(module: string): string {
  const mod = readFileSync(join(peersDir, "controller-runtime", "go.mod"), "utf8");
  return new RegExp(`${module.replace(/[./]/g, "\\$&")} (v\\S+)`).exec(mod)?.[1] ?? "?";
}

/** kubeloop's version and commit, e.g. `kubeloop 0.1.0 at 8feee20 + uncommitted changes in src/`. */
export function kubeloopRevision(): string {
  const dirty = git(["status", "--porcelain", "--", "src"]) ? " + uncommitted changes in src/" : "";
  return `kubeloop ${packageVersion(join(repoRoot, "package.json"))} at ${git(["rev-parse", "--short", "HEAD"])}${dirty}`;
}

/** The machine, the cluster and every contender's version, for the report. */
export function describeMachine(goBinary: string, node: string): MachineDescription {
  const modules = join(peersDir, "node_modules");
  const v = versions;
  const plainNode = `plain node ${nodeVersion(node)}`;
  return {
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: `${nodeVersion(node)} for the Node contenders (the runner: ${process.version})`,
    go: goBinary ? goVersion() : "not used",
    loadAverageAtStart: loadavg()[0] ?? 0,
    cluster: `Kubernetes ${v.kubernetes}, etcd ${v.etcd} (local control plane, no scheduler or kwok)`,
    contenders: {
      kubeloop: `${kubeloopRevision()}, the contender and every package bundled into one file by kubeloop build, run by ${plainNode}`,
      "kubeloop-unbundled": `${kubeloopRevision()}, from its built dist/ (npm run build), packages from node_modules; the contender compiled ahead of time with esbuild, run by ${plainNode}`,
      "kubeloop-own-writes-off":
        "the kubeloop contender with BENCH_READ_OWN_WRITES=off: readYourOwnWrites false",
      "controller-runtime": `sigs.k8s.io/controller-runtime ${goModVersion("sigs.k8s.io/controller-runtime")}, k8s.io/client-go ${goModVersion("k8s.io/client-go")}`,
      "client-node": `@kubernetes/client-node ${packageVersion(join(modules, "@kubernetes/client-node/package.json"))}, ${plainNode}`,
      "dot-i": `@dot-i/k8s-operator ${packageVersion(join(modules, "@dot-i/k8s-operator/package.json"))} on @kubernetes/client-node ${packageVersion(join(modules, "@dot-i/k8s-operator/node_modules/@kubernetes/client-node/package.json"))}, ${plainNode}`,
      floor: `raw undici requests, compiled ahead of time with esbuild, run by ${plainNode}`,
    },
  };
}
