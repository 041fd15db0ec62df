/**
 * The operator's entry point: `kubeloop build` bundles it into dist/operator.mjs, which the container
 * runs (`node dist/operator.mjs`, see config/Dockerfile); it runs the operator
 * until SIGTERM with in-cluster credentials, its endpoints as the Deployment's args say
 * (`--metrics-bind-address`, `--metrics-secure`, `--health-probe-bind-address`, as kubebuilder's;
 * `--shards` and `--shard-key` to shard the controllers across replicas). Run outside a cluster,
 * its Lease goes in `$POD_NAMESPACE` (else the operator's name), which must exist; or pass
 * `--leader-elect=false` (one replica), or use `kubeloop run`.
 */
import { parseOperatorFlags, runOperator } from "kubeloop";
import operator from "./operator.ts";

await runOperator(operator, parseOperatorFlags(process.argv.slice(2)));
