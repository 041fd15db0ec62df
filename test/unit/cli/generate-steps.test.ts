/**
 * Issue 31 item 5: the steps `kubeloop generate` prints say, when the webhooks' certificate comes
 * from cert-manager (the default `--webhook-certs cert-manager`), that cert-manager must be in the
 * cluster, how to install it, and the alternative (`--webhook-certs self`); and with `--helm`, how
 * to install the chart.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nextSteps } from "../../../src/cli/project.ts";

const written = {
  out: "config",
  image: "widgets:latest",
  files: ["crds.yaml", "deployment.yaml", "webhooks.yaml"],
  certManager: false,
  chart: undefined,
};

describe("generate's printed steps", () => {
  it("name cert-manager, how to install it and the self-made alternative, before deploying, when it makes the certificate", () => {
    const steps = nextSteps({ ...written, certManager: true });
    assert.match(steps, /needs cert-manager in the cluster/);
    assert.match(
      steps,
      /kubectl apply -f https:\/\/github\.com\/cert-manager\/cert-manager\/releases\/latest\/download\/cert-manager\.yaml/,
    );
    assert.match(steps, /--webhook-certs self/);
    assert.ok(
      steps.indexOf("cert-manager") < steps.indexOf("Deploy:"),
      "cert-manager comes before the deploy step",
    );
  });

  it("say nothing of cert-manager when the operator makes its certificate or has no webhooks", () => {
    assert.doesNotMatch(nextSteps(written), /cert-manager/);
  });

  it("with --helm, give the chart's install command in the operator's namespace", () => {
    const steps = nextSteps({ ...written, chart: { release: "widgets", namespace: "widgets-system" } });
    assert.match(steps, /helm install widgets config\/chart --namespace widgets-system --create-namespace/);
    assert.doesNotMatch(nextSteps(written), /helm install/);
  });
});
