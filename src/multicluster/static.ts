/**
 * The static provider: a fixed list of clusters from kubeconfig files, or every file of a
 * directory (multicluster-runtime's file provider, without re-reading). Each file's name, less
 * its extension, is its cluster's; they are engaged at start and disengaged at stop.
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import type { Logger } from "pino";
import pino from "pino";
import { untilAborted } from "../clock/index.ts";
import { KubeconfigTexts } from "./kubeconfig.ts";
import type { ClusterProvider, ClusterSink } from "./provider.ts";

/** Options of {@link staticProvider}: kubeconfig files, a directory of them, or both. */
export interface StaticProviderOptions {
  /** Kubeconfig files. */
  files?: readonly string[];
  /** A directory whose every file (dot files aside) is a kubeconfig. */
  directory?: string;
  /** Logger for files that hold no usable kubeconfig. Default: silent. */
  logger?: Logger;
}

/**
 * Engages the clusters of a fixed list of kubeconfig files.
 *
 * @example
 * ```ts
 * const provider = staticProvider({ directory: "/etc/fleet" });
 * ```
 */
export function staticProvider(options: StaticProviderOptions): ClusterProvider {
  const logger = options.logger ?? pino({ level: "silent" });
  return {
    name: "static",
    async run(sink: ClusterSink, signal: AbortSignal) {
      const texts = new KubeconfigTexts(sink, logger);
      const files = [...(options.files ?? []), ...(await directoryFiles(options.directory))];
      for (const file of files) await texts.set(clusterOf(file), await readFile(file, "utf8"));
      sink.ready();
      await untilAborted(signal);
      for (const file of files) texts.delete(clusterOf(file), "fleet stopping");
    },
  };
}

/** The files of `directory`, dot files aside; none without one. */
async function directoryFiles(directory: string | undefined): Promise<string[]> {
  if (directory === undefined) return [];
  const entries = await readdir(directory, { withFileTypes: true });
  return entries.filter((e) => e.isFile() && !e.name.startsWith(".")).map((e) => join(directory, e.name));
}

/** A file's cluster name: its base name without the extension. */
function clusterOf(file: string): string {
  return basename(file, extname(file));
}
