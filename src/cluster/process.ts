/**
 * One control-plane process: spawned with its output in a log file, polled until ready, and
 * stopped by PID (SIGTERM, then SIGKILL).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { systemClock } from "../clock/index.ts";
import { StartError } from "./errors.ts";

/** A running component. */
export interface ComponentProcess {
  name: string;
  pid: number;
  logPath: string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<number | string>;
  child: ChildProcess;
}

/** The last `lines` lines of a log file, or "" when it cannot be read. */
export function tail(path: string, lines = 25): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** Starts `binary` with `args`, appending its stdout and stderr to `logPath`. */
export function startProcess(
  name: string,
  binary: string,
  args: string[],
  logPath: string,
): ComponentProcess {
  const log = openSync(logPath, "a");
  const child = spawn(binary, args, { stdio: ["ignore", log, log] });
  closeSync(log);
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
    child.on("error", () => resolve("spawn-error"));
  });
  if (child.pid === undefined) throw new StartError(name, `could not be started from ${binary}`, logPath, "");
  return { name, pid: child.pid, logPath, exited, child };
}

/**
 * Polls `probe` until it returns true, failing early with the log tail when the process exits
 * or when `timeoutMs` passes.
 */
export async function waitReady(
  proc: ComponentProcess,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  what = "did not become ready",
): Promise<void> {
  const deadline = systemClock.now() + timeoutMs;
  let exitCode: number | string | undefined;
  void proc.exited.then((code) => {
    exitCode = code;
  });
  for (;;) {
    if (exitCode !== undefined) {
      throw new StartError(
        proc.name,
        `exited (${exitCode}) before it was ready`,
        proc.logPath,
        tail(proc.logPath),
      );
    }
    if (await probe().catch(() => false)) return;
    if (systemClock.now() > deadline) {
      throw new StartError(
        proc.name,
        `${what} within ${timeoutMs / 1000}s`,
        proc.logPath,
        tail(proc.logPath),
      );
    }
    await systemClock.sleep(200);
  }
}

/** Stops a process: SIGTERM, then SIGKILL after `graceMs`. Resolves once it has exited. */
export async function stopProcess(proc: ComponentProcess, graceMs = 10_000): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill("SIGTERM");
  const timer = systemClock.setTimer(graceMs, () => proc.child.kill("SIGKILL"));
  await proc.exited;
  timer.cancel();
}
