/** Where things are: the repository, the peers package, the results folder. */
import { join } from "node:path";

export const peersDir = join(import.meta.dirname, "..");
export const repoRoot = join(peersDir, "..", "..");
export const resultsDir = join(repoRoot, "bench", "results");
