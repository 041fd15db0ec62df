/**
 * Gets the peers ready before a run: the Node peers' packages (`npm ci --prefix bench/peers`, only
 * when missing or stale) and the controller-runtime binaries (the Widget operator, the webhook
 * server of bench/webhooks.ts), each built once per machine into `<kubeloop cache>/bench/` under
 * a key of its sources and the Go version (never into the repository).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot } from "../../../src/cluster/index.ts";
import { peersDir, repoRoot } from "./paths.ts";

/** Installs the Node peers when their lock file is newer than the install. */
export function ensureNodePeers(log: (line: string) => void): void {
  const modules = join(peersDir, "node_modules");
  const marker = join(modules, ".package-lock.json");
  const lock = join(peersDir, "package-lock.json");
  if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs) {
    log("installing the Node peers: npm ci --prefix bench/peers");
    execFileSync("npm", ["ci", "--prefix", peersDir, "--no-audit", "--no-fund"], { stdio: "inherit" });
  }
}

/**
 * The `node` executable the Node contenders run on: `lts`, the Node.js LTS of the generated
 * Dockerfile's base image (node:24-slim, installed into the kubeloop cache by scripts/node-lts.sh
 * when missing), since that is what a deployed operator runs on; `current`, the runner's own.
 */
export function nodeForContenders(choice: string, log: (line: string) => void): string {
  if (choice === "current") return process.execPath;
  if (choice !== "lts") throw new Error(`--node ${choice}: choose lts or current`);
  log("the Node contenders run on the Node.js LTS of the generated Dockerfile (scripts/node-lts.sh)");
  const bin = execFileSync("bash", [join(repoRoot, "scripts", "node-lts.sh")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return join(bin.toString().trim(), "node");
}

/** The version of the `node` at `path`, as `node --version` prints it. */
export function nodeVersion(path: string): string {
  return execFileSync(path, ["--version"]).toString().trim();
}

/** The Go toolchain's version line. */
export function goVersion(): string {
  return execFileSync("go", ["version"], { env: { ...process.env, GOTOOLCHAIN: "local" } })
    .toString()
    .trim();
}

/** Builds the controller-runtime contender once per source and Go version; returns the binary. */
export function ensureGoPeer(log: (line: string) => void): string {
  return ensureGoBinary(".", "widgets", log);
}

/**
 * Builds the Go program in `pkg` (a folder of the controller-runtime module, `.` for the Widget
 * operator) into `<kubeloop cache>/bench/`, once per go.mod, go.sum, its main.go and the Go
 * version; returns the binary `name`.
 */
export function ensureGoBinary(pkg: string, name: string, log: (line: string) => void): string {
  const dir = join(peersDir, "controller-runtime");
  const hash = createHash("sha256");
  for (const f of ["go.mod", "go.sum", join(pkg, "main.go")]) hash.update(readFileSync(join(dir, f)));
  hash.update(goVersion());
  const prefix = pkg === "." ? "controller-runtime" : `controller-runtime-${name}`;
  const out = join(cacheRoot(), "bench", `${prefix}-${hash.digest("hex").slice(0, 16)}`);
  const binary = join(out, name);
  if (existsSync(binary)) return binary;
  log(`building the controller-runtime ${name} program into ${out} (once; a few minutes on 2 cores)`);
  mkdirSync(out, { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  execFileSync("go", ["build", "-trimpath", "-o", tmp, `./${pkg}`], {
    cwd: dir,
    stdio: "inherit",
    env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" },
  });
  renameSync(tmp, binary);
  return binary;
}
