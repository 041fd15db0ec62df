import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  AlreadyExistsError,
  ApiError,
  apiErrorFrom,
  ConflictError,
  ExpiredError,
  ForbiddenError,
  InvalidError,
  KindNotFoundError,
  NotFoundError,
  ServerError,
  ServerTimeoutError,
  TooManyRequestsError,
  UnauthorizedError,
  UnreachableError,
} from "../../../src/client/index.ts";
import { KubeloopError } from "../../../src/errors/index.ts";

const request = { method: "GET", path: "/api/v1/namespaces/ns/configmaps/a" };

function status(code: number, reason: string, extra: Record<string, unknown> = {}) {
  return {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code,
    reason,
    message: `${reason}!`,
    ...extra,
  };
}

describe("apiErrorFrom: by the Status reason", () => {
  const cases: [string, number, new (...args: never[]) => ApiError, string][] = [
    ["NotFound", 404, NotFoundError, "KL_NOT_FOUND"],
    ["Conflict", 409, ConflictError, "KL_CONFLICT"],
    ["AlreadyExists", 409, AlreadyExistsError, "KL_ALREADY_EXISTS"],
    ["Unauthorized", 401, UnauthorizedError, "KL_UNAUTHORIZED"],
    ["Forbidden", 403, ForbiddenError, "KL_FORBIDDEN"],
    ["Invalid", 422, InvalidError, "KL_INVALID"],
    ["BadRequest", 400, InvalidError, "KL_INVALID"],
    ["Expired", 410, ExpiredError, "KL_EXPIRED"],
    ["Gone", 410, ExpiredError, "KL_EXPIRED"],
    ["TooManyRequests", 429, TooManyRequestsError, "KL_TOO_MANY_REQUESTS"],
    ["Timeout", 504, ServerTimeoutError, "KL_TIMEOUT"],
  ];
  for (const [reason, code, Class, klCode] of cases) {
    it(`maps ${code} ${reason} to ${Class.name} (${klCode})`, () => {
      const err = apiErrorFrom(code, status(code, reason), request);
      assert.ok(err instanceof Class, `${err.name} is not a ${Class.name}`);
      assert.ok(err instanceof ApiError);
      assert.ok(err instanceof KubeloopError);
      assert.equal(err.code, klCode);
      assert.equal(err.statusCode, code);
      assert.equal(err.reason, reason);
      assert.equal(err.name, Class.name);
      assert.deepEqual(err.request, request);
    });
  }

  it("prefers the reason over the HTTP code (409 AlreadyExists is not a conflict)", () => {
    const err = apiErrorFrom(409, status(409, "AlreadyExists"), request);
    assert.ok(err instanceof AlreadyExistsError);
    assert.ok(!(err instanceof ConflictError));
  });

  it("uses the reason even when the HTTP code says something else", () => {
    assert.ok(apiErrorFrom(500, status(500, "Timeout"), request) instanceof ServerTimeoutError);
    assert.ok(apiErrorFrom(400, status(400, "NotFound"), request) instanceof NotFoundError);
  });
});

describe("apiErrorFrom: by the HTTP code when the reason is unknown or missing", () => {
  const cases: [number, new (...args: never[]) => ApiError, string][] = [
    [400, InvalidError, "KL_INVALID"],
    [401, UnauthorizedError, "KL_UNAUTHORIZED"],
    [403, ForbiddenError, "KL_FORBIDDEN"],
    [404, NotFoundError, "KL_NOT_FOUND"],
    [408, ServerTimeoutError, "KL_TIMEOUT"],
    [409, ConflictError, "KL_CONFLICT"],
    [410, ExpiredError, "KL_EXPIRED"],
    [422, InvalidError, "KL_INVALID"],
    [429, TooManyRequestsError, "KL_TOO_MANY_REQUESTS"],
    [504, ServerTimeoutError, "KL_TIMEOUT"],
    [500, ServerError, "KL_SERVER_ERROR"],
    [502, ServerError, "KL_SERVER_ERROR"],
    [503, ServerError, "KL_SERVER_ERROR"],
  ];
  for (const [code, Class, klCode] of cases) {
    it(`maps a bare ${code} to ${Class.name}`, () => {
      const err = apiErrorFrom(code, "", request);
      assert.ok(err instanceof Class, `${err.name} is not a ${Class.name}`);
      assert.equal(err.code, klCode);
      assert.equal(err.reason, `HTTP${code}`);
      assert.equal(err.statusCode, code);
    });
  }

  it("maps an unknown reason of a 5xx to ServerError", () => {
    const err = apiErrorFrom(500, status(500, "InternalError"), request);
    assert.ok(err instanceof ServerError);
    assert.equal(err.reason, "InternalError");
  });

  it("falls back to a plain ApiError with KL_API_ERROR for other 4xx", () => {
    for (const [code, reason] of [
      [405, "MethodNotAllowed"],
      [406, "NotAcceptable"],
      [415, "UnsupportedMediaType"],
      [413, "RequestEntityTooLarge"],
    ] as const) {
      const err = apiErrorFrom(code, status(code, reason), request);
      assert.equal(err.constructor, ApiError);
      assert.equal(err.code, "KL_API_ERROR");
      assert.equal(err.reason, reason);
    }
  });
});

