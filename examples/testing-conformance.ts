// #region testing-conformance
// test/conformance.ts of an operator project
import { defineConformance, formatReport, runConformance } from "kubeloop/testing/conformance";

const spec = defineConformance({
  operator: "src/operator.ts",
  fixtures: (namespace) => [
    {
      apiVersion: "demo.example.com/v1",
      kind: "Greeting",
      metadata: { name: "hello", namespace },
      spec: { message: "hi" },
    },
  ],
  mutate: (obj, round) => ({ ...obj, spec: { message: `changed ${round}` } }),
});
export default spec; // what `kubeloop verify` runs

// or from code, e.g. in a test
const report = await runConformance(spec, { checks: ["idempotent"] });
console.log(formatReport(report));
// #endregion
