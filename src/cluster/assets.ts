/**
 * Finds the control plane's binaries, building them once per machine when needed.
 *
 * Order: `KUBELOOP_ASSETS=<dir>` (existing binaries, never built), then the per-machine cache
 * (`$KUBELOOP_CACHE_DIR`, else `$XDG_CACHE_HOME/kubeloop`, else `~/.cache/kubeloop`), keyed on
 * every version and the Go version. A missing cache entry is built with the local Go toolchain
 * under a lock, so concurrent test runs build it only once.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { systemClock } from "../clock/index.ts";
import { BuildError, ToolchainError } from "./errors.ts";
import {
  type Component,
  cacheKey,
  compareVersions,
  components,
  controlplaneDir,
  ldflags,
  requiredGo,
} from "./versions.ts";

const run = promisify(execFile);

/** Reports build progress; the default writes to stderr. */
export type ProgressReporter = (message: string) => void;

/** Writes progress lines to stderr. */
export const stderrReporter: ProgressReporter = (message) => process.stderr.write(`kubeloop: ${message}\n`);

/** Absolute paths of the control plane's binaries. */
export type Assets = Record<Exclude<Component["name"], "helm">, string>;

/** The root of kubeloop's per-machine cache. */
export function cacheRoot(): string {
  if (process.env.KUBELOOP_CACHE_DIR) return process.env.KUBELOOP_CACHE_DIR;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "kubeloop");
}

function assetsIn(dir: string): Assets {
  return Object.fromEntries(components.map((c) => [c.name, join(dir, c.name)])) as Assets;
}

function missingIn(dir: string): string[] {
  return components.filter((c) => !existsSync(join(dir, c.name))).map((c) => c.name);
}

/** The local Go toolchain's version (`go1.26.8`); throws {@link ToolchainError} when missing or too old. */
export async function goVersion(env: NodeJS.ProcessEnv): Promise<string> {
  let version: string;
  try {
    version = (await run("go", ["env", "GOVERSION"], { env: goEnv(env) })).stdout.trim();
  } catch {
    throw new ToolchainError("No Go toolchain was found on PATH (`go env GOVERSION` failed).");
  }
  if (compareVersions(/^go([\d.]+)/.exec(version)?.[1] ?? "0", requiredGo) < 0) {
    throw new ToolchainError(
      `Go ${version} is too old: the control plane's Go modules need Go >= ${requiredGo}.`,
    );
  }
  return version;
}

/** The environment of every `go` command: the local toolchain, static binaries, the modules' go.sum. */
function goEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-mod=readonly -buildvcs=false" };
}

/**
 * Checks, without building anything, that the control plane's binaries can be had: every one is in
 * `KUBELOOP_ASSETS`, or, without it, a Go toolchain recent enough to build them is on PATH (the
 * cache is keyed on the Go version, so even a built cache needs it).
 * @param env - the environment to check (`KUBELOOP_ASSETS`, `PATH`)
 * @throws ToolchainError naming what is missing and the ways out
 */
export async function checkToolchain(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env.KUBELOOP_ASSETS) overrideAssets(env.KUBELOOP_ASSETS);
  else await goVersion(env);
}

/** The binaries of `KUBELOOP_ASSETS`, or an error naming those it lacks. */
function overrideAssets(dir: string): Assets {
  const missing = missingIn(dir);
  if (missing.length > 0) throw new ToolchainError(`KUBELOOP_ASSETS=${dir} lacks ${missing.join(", ")}.`);
  return assetsIn(dir);
}

/**
 * Returns the binaries, building any that are missing.
 * @param report - where progress lines go while building
 */
export async function ensureAssets(report: ProgressReporter = stderrReporter): Promise<Assets> {
  const override = process.env.KUBELOOP_ASSETS;
  if (override) return overrideAssets(override);
  const dir = join(cacheRoot(), "controlplane", cacheKey(await goVersion(process.env)));
  const bin = join(dir, "bin");
  if (missingIn(bin).length === 0) return assetsIn(bin);
  await withLock(join(dir, "build.lock"), report, async () => {
    if (missingIn(bin).length > 0) await build(bin, report);
  });
  return assetsIn(bin);
}

async function build(bin: string, report: ProgressReporter): Promise<void> {
  mkdirSync(bin, { recursive: true });
  const todo = components.filter((c) => !existsSync(join(bin, c.name)));
  const started = systemClock.now();
  report(`building the local control plane into ${bin} (once per machine; about 8-10 minutes on 2 cores)`);
  for (const [i, component] of todo.entries()) {
    await buildOne(component, bin, `${i + 1}/${todo.length}`, report);
  }
  report(`control plane built in ${formatElapsed(systemClock.now() - started)}`);
}

/** Builds one component into `bin`, reporting progress; throws {@link BuildError} when `go build` fails. */
export async function buildOne(
  component: Component,
  bin: string,
  position: string,
  report: ProgressReporter,
) {
  const started = systemClock.now();
  const elapsed = () => formatElapsed(systemClock.now() - started);
  report(`building ${component.name} (${position})`);
  const heartbeat = setInterval(
    () => report(`building ${component.name} (${position}), ${elapsed()}`),
    30_000,
  );
  const partial = join(bin, `.${component.name}.partial`);
  try {
    const args = [
      "build",
      "-trimpath",
      "-tags",
      "selinux,notest",
      "-ldflags",
      ldflags(component),
      "-o",
      partial,
      component.pkg,
    ];
    const output = await spawnCollect("go", args, join(controlplaneDir, component.module));
    if (output.code !== 0) throw new BuildError(component.name, output.text);
    renameSync(partial, join(bin, component.name));
  } finally {
    clearInterval(heartbeat);
    rmSync(partial, { force: true });
  }
  report(`built ${component.name} (${position}) in ${elapsed()}`);
}

function spawnCollect(cmd: string, args: string[], cwd: string): Promise<{ code: number; text: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: goEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (d: Buffer) => {
      text += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      text += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, text }));
  });
}

/** Runs `fn` holding an exclusive lock directory; waits for (or breaks a stale) lock held elsewhere. */
export async function withLock(
  lock: string,
  report: ProgressReporter,
  fn: () => Promise<void>,
): Promise<void> {
  mkdirSync(join(lock, ".."), { recursive: true });
  let waiting = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch {
      if (!holderAlive(lock)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!waiting) report(`waiting for another process that is building into ${join(lock, "..")} (${lock})`);
      waiting = true;
      await systemClock.sleep(1000);
    }
  }
  try {
    await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function holderAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch {
    // The holder may be between creating the directory and writing its pid.
    return existsSync(lock) && systemClock.now() - statSync(lock).mtimeMs < 10_000;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Formats milliseconds as `1m05s` or `12s`. */
export function formatElapsed(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}
