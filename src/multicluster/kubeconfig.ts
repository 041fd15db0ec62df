/**
 * Kubeconfigs that arrive as text (a Secret's data, a file's content): parsed into a connection
 * with kubeloop's kubeconfig loader, and followed per cluster so that only a changed text is
 * engaged again and a text that no longer parses disengages its cluster.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { type ClusterConnection, loadKubeconfig } from "../client/index.ts";
import type { ClusterSink } from "./provider.ts";

/**
 * Parses kubeconfig `text` (its current context) as `loadKubeconfig` does a file, without reading
 * `KUBECONFIG` or the home directory.
 */
export async function connectionFromKubeconfig(text: string): Promise<ClusterConnection> {
  const dir = await mkdtemp(join(tmpdir(), "kubeloop-kubeconfig-"));
  try {
    const path = join(dir, "kubeconfig");
    await writeFile(path, text, { mode: 0o600 });
    return await loadKubeconfig({ kubeconfig: path, env: {}, homeDir: dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Follows the kubeconfig text of each cluster a provider knows: engages a cluster when its text is
 * new or changed (once parsed, if it is still the current text), disengages it when its text
 * goes away or no longer parses.
 */
export class KubeconfigTexts {
  readonly #texts = new Map<string, string>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #sink: ClusterSink;
  readonly #logger: Logger;

  constructor(sink: ClusterSink, logger: Logger) {
    this.#sink = sink;
    this.#logger = logger;
  }

  /** Keeps track of `work` (reading and engaging a cluster's kubeconfig) until it settles. */
  track(work: Promise<void>): void {
    const tracked = work.finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  /** Calls `ready` once the work tracked so far has settled: the clusters known now are reported. */
  whenIdle(ready: () => void): void {
    void Promise.allSettled([...this.#inFlight]).then(ready);
  }

  /** Cluster `name`'s kubeconfig is now `text`; resolves once engaged (or refused). */
  async set(name: string, text: string): Promise<void> {
    if (this.#texts.get(name) === text) return;
    this.#texts.set(name, text);
    try {
      const connection = await connectionFromKubeconfig(text);
      if (this.#texts.get(name) === text) this.#sink.engage(name, connection);
    } catch (err) {
      if (this.#texts.get(name) !== text) return;
      this.#logger.warn({ err, cluster: name }, "kubeconfig does not parse; cluster not engaged");
      this.#sink.disengage(name, "invalid kubeconfig");
    }
  }

  /** Cluster `name` has no kubeconfig any more. */
  delete(name: string, reason: string): void {
    if (this.#texts.delete(name)) this.#sink.disengage(name, reason);
  }
}
