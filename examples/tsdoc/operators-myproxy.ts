import type { ServiceObject } from "kubeloop";
import type { ProxyRouteObject } from "../../operators/myproxy/api.ts";
import { acceptedRoutes } from "../../operators/myproxy/routes.ts";

declare const routesOfProxy: ProxyRouteObject[];
declare const servicesInNamespace: ServiceObject[];

// #region acceptedRoutes
const { accepted, rejected } = acceptedRoutes(routesOfProxy, servicesInNamespace);
// #endregion

console.log(accepted, rejected);
