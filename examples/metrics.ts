import { type LabelOf, METRICS } from "kubeloop/metrics";

// #region metrics
const { name } = METRICS.reconcileErrors;
const by: LabelOf<typeof METRICS.reconcileErrors> = "controller";
const query = `sum by (${by}) (rate(${name}{job="widgets-metrics"}[5m]))`;
// #endregion

console.log(query);
