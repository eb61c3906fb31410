import { type ListResponse, listResponse } from "@polyforge/contracts/pagination";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "./auth/authenticate";
import type { AuthenticatedUser } from "./auth/user";
import type { Db } from "./db/database";
import { checkPathIdsOnRefusal } from "./errors";

/** The app as a zod-typed route plugin sees it (for functions that register a group of routes). */
export type ZodApp = Parameters<FastifyPluginAsyncZod>[0];

/** What one owner-scoped resource's service offers: its functions as the module writes them (the
 * database, then the caller, then what the request names). */
export interface OwnedResourceService<Item, Create, Patch, Query> {
  list: (db: Db, user: AuthenticatedUser, query: Query) => Promise<ListResponse<Item>>;
  get: (db: Db, user: AuthenticatedUser, id: string) => Promise<Item>;
  create: (db: Db, user: AuthenticatedUser, body: Create) => Promise<Item>;
  update: (db: Db, user: AuthenticatedUser, id: string, body: Patch) => Promise<Item>;
  remove: (db: Db, user: AuthenticatedUser, id: string) => Promise<void>;
}

export interface OwnedResource<Item, Create, Patch, Query> {
  /** e.g. "/projects": the list and create path; items live at `${path}/:id`. */
  path: string;
  tag: string;
  schemas: {
    item: z.ZodType<Item>;
    create: z.ZodType<Create>;
    patch: z.ZodType<Patch>;
    listQuery: z.ZodType<Query>;
  };
  /** OpenAPI summaries of the five routes. */
  summaries: { list: string; get: string; create: string; update: string; remove: string };
  service: OwnedResourceService<Item, Create, Patch, Query>;
  /** For rows that belong to the caller's draft system (segments, polymers): `${path}/draft`
   * lists the draft's only. */
  draftList?: { summary: string; list: OwnedResourceService<Item, Create, Patch, Query>["list"] };
  /** The database the service's functions are called with. */
  db: Db;
}

const idParams = z.object({ id: z.string() });

/**
 * Registers list, get, create, update and delete of a resource only its owner sees (SPEC §7's
 * shape: 201 on create, 204 on delete); another user's id answers 404, also when the body is refused.
 */
export function registerOwnedResourceRoutes<Item, Create, Patch, Query>(
  app: ZodApp,
  resource: OwnedResource<Item, Create, Patch, Query>,
): void {
  const { path, schemas, summaries, service, db } = resource;
  const tags = [resource.tag];
  checkPathIdsOnRefusal(app, { id: (request, id) => service.get(db, requireUser(request), id) });
  // The zod compilers installed on the app validate and serialise; only the static types are plain
  // here, because TypeScript cannot resolve the type provider's inference over generic schemas.
  const routes = app as unknown as FastifyInstance;
  routes.get(
    path,
    {
      schema: {
        tags,
        summary: summaries.list,
        querystring: schemas.listQuery,
        response: { 200: listResponse(schemas.item) },
      },
    },
    async (request) => service.list(db, requireUser(request), request.query as Query),
  );
  if (resource.draftList) {
    const { summary, list } = resource.draftList;
    routes.get(
      `${path}/draft`,
      { schema: { tags, summary, querystring: schemas.listQuery, response: { 200: listResponse(schemas.item) } } },
      async (request) => list(db, requireUser(request), request.query as Query),
    );
  }
  routes.get(
    `${path}/:id`,
    { schema: { tags, summary: summaries.get, params: idParams, response: { 200: schemas.item } } },
    async (request) => service.get(db, requireUser(request), idOf(request)),
  );
  routes.post(
    path,
    { schema: { tags, summary: summaries.create, body: schemas.create, response: { 201: schemas.item } } },
    async (request, reply) =>
      reply.status(201).send(await service.create(db, requireUser(request), request.body as Create)),
  );
  routes.patch(
    `${path}/:id`,
    {
      schema: {
        tags,
        summary: summaries.update,
        params: idParams,
        body: schemas.patch,
        response: { 200: schemas.item },
      },
    },
    async (request) => service.update(db, requireUser(request), idOf(request), request.body as Patch),
  );
  routes.delete(
    `${path}/:id`,
    { schema: { tags, summary: summaries.remove, params: idParams, response: { 204: z.null() } } },
    async (request, reply) => {
      await service.remove(db, requireUser(request), idOf(request));
      return reply.status(204).send(null);
    },
  );
}

/** The route's :id, already checked against idParams by the schema. */
function idOf(request: FastifyRequest): string {
  return (request.params as z.infer<typeof idParams>).id;
}
