/** Errors a user of `kubeloop describe` can cause: a target that is not `<kind>/<name>`, or names no resource. */
import { KubeloopError } from "../errors/index.ts";

/** The target is not of the form `<kind>/<name>`. Code `KL_DESCRIBE_TARGET`. */
export class InvalidTargetError extends KubeloopError {
  constructor(target: string) {
    super(
      "KL_DESCRIBE_TARGET",
      `"${target}" is not an object to describe: give it as <kind>/<name>, e.g. deployment/web, ` +
        "deployments.apps/web or myproxy/edge",
    );
  }
}

/** No resource the server serves has this name. Code `KL_UNKNOWN_RESOURCE`. */
export class UnknownResourceError extends KubeloopError {
  /** The resource as it was given, e.g. `deploymnt`. */
  readonly resource: string;

  constructor(resource: string) {
    super(
      "KL_UNKNOWN_RESOURCE",
      `the API server serves no resource named "${resource}": use a kind, plural, singular or short name ` +
        "as `kubectl api-resources` lists them (e.g. deployment, deployments.apps, deploy), " +
        "and install the CRD first if it is a custom resource",
    );
    this.resource = resource;
  }
}

/** The object to describe does not exist. Code `KL_DESCRIBE_NOT_FOUND`; `cause` is the API's answer. */
export class ObjectNotFoundError extends KubeloopError {
  constructor(resource: string, name: string, namespace: string | undefined, options?: { cause?: unknown }) {
    const where = namespace ? ` in namespace ${namespace}` : "";
    const list = `kubectl get ${resource}${namespace ? ` -n ${namespace}` : ""}`;
    super(
      "KL_DESCRIBE_NOT_FOUND",
      `there is no ${resource} named "${name}"${where}: check the name (\`${list}\` lists them)` +
        (namespace ? " and the namespace (-n)" : ""),
      options,
    );
  }
}
