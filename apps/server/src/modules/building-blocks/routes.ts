import {
  buildingBlock,
  buildingBlockDraftListQuery,
  buildingBlockDraftStatusQuery,
  buildingBlockList,
  buildingBlockListQuery,
  createBuildingBlockBody,
  patchBuildingBlockBody,
} from "@polyforge/contracts/building-blocks";
import { BLOCK_TYPES, CREATABLE_BLOCK_TYPES } from "@polyforge/contracts/enums";
import { BuildingBlockErrors } from "@polyforge/contracts/errors";
import { idempotencyKeyHeaders } from "@polyforge/contracts/idempotency";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import type { Db } from "../../platform/db/database";
import { AppError, checkPathIdsOnRefusal } from "../../platform/errors";
import type { ZodApp } from "../../platform/resource-routes";
import type { ModuleContext } from "../module-context";
import {
  archiveBuildingBlock,
  createBuildingBlock,
  getBuildingBlock,
  listBuildingBlocks,
  patchBuildingBlock,
  recoverBuildingBlock,
  setBuildingBlockDraft,
} from "./service";

const idParams = z.object({ id: z.string() });
const TAGS = ["building blocks"];

/** A type outside `allowed` answers VALIDATE.TYPE_INVALID rather than a generic validation error. */
function assertTypes(values: unknown, allowed: readonly string[]): void {
  const types = Array.isArray(values) ? values : values === undefined ? [] : [values];
  const invalid = types.find((type) => typeof type !== "string" || !allowed.includes(type));
  if (invalid !== undefined) throw new AppError(400, BuildingBlockErrors.VALIDATE_TYPE_INVALID, { type: invalid });
}

async function checkQueryTypes(request: FastifyRequest): Promise<void> {
  assertTypes((request.query as { type?: unknown } | undefined)?.type, BLOCK_TYPES);
}

/** /api/v2/building_blocks (SPEC §7): the caller's blocks plus the global aminoacids. */
export function buildingBlocksRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  const { db } = database;
  return async (app) => {
    // Another user's id answers 404 even when the body or query is refused too.
    checkPathIdsOnRefusal(app, { id: (request, id) => getBuildingBlock(db, requireUser(request).id, id) });
    registerBlockListRoutes(app, db);
    registerBlockRecordRoutes(app, db);
    registerBlockStateRoutes(app, db);
  };
}

/** The catalogue and the polymer builder's draft, paged (a type outside the enum answers TYPE_INVALID). */
function registerBlockListRoutes(app: ZodApp, db: Db): void {
  app.get(
    "/building_blocks",
    {
      schema: {
        tags: TAGS,
        summary: "List building blocks",
        querystring: buildingBlockListQuery,
        response: { 200: buildingBlockList },
      },
      preValidation: checkQueryTypes,
    },
    async (request) => {
      const { page_num, page_size, type, name, show_archived, version } = request.query;
      return listBuildingBlocks(
        db,
        requireUser(request).id,
        { types: type, name, archived: show_archived, version },
        { page_num, page_size },
      );
    },
  );

  app.get(
    "/building_blocks/draft",
    {
      schema: {
        tags: TAGS,
        summary: "List the blocks added to the polymer builder's draft",
        querystring: buildingBlockDraftListQuery,
        response: { 200: buildingBlockList },
      },
      preValidation: checkQueryTypes,
    },
    async (request) => {
      const { page_num, page_size, type, name } = request.query;
      return listBuildingBlocks(
        db,
        requireUser(request).id,
        { types: type, name, archived: false, draftOnly: true },
        { page_num, page_size },
      );
    },
  );
}

/** One block: read, create (idempotent with a key; creatable types only) and change. */
function registerBlockRecordRoutes(app: ZodApp, db: Db): void {
  app.get(
    "/building_blocks/:id",
    { schema: { tags: TAGS, summary: "Get a building block", params: idParams, response: { 200: buildingBlock } } },
    async (request) => getBuildingBlock(db, requireUser(request).id, request.params.id),
  );

  app.post(
    "/building_blocks",
    {
      schema: {
        tags: TAGS,
        headers: idempotencyKeyHeaders,
        summary: "Create a linear or dendrimer block (version 0)",
        body: createBuildingBlockBody,
        response: { 201: buildingBlock },
      },
      preValidation: async (request) => {
        const body = request.body;
        if (body && typeof body === "object")
          assertTypes((body as { type?: unknown }).type ?? null, CREATABLE_BLOCK_TYPES);
      },
    },
    async (request, reply) => {
      const key = request.headers["idempotency-key"];
      return reply.status(201).send(await createBuildingBlock(db, requireUser(request).id, request.body, key));
    },
  );

  app.patch(
    "/building_blocks/:id",
    {
      schema: {
        tags: TAGS,
        summary: "Change a block's name, description or SMILES",
        params: idParams,
        body: patchBuildingBlockBody,
        response: { 200: buildingBlock },
      },
    },
    async (request) => patchBuildingBlock(db, requireUser(request).id, request.params.id, request.body),
  );
}

/** A block's state: archive, recover, and in or out of the builder's draft. */
function registerBlockStateRoutes(app: ZodApp, db: Db): void {
  app.delete(
    "/building_blocks/:id",
    { schema: { tags: TAGS, summary: "Archive a block", params: idParams, response: { 200: buildingBlock } } },
    async (request) => archiveBuildingBlock(db, requireUser(request).id, request.params.id),
  );

  app.patch(
    "/building_blocks/:id/recover",
    {
      schema: {
        tags: TAGS,
        summary: "Recover an archived block",
        params: idParams,
        response: { 200: buildingBlock },
      },
    },
    async (request) => recoverBuildingBlock(db, requireUser(request).id, request.params.id),
  );

  app.patch(
    "/building_blocks/:id/draft",
    {
      schema: {
        tags: TAGS,
        summary: "Add a block to, or remove it from, the polymer builder's draft",
        params: idParams,
        querystring: buildingBlockDraftStatusQuery,
        response: { 200: buildingBlock },
      },
    },
    async (request) =>
      setBuildingBlockDraft(db, requireUser(request).id, request.params.id, request.query.draft_status),
  );
}
