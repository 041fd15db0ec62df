/**
 * The committed source of kubeloop's built-in API (`src/api/<group>/<version>.ts` and
 * `src/api/preferred.ts`), as a cluster's apiserver defines it: what `npm run generate:api-types`
 * writes and the freshness test compares.
 */
import type { Client } from "../client/index.ts";
import { generateApi } from "./builtin-api.ts";
import { formatWithBiome } from "./format.ts";
import { readApiSnapshot } from "./snapshot.ts";

/** Where the generated modules live, relative to the repository root. */
export const API_DIR = "src/api";

/** The formatted modules generated from the API `client`'s cluster serves, keyed by path from `root`. */
export async function apiFiles(client: Client, root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const [path, source] of generateApi(await readApiSnapshot(client))) {
    const file = `${API_DIR}/${path}`;
    files.set(file, formatWithBiome(source, file, root));
  }
  return files;
}
