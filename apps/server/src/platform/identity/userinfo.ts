import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import type { Db } from "../db/database";
import { findUserById, userClaims } from "./accounts";
import { API_AUDIENCE } from "./provider";

export interface UserinfoOptions {
  path: string;
  issuer: string;
  publicJwks: JSONWebKeySet;
  db: Db;
}

/** The OpenID userinfo endpoint (GET or POST with a bearer access token). oidc-provider's own one
 * only reads opaque tokens; ours are JWTs for the API, so the endpoint verifies them like the API
 * does and answers the current claims of the user. Errors follow RFC 6750. */
export function registerUserinfoRoute(app: FastifyInstance, o: UserinfoOptions): void {
  const keySet = createLocalJWKSet(o.publicJwks);

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header("cache-control", "no-store");
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
    if (!token) {
      return reply.code(401).header("www-authenticate", `Bearer realm="${o.issuer}"`).send();
    }
    let sub: string | undefined;
    try {
      const { payload } = await jwtVerify(token, keySet, {
        issuer: o.issuer,
        audience: API_AUDIENCE,
        algorithms: ["RS256"],
      });
      sub = payload.sub;
    } catch {
      sub = undefined;
    }
    const user = sub ? await findUserById(o.db, sub) : undefined;
    if (!user) {
      return reply
        .code(401)
        .header("www-authenticate", `Bearer realm="${o.issuer}", error="invalid_token"`)
        .send({ error: "invalid_token", error_description: "The access token is not valid" });
    }
    return reply.send(userClaims(user));
  };

  app.get(o.path, handler);
  app.post(o.path, handler);
}
