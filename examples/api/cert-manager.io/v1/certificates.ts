/** What `kubeloop import` writes for cert-manager's CRD: the committed fixture, for the README's example. */
export * from "../../../../test/fixtures/crds/generated/cert-manager.io/v1/certificates.ts";
