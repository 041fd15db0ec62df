/**
 * MyProxy's versions: v1alpha1 put the nginx container's image and port at the top of the spec;
 * v1beta1, the hub and storage version, groups them under `spec.nginx` and adds the container's
 * `resources`. The operator's conversion webhook converts between them, and a v1alpha1 client
 * round-trips a v1beta1 object without loss: the resources it cannot show travel in its
 * `kubeloop.dev/conversion-data` annotation.
 */
import { conversion } from "kubeloop/webhook";
import { MyProxy, type MyProxyObject, type MyProxyV1alpha1Object } from "./api.ts";

/** The v1alpha1 object as v1beta1. */
export function fromV1alpha1({ spec, ...old }: MyProxyV1alpha1Object): MyProxyObject {
  const { replicas, image, port } = spec;
  return { ...old, spec: { replicas, nginx: { image, port } } };
}

/** The v1beta1 object as v1alpha1 (without `spec.nginx.resources`, kept by the conversion). */
export function toV1alpha1({ spec, ...hub }: MyProxyObject): MyProxyV1alpha1Object {
  const { replicas, nginx } = spec;
  return { ...hub, spec: { replicas, image: nginx.image, port: nginx.port } };
}

/** The MyProxy conversion webhook, declared in the operator's `webhooks`. */
export const myProxyConversion = conversion(MyProxy, {
  spokes: {
    v1alpha1: { toHub: fromV1alpha1, fromHub: toV1alpha1, lacks: ["spec.nginx.resources"] },
  },
});
