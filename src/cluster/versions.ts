import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The versions the local control plane is built at, from `controlplane/versions.json`. */
export interface ControlPlaneVersions {
  kubernetes: string;
  etcd: string;
  kwok: string;
  /** Helm, built for the tests of `kubeloop generate --helm`'s chart (not part of the control plane). */
  helm: string;
}

/** Where the Go wrapper modules and kwok stages live (`<package root>/controlplane`). */
export const controlplaneDir = resolve(fileURLToPath(import.meta.url), "../../../controlplane");

/** The pinned versions. */
export const versions: ControlPlaneVersions = JSON.parse(
  readFileSync(join(controlplaneDir, "versions.json"), "utf8"),
);

/** The wrapper modules under `controlplane/`, one per upstream project. */
const modules = ["kubernetes", "etcd", "kwok"] as const;

/**
 * The Go version the control plane needs: the highest `go` directive of the wrapper modules'
 * go.mod files (e.g. `1.26.0`), so it follows `controlplane/update.ts` when Kubernetes moves on.
 */
export const requiredGo: string = modules
  .map((m) => /^go (\S+)$/m.exec(readFileSync(join(controlplaneDir, m, "go.mod"), "utf8"))?.[1] ?? "0")
  .reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b));

/** Compares dotted versions (`1.26.8`, `1.26`) part by part as numbers; a missing part counts as 0. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(".").map((n) => Number.parseInt(n, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const difference = (x[i] ?? 0) - (y[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** One binary of the control plane (or a tool built the same way) and how to build it. */
export interface Component {
  name:
    | "kube-apiserver"
    | "kube-controller-manager"
    | "kube-scheduler"
    | "kubectl"
    | "etcd"
    | "kwok"
    | "helm";
  /** Wrapper module under `controlplane/`. */
  module: (typeof modules)[number] | "helm";
  /** Go main package. */
  pkg: string;
}

/** Every binary, in build order. */
export const components: readonly Component[] = [
  { name: "etcd", module: "etcd", pkg: "go.etcd.io/etcd/server/v3" },
  { name: "kube-apiserver", module: "kubernetes", pkg: "k8s.io/kubernetes/cmd/kube-apiserver" },
  {
    name: "kube-controller-manager",
    module: "kubernetes",
    pkg: "k8s.io/kubernetes/cmd/kube-controller-manager",
  },
  { name: "kube-scheduler", module: "kubernetes", pkg: "k8s.io/kubernetes/cmd/kube-scheduler" },
  { name: "kubectl", module: "kubernetes", pkg: "k8s.io/kubernetes/cmd/kubectl" },
  { name: "kwok", module: "kwok", pkg: "sigs.k8s.io/kwok/cmd/kwok" },
];

/** Helm, built from `controlplane/helm` into its own cache entry (see `ensureHelm`). */
export const helmComponent: Component = { name: "helm", module: "helm", pkg: "helm.sh/helm/v4/cmd/helm" };

/**
 * `-ldflags` that stamp the Kubernetes version, so `--version` and `/version` report it, and
 * Helm's version, as its Makefile does.
 */
export function ldflags(component: Component): string {
  const flags = ["-s", "-w"];
  if (component.module === "helm") flags.push(`-X helm.sh/helm/v4/internal/version.version=${versions.helm}`);
  if (component.module !== "kubernetes") return flags.join(" ");
  const [, major = "", minor = ""] = /^v(\d+)\.(\d+)/.exec(versions.kubernetes) ?? [];
  for (const pkg of ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"]) {
    flags.push(
      `-X ${pkg}.gitVersion=${versions.kubernetes}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
      `-X ${pkg}.buildDate=1970-01-01T00:00:00Z`,
    );
  }
  return flags.join(" ");
}

/**
 * The cache key of a build: every version, the Go version, and a hash of the wrapper modules'
 * go.mod/go.sum and the build flags, so any change to what would be built gives a new key.
 */
export function cacheKey(goVersion: string): string {
  const hash = createHash("sha256");
  for (const module of modules) {
    for (const file of ["go.mod", "go.sum"]) hash.update(readFileSync(join(controlplaneDir, module, file)));
  }
  for (const c of components) hash.update(`${c.name} ${c.pkg} ${ldflags(c)}\n`);
  const { kubernetes, etcd, kwok } = versions;
  return `k8s-${kubernetes}_etcd-${etcd}_kwok-${kwok}_${goVersion}_${hash.digest("hex").slice(0, 12)}`;
}