describe("apiErrorFrom: status details", () => {
  it("keeps the code, reason, message and details of the Status body", () => {
    const details = { name: "a", kind: "configmaps", group: "" };
    const err = apiErrorFrom(404, status(404, "NotFound", { message: 'configmaps "a" not found', details }), {
      method: "DELETE",
      path: "/api/v1/namespaces/ns/configmaps/a",
    });
    assert.deepEqual(err.status, {
      code: 404,
      reason: "NotFound",
      message: 'configmaps "a" not found',
      details,
    });
    assert.equal(
      err.message,
      'DELETE /api/v1/namespaces/ns/configmaps/a: configmaps "a" not found (404 NotFound)',
    );
  });

  it("takes the code from the body when it has one", () => {
    const err = apiErrorFrom(500, { code: 410, reason: "Expired", message: "too old" }, request);
    assert.ok(err instanceof ExpiredError);
    assert.equal(err.statusCode, 410);
  });

  it("uses a non-JSON body, cut to 500 characters, as the message", () => {
    const err = apiErrorFrom(502, `<html>${"x".repeat(1000)}</html>`, request);
    assert.ok(err instanceof ServerError);
    assert.equal(err.status.message.length, 500);
    assert.ok(err.status.message.startsWith("<html>x"));
    assert.equal(err.reason, "HTTP502");
  });

  it("names the reason in the message when there is no message", () => {
    const err = apiErrorFrom(404, {}, request);
    assert.equal(err.message, `GET ${request.path}: HTTP404 (404 HTTP404)`);
  });

  it("adds a fix to the messages of conflicts, 401 and 403", () => {
    assert.match(apiErrorFrom(409, status(409, "Conflict"), request).message, /re-read the object/);
    assert.match(apiErrorFrom(401, status(401, "Unauthorized"), request).message, /kubeconfig's user/);
    assert.match(apiErrorFrom(403, status(403, "Forbidden"), request).message, /RBAC, quotas and admission/);
  });

  describe("tells the causes of a 403 apart and names the fix of each", () => {
    const cases: [string, string, RegExp][] = [
      [
        'configmaps is forbidden: User "system:serviceaccount:ops:widgets" cannot create resource "configmaps" in API group "" in the namespace "a"',
        "rbac",
        /ServiceAccount lacks this verb.*`\.owns\(Kind\)`.*`\.watches\(Kind\)`.*`permissions`.*rerun `kubeloop generate`/,
      ],
      [
        'pods "w-0" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=1, limited: cpu=2',
        "quota",
        /ResourceQuota refused it/,
      ],
      [
        'admission webhook "deny.example.com" denied the request: no widgets on Sundays',
        "admission",
        /admission check refused the object/,
      ],
      [
        "configmaps \"w\" is forbidden: ValidatingAdmissionPolicy 'no-w' with binding 'b' denied request: nope",
        "admission",
        /admission check refused the object/,
      ],
      [
        'pods "w" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false',
        "admission",
        /admission check/,
      ],
      [
        'configmaps "w" is forbidden: unable to create new content in namespace a because it is being terminated',
        "terminating",
        /namespace is being deleted/,
      ],
    ];
    for (const [message, cause, fix] of cases) {
      it(`${cause}: ${message.slice(0, 40)}...`, () => {
        const err = apiErrorFrom(403, status(403, "Forbidden", { message }), request);
        assert.ok(err instanceof ForbiddenError);
        assert.equal(err.deniedBy, cause);
        assert.match(err.message, fix);
        if (cause !== "rbac") assert.doesNotMatch(err.message, /ServiceAccount/);
      });
    }
  });

  it("keeps the field causes of an InvalidError", () => {
    const causes = [
      { reason: "FieldValueRequired", message: "Required value", field: "spec.count" },
      { reason: "FieldValueInvalid", message: "must be positive", field: "spec.size" },
    ];
    const err = apiErrorFrom(422, status(422, "Invalid", { details: { name: "w", causes } }), request);
    assert.ok(err instanceof InvalidError);
    assert.deepEqual(err.causes, causes);
  });

  it("gives an InvalidError without details an empty cause list", () => {
    const err = apiErrorFrom(400, status(400, "BadRequest"), request);
    assert.ok(err instanceof InvalidError);
    assert.deepEqual(err.causes, []);
  });
});

describe("ServerTimeoutError.resourceVersionTooLarge", () => {
  it("is true for a ResourceVersionTooLarge cause", () => {
    const err = apiErrorFrom(
      504,
      status(504, "Timeout", {
        message: "Timeout: Too large resource version: 20, current: 10",
        details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] },
      }),
      request,
    );
    assert.ok(err instanceof ServerTimeoutError);
    assert.equal(err.resourceVersionTooLarge, true);
  });

  it("is true when only the message says so", () => {
    const err = apiErrorFrom(
      504,
      status(504, "Timeout", { message: "Too large resource version: 20, current: 10" }),
      request,
    );
    assert.ok(err instanceof ServerTimeoutError);
    assert.equal(err.resourceVersionTooLarge, true);
  });

  it("is false for other timeouts", () => {
    const err = apiErrorFrom(
      504,
      status(504, "Timeout", { message: "request timed out", details: { causes: [{ reason: "Other" }] } }),
      request,
    );
    assert.ok(err instanceof ServerTimeoutError);
    assert.equal(err.resourceVersionTooLarge, false);
  });
});

