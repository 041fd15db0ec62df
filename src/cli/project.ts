/**
 * `kubeloop generate` and `kubeloop run`: the commands that act on an operator project's
 * declared operator (its `src/operator.ts` default export).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command, Option } from "commander";
import { manifestsOf } from "../generate/index.ts";
import { loadOperator, runOperator } from "../operator/index.ts";

const operatorOption = () =>
  new Option("--operator <file>", "the operator module (default export of defineOperator)").default(
    "src/operator.ts",
  );

async function generate(opts: {
  operator: string;
  out: string;
  image?: string;
  namespace?: string;
}): Promise<void> {
  const operator = await loadOperator(opts.operator);
  const files = await manifestsOf(operator, { image: opts.image, namespace: opts.namespace });
  mkdirSync(opts.out, { recursive: true });
  for (const [name, text] of files) writeFileSync(join(opts.out, name), text);
  process.stdout.write(`Wrote ${[...files.keys()].map((f) => join(opts.out, f)).join(", ")}\n`);
  process.stdout.write(
    `Install the CRDs with: kubectl apply --server-side -f ${join(opts.out, "crds.yaml")}\n`,
  );
}

async function run(opts: {
  operator: string;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  metricsPort: string;
  healthPort: string;
}): Promise<void> {
  const operator = await loadOperator(opts.operator);
  await runOperator(operator, {
    config: { kubeconfig: opts.kubeconfig, context: opts.context },
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    metrics: { port: Number(opts.metricsPort) },
    health: { port: Number(opts.healthPort) },
  });
}

/** The `generate` command. */
export function generateCommand(): Command {
  return new Command("generate")
    .description(
      "write CRDs, RBAC and deployment manifests (plus a Dockerfile) derived from the project's operator",
    )
    .addOption(operatorOption())
    .option("--out <dir>", "output directory", "config")
    .option("--image <image>", "operator image for the Deployment")
    .option("--namespace <ns>", "namespace the operator is deployed to")
    .action(generate);
}

/** The `run` command. */
export function runCommand(): Command {
  return new Command("run")
    .description(
      "run the project's operator against the current kubeconfig (or in-cluster config) until Ctrl-C",
    )
    .addOption(operatorOption())
    .option("--kubeconfig <file>", "kubeconfig to use instead of KUBECONFIG or ~/.kube/config")
    .option("--context <name>", "kubeconfig context")
    .option("--namespace <ns>", "watch only this namespace")
    .option("--metrics-port <port>", "port of /metrics (0 picks one)", "8080")
    .option("--health-port <port>", "port of /healthz and /readyz (0 picks one)", "8081")
    .action(run);
}
