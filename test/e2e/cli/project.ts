/**
 * An operator project for the CLI's end-to-end tests: a plain ES module on this checkout's build
 * (dist/), so no TypeScript loader is involved, and the CLI run outside this test runner.
 */
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** This repository's root. */
export const checkout = resolve(fileURLToPath(import.meta.url), "../../../..");
/** The built CLI. */
export const cli = join(checkout, "bin", "kubeloop.js");

/**
 * An operator module serving one kind, Bolt, of `group`: each Bolt gets a ConfigMap `<name>-length`.
 * It imports kubeloop from this checkout's build, or from `entry` (e.g. `src/index.ts` under tsx).
 */
export function operatorModule(group: string, entry = join(checkout, "dist", "index.js")): string {
  const kubeloop = pathToFileURL(entry).href;
  return `import { ConfigMap, controller, defineKind, defineOperator, ensureChild, z } from ${JSON.stringify(kubeloop)};
const Bolt = defineKind({
  group: ${JSON.stringify(group)},
  version: "v1",
  kind: "Bolt",
  scope: "Namespaced",
  spec: z.object({ length: z.number().int() }),
});
export default defineOperator({
  name: "bolts",
  kinds: [Bolt],
  setup: (host) =>
    void controller(host)
      .for(Bolt)
      .owns(ConfigMap)
      .reconcile(async (ctx) => {
        const bolt = ctx.object;
        if (!bolt) return;
        const { name, namespace } = bolt.metadata;
        await ensureChild(ctx, bolt, ConfigMap, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: name + "-length", namespace },
          data: { length: String(bolt.spec.length) },
        });
      }),
});
`;
}

/** The environment of a fresh shell: no cluster of this run, and not inside this test runner. */
export function freshEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, KUBECONFIG: __, NODE_OPTIONS: ___, ...env } = process.env;
  return env;
}

/** Runs the CLI in `cwd` in a fresh shell's environment plus `env` (e.g. the run's `KUBECONFIG`). */
export async function kubeloop(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  return run(process.execPath, [cli, ...args], { cwd, env: { ...freshEnv(), ...env }, timeout: 120_000 });
}
