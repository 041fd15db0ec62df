/**
 * The operator's entry point in a container (`node dist/main.js`, see config/Dockerfile): runs it
 * until SIGTERM, with in-cluster credentials and leader election.
 */
import { runOperator } from "kubeloop";
import operator from "./operator.ts";

await runOperator(operator);
