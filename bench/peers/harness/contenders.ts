/**
 * The contenders and how each is started as its own OS process: the command line, then a
 * {@link BenchProcess} (progress lines `BENCH ready`, `BENCH first-reconcile`, `BENCH
 * all-reconciled`, CPU time and peak RSS). Output goes to a log file per process.
 */
import { join } from "node:path";
import { OPERATOR_NODE_FLAGS } from "../../../src/generate/index.ts";
import { peersDir } from "./paths.ts";
import { BenchProcess } from "./process.ts";

export type ContenderName =
  | "kubeloop"
  | "kubeloop-own-writes-off"
  | "kubeloop-unbundled"
  | "controller-runtime"
  | "client-node"
  | "dot-i"
  | "floor";
export const contenderNames: ContenderName[] = [
  "kubeloop",
  "kubeloop-own-writes-off",
  "kubeloop-unbundled",
  "controller-runtime",
  "client-node",
  "dot-i",
  "floor",
];

/**
 * Variants of a contender, for measuring one of its settings against its defaults in the same
 * run: the same compiled program with an environment of its own. Only run when named.
 */
const variants: Partial<Record<ContenderName, { of: ContenderName; env: Record<string, string> }>> = {
  "kubeloop-own-writes-off": { of: "kubeloop", env: { BENCH_READ_OWN_WRITES: "off" } },
};

/**
 * Builds of a contender other than the one shipped, compared with it in the same run: only run
 * when named. `kubeloop-unbundled` is the kubeloop contender as separate modules (kubeloop from
 * dist/, packages from node_modules), as operators ran before `kubeloop build`.
 */
const otherBuilds: ContenderName[] = ["kubeloop-unbundled"];

/** The contenders a run has when none are named: every one but the variants and other builds. */
export const defaultContenders = contenderNames.filter(
  (name) => !variants[name] && !otherBuilds.includes(name),
);

/** What each contender is, for the report. */
export const contenderLabels: Record<ContenderName, string> = {
  kubeloop: "kubeloop (this repo, bundled by kubeloop build)",
  "kubeloop-own-writes-off": "kubeloop, readYourOwnWrites off",
  "kubeloop-unbundled": "kubeloop, not bundled (dist/ and node_modules)",
  "controller-runtime": "controller-runtime (Go)",
  "client-node": "client-node 1.4 informers",
  "dot-i": "@dot-i/k8s-operator",
  floor: "floor (raw requests)",
};

export interface LaunchOptions {
  kubeconfig: string;
  env: Record<string, string>;
  logFile: string;
  /** Node contenders: write a CPU profile into this directory on exit. */
  cpuProfileDir?: string;
  /** The `node` executable of the Node contenders. */
  node: string;
  /** Path of the built controller-runtime binary. */
  goBinary: string;
  /** The compiled entry of each TypeScript contender (`buildContenders`). */
  built: Partial<Record<ContenderName, string>>;
}

/** The JavaScript peers, run as they are. */
const javaScriptEntry: Partial<Record<ContenderName, string>> = {
  "client-node": "client-node/operator.mjs",
  "dot-i": "dot-i/operator.mjs",
};

/**
 * The command line of a contender: the Go binary, or `node` (`opts.node`) on JavaScript — the peers' own,
 * or the TypeScript contenders compiled ahead of time with kubeloop from dist/ (harness/build.ts).
 * The shipped kubeloop contender (and its variants) runs with the generated Dockerfile's node flags.
 */
export function commandOf(name: ContenderName, opts: LaunchOptions): { cmd: string; args: string[] } {
  if (name === "controller-runtime") return { cmd: opts.goBinary, args: [] };
  const prof = opts.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${opts.cpuProfileDir}`] : [];
  const peer = javaScriptEntry[name];
  const entry = peer ? join(peersDir, peer) : opts.built[variants[name]?.of ?? name];
  if (!entry) throw new Error(`${name} was not compiled: run buildContenders first`);
  const shipped = (variants[name]?.of ?? name) === "kubeloop" ? OPERATOR_NODE_FLAGS : [];
  return { cmd: opts.node, args: [...shipped, ...prof, entry] };
}

/** A running contender process: {@link BenchProcess} started with {@link commandOf}. */
export class ContenderProcess extends BenchProcess {
  override readonly name: ContenderName;

  constructor(name: ContenderName, opts: LaunchOptions) {
    super(name, commandOf(name, opts), {
      env: { ...opts.env, ...variants[name]?.env, KUBECONFIG: opts.kubeconfig, LOG_LEVEL: "info" },
      logFile: opts.logFile,
    });
    this.name = name;
  }
}
