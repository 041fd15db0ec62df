/** Running a manager as a process's main: signals, traces, the exit code. */
import { LeadershipLostError } from "../election/index.ts";
import type { Manager } from "./manager.ts";
import { handleShutdownSignals } from "./shutdown-signals.ts";
import { exportTraces } from "./tracing.ts";

/**
 * Starts `manager` (exporting traces when `OTEL_EXPORTER_OTLP_ENDPOINT` is set) and stops it
 * gracefully on SIGTERM or SIGINT; a second signal exits the process
 * at once with code 130. Sets a non-zero exit code when it fails. When leadership is lost it exits the process at once with code 1, as the `main` that
 * kubebuilder scaffolds for controller-runtime does (`os.Exit(1)`): a reconcile that ignores its
 * aborted signal must not keep alive a process that may no longer write, and a fresh process
 * campaigns again with fresh caches.
 */
export async function runManager(manager: Manager): Promise<void> {
  const controller = new AbortController();
  const unhandle = handleShutdownSignals(manager.logger, controller);
  // Traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT asks for them (see tracing.ts).
  const traces = await exportTraces(manager.name, manager.logger);
  try {
    await manager.start(controller.signal);
  } catch (err) {
    manager.logger.error({ err }, "manager failed");
    process.exitCode = 1;
    if (err instanceof LeadershipLostError) process.exit(1);
  } finally {
    unhandle();
    await traces?.shutdown().catch((err: unknown) => manager.logger.warn({ err }, "traces not flushed"));
  }
}
