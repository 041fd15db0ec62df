#!/usr/bin/env node
// The published `kubeloop` command: runs the compiled CLI from dist/.
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("kubeloop: dist/ is missing; run `npm run build` in the kubeloop package first.\n");
  process.exit(1);
}
const { main } = await import(entry.href);
await main();
