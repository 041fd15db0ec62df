/**
 * `npm run generate:api-types`: regenerates the built-in API types and descriptors under `src/api/` from
 * the cluster of the current kubeconfig (start one with `kubeloop cluster up`, Kubernetes v1.36.3).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "../src/client/index.ts";
import { apiFiles } from "../src/typegen/index.ts";

const root = join(import.meta.dirname, "..");
const client = await Client.load();
try {
  const files = await apiFiles(client, root);
  for (const [path, source] of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  const bytes = [...files.values()].reduce((sum, source) => sum + Buffer.byteLength(source), 0);
  process.stdout.write(`wrote ${files.size} modules (${Math.round(bytes / 1024)} KiB) under src/api\n`);
} finally {
  await client.close();
}
