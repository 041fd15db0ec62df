/** Fake responses, dispatches and connections for unit tests of the client: nothing touches the network. */
import type { AuthSnapshot, ClusterConnection, Credentials } from "../../../src/client/config/index.ts";
import type { ApiRequest, ApiResponse, Dispatch } from "../../../src/client/index.ts";
import { authUsed, type SentResponse } from "../../../src/client/transport.ts";

/** Lets every pending promise callback run (one macrotask turn; no time passes on any clock). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A response body that records whether it was consumed or dumped. */
export interface FakeBody {
  text(): Promise<string>;
  json(): Promise<unknown>;
  dump(): Promise<void>;
  destroy(): void;
  readonly dumped: boolean;
}

/** A body holding `content` (objects are sent as JSON). */
export function fakeBody(content: unknown = ""): FakeBody {
  const text = typeof content === "string" ? content : JSON.stringify(content);
  let dumped = false;
  return {
    text: async () => text,
    json: async () => JSON.parse(text),
    dump: async () => {
      dumped = true;
    },
    destroy() {},
    get dumped() {
      return dumped;
    },
  };
}

/** A response with `status`, a body (objects become JSON) and headers, remembering `auth` when given. */
export function response(
  status: number,
  content: unknown = "",
  headers: ApiResponse["headers"] = {},
  auth?: AuthSnapshot,
): SentResponse & { body: FakeBody } {
  const res = { status, headers, body: fakeBody(content) } as unknown as SentResponse & { body: FakeBody };
  if (auth) res[authUsed] = auth;
  return res;
}

/** An error shaped like the ones Node's sockets and undici raise. */
export function networkError(code: string): Error {
  return Object.assign(new Error(`${code} from the fake network`), { code });
}

/** What a scripted dispatch does for one attempt: answer, or fail. */
export type Step = ApiResponse | Error | ((request: ApiRequest) => ApiResponse | Promise<ApiResponse>);

/** A dispatch that plays `steps` in order (the last one repeats) and records every request. */
export function scripted(steps: Step[]): Dispatch & { calls: ApiRequest[] } {
  const calls: ApiRequest[] = [];
  const dispatch = async (request: ApiRequest) => {
    calls.push(request);
    const step = steps[Math.min(calls.length - 1, steps.length - 1)];
    if (step === undefined) throw new Error("scripted dispatch has no steps");
    if (step instanceof Error) throw step;
    return typeof step === "function" ? step(request) : step;
  };
  return Object.assign(dispatch, { calls });
}

/** An immutable credentials snapshot. */
export function snapshot(token: string, identity = "pool-a"): AuthSnapshot {
  return Object.freeze({ headers: { authorization: `Bearer ${token}` }, identity });
}

/** Credentials that hand out `current`; `rotateTo` makes the next invalidate of the current snapshot switch. */
export class FakeCredentials implements Credentials {
  current: AuthSnapshot;
  rotateTo: AuthSnapshot | undefined;
  readonly invalidated: (AuthSnapshot | undefined)[] = [];
  gets = 0;

  constructor(current: AuthSnapshot = snapshot("first")) {
    this.current = current;
  }

  async get(): Promise<AuthSnapshot> {
    this.gets++;
    return this.current;
  }

  invalidate(rejected?: AuthSnapshot): void {
    this.invalidated.push(rejected);
    if (rejected !== this.current || !this.rotateTo) return;
    this.current = this.rotateTo;
    this.rotateTo = undefined;
  }
}

/** A connection to a server that is never contacted (requests are stubbed below undici's `request`). */
export function fakeConnection(credentials: Credentials = new FakeCredentials()): ClusterConnection {
  return {
    server: "https://apiserver.test:6443/prefix",
    namespace: "team-a",
    contextName: "test",
    source: "kubeconfig",
    tls: { insecure: true },
    credentials,
  };
}
