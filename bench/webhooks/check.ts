/**
 * The check both webhook servers of bench/webhooks.ts serve, as kubeloop declares it: a ConfigMap
 * whose `data.port` is not a whole number from 1 to 65535 (written plainly: no sign, no leading
 * zero) is denied with a field cause, a 422 `Invalid`; anything else is admitted. The
 * controller-runtime contender (bench/peers/controller-runtime/webhook/main.go) mirrors it.
 */
import { ConfigMap, type ConfigMapObject } from "../../src/api/index.ts";
import { Verdict, validating } from "../../src/webhook/index.ts";

/** True when `value` is a port number written plainly. */
export function isPort(value: string): boolean {
  return /^[1-9][0-9]{0,4}$/.test(value) && Number(value) <= 65535;
}

function checkPort(cm: ConfigMapObject): Verdict | undefined {
  const port = cm.data?.port;
  if (port === undefined || isPort(port)) return undefined;
  const message = "must be a whole number from 1 to 65535";
  return Verdict.deny(`ConfigMap "${cm.metadata.name}" is invalid: data.port: ${message}`, {
    causes: [{ field: "data.port", message }],
  });
}

/** The validating webhook, served at `/validate--v1-configmap` (controller-runtime's path for it). */
export const portCheck = validating(ConfigMap, (cm) => checkPort(cm));
