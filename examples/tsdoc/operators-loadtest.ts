import { defineOperator } from "kubeloop";
import type { ControllerHost } from "kubeloop/controller";
import { workerAdmissionPolicy } from "../../operators/loadtest/admission.ts";
import { LoadTest } from "../../operators/loadtest/api.ts";
import { workerPolicyFrom } from "../../operators/loadtest/policy.ts";

declare function setupLoadTests(host: ControllerHost): void;

// #region workerAdmissionPolicy
export default defineOperator({
  name: "loadtest",
  kinds: [LoadTest],
  setup: setupLoadTests,
  manifests: () => workerAdmissionPolicy(workerPolicyFrom(process.env), LoadTest.group),
});
// #endregion