describe("errors raised without an answer", () => {
  it("UnreachableError names the server and the socket error code, and keeps the cause", () => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6443"), { code: "ECONNREFUSED" });
    const err = new UnreachableError("https://127.0.0.1:6443", cause);
    assert.equal(err.code, "KL_UNREACHABLE");
    assert.equal(err.cause, cause);
    assert.match(err.message, /https:\/\/127\.0\.0\.1:6443 \(ECONNREFUSED\)/);
    assert.match(err.message, /kubeloop cluster status/);
  });

  it("UnreachableError falls back to the message, or the value, of a cause without a code", () => {
    assert.match(new UnreachableError("https://s", new Error("boom")).message, /\(boom\)/);
    assert.match(new UnreachableError("https://s", "weird").message, /\(weird\)/);
  });

  it("KindNotFoundError names the kind, the version and the fix", () => {
    const err = new KindNotFoundError("example.com/v1", "Widget");
    assert.equal(err.code, "KL_KIND_NOT_FOUND");
    assert.equal(err.kind, "example.com/v1/Widget");
    assert.ok(err instanceof KubeloopError);
    assert.match(err.message, /Widget in example\.com\/v1\. /);
    assert.match(
      err.message,
      /install its CRD \(`kubeloop install`, or `kubectl apply --server-side -f config\/crds\.yaml`/,
    );
  });

  describe("KindNotFoundError says what the server serves of the kind's group", () => {
    const cases: [string, { groupVersions: string[]; kindVersions: string[] }, RegExp][] = [
      [
        "no version of the group",
        { groupVersions: [], kindVersions: [] },
        /serves no version of the group example\.com\./,
      ],
      [
        "another version",
        { groupVersions: ["example.com/v1", "example.com/v2"], kindVersions: [] },
        /the server serves example\.com\/v1, example\.com\/v2 but not v1alpha1\./,
      ],
      [
        "the version, without the kind",
        { groupVersions: ["example.com/v1alpha1"], kindVersions: [] },
        /serves example\.com\/v1alpha1, but example\.com\/v1alpha1 has no kind Widget\./,
      ],
      [
        "the kind in another version",
        { groupVersions: ["example.com/v1alpha1", "example.com/v1"], kindVersions: ["example.com/v1"] },
        /serves Widget in example\.com\/v1 but not in v1alpha1\./,
      ],
    ];
    for (const [name, served, text] of cases) {
      it(name, () => {
        const err = new KindNotFoundError("example.com/v1alpha1", "Widget", served);
        assert.match(err.message, text);
        assert.deepEqual(err.served, served);
        assert.match(err.message, /`kubeloop install`/);
      });
    }

    it("names the core group", () => {
      const err = new KindNotFoundError("v1", "Widget", { groupVersions: ["v1"], kindVersions: [] });
      assert.match(err.message, /serves v1, but v1 has no kind Widget/);
    });
  });
});
