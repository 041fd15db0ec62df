/**
 * `kubeloop generate` and `kubeloop run`: the commands that act on an operator project's
 * declared operator (its `src/operator.ts` default export).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { manifestsOf } from "../generate/index.ts";
import { type EndpointFlagValues, endpointFlags, endpointOptions } from "../manager/index.ts";
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

async function run(
  opts: EndpointFlagValues & {
    operator: string;
    kubeconfig?: string;
    context?: string;
    namespace?: string;
    leaderElect: boolean;
  },
): Promise<void> {
  const operator = await loadOperator(opts.operator);
  await runOperator(operator, {
    config: { kubeconfig: opts.kubeconfig, context: opts.context },
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(opts.leaderElect ? {} : { leaderElection: false }),
    ...endpointOptions(opts),
  });
}

/** `--leader-elect[=true|false]`, as the Go boolean flag of kubebuilder's `main.go` reads. */
const leaderElectOption = () =>
  new Option(
    "--leader-elect [bool]",
    "campaign for the operator's Lease and reconcile only while leading; --leader-elect=false for local development",
  )
    .default(true)
    .argParser((value: string) => {
      if (value !== "true" && value !== "false") throw new InvalidArgumentError("give true or false.");
      return value === "true";
    });

/** Declares the manager's endpoint flags (kubebuilder's names) on `command`. */
function withEndpointFlags(command: Command): Command {
  for (const flag of endpointFlags) {
    command.option(flag.value ? `--${flag.name} ${flag.value}` : `--${flag.name}`, flag.description);
    if (!flag.value) command.option(`--no-${flag.name}`, `the opposite of --${flag.name}`);
  }
  return command;
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
  const command = new Command("run")
    .description(
      "run the project's operator against the current kubeconfig (or in-cluster config) until Ctrl-C",
    )
    .addOption(operatorOption())
    .option("--kubeconfig <file>", "kubeconfig to use instead of KUBECONFIG or ~/.kube/config")
    .option("--context <name>", "kubeconfig context")
    .option("--namespace <ns>", "watch only this namespace")
    .addOption(leaderElectOption())
    .option("--no-leader-elect", "the same as --leader-elect=false");
  return withEndpointFlags(command).action(run);
}
