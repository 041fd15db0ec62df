/**
 * The operator under test as a process of its own, when the kit could not bundle it (see
 * `internal/runner-bundle.ts`): loads the operator module (under tsx from TypeScript) and runs it
 * (`internal/runner.ts`). Forked by the kit with `child_process.fork`; not meant to be run by hand.
 */
import { loadOperator } from "../../operator/index.ts";
import { runOperatorProcess } from "./internal/runner.ts";

await runOperatorProcess(loadOperator);
