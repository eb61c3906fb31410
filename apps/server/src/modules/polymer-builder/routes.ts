import { PolymerBuilderSystemErrors, SystemErrors } from "@polyforge/contracts/errors";
import {
  simulationProtocolBody,
  simulationProtocolResponse,
  systemSetupBody,
  systemSetupResponse,
} from "@polyforge/contracts/polymer-builder";
import { finishDraftBody, systemResponse } from "@polyforge/contracts/systems";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import { AppError, checkPathIdsOnRefusal } from "../../platform/errors";
import { isUuid } from "../../platform/ids";
import type { ModuleContext } from "../module-context";
import {
  createDraft,
  deleteDraft,
  finishDraft,
  getDraft,
  getDraftProtocol,
  getDraftSetup,
  updateProtocol,
  updateSetup,
} from "./service";

const idParams = z.object({ id: z.string() });
const tags = ["polymer_builder_systems"];
/** The draft's own calls are documented with the systems' (SPEC §7 lists them there). */
const systemTags = ["systems"];

/** /api/v2/polymer_builder_systems: the draft's system setup and simulation protocol (SPEC §7). */
export function polymerBuilderRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    // An id other than the caller's draft's setup or protocol answers 404 even when the body is
    // refused too.
    checkPathIdsOnRefusal(app, {
      id: async (request, id) => {
        if (!isUuid(id)) return;
        const user = requireUser(request);
        const setup = request.routeOptions.url?.includes("system_setup");
        const own = await (setup ? getDraftSetup(db, user) : getDraftProtocol(db, user)).catch(() => undefined);
        if (own?.id !== id) throw new AppError(404, PolymerBuilderSystemErrors.UPDATE_NOT_FOUND, { id });
      },
    });
    app.get(
      "/polymer_builder_systems/system_setup/draft",
      { schema: { tags, summary: "The draft's system setup", response: { 200: systemSetupResponse } } },
      async (request) => getDraftSetup(db, requireUser(request)),
    );
    app.get(
      "/polymer_builder_systems/simulation_protocol/draft",
      { schema: { tags, summary: "The draft's simulation protocol", response: { 200: simulationProtocolResponse } } },
      async (request) => getDraftProtocol(db, requireUser(request)),
    );
    app.patch(
      "/polymer_builder_systems/system_setup/:id",
      {
        schema: {
          tags,
          summary: "Save the draft's system setup",
          params: idParams,
          body: systemSetupBody,
          response: { 200: systemSetupResponse },
        },
      },
      async (request) => updateSetup(db, requireUser(request), request.params.id, request.body),
    );
    app.patch(
      "/polymer_builder_systems/simulation_protocol/:id",
      {
        schema: {
          tags,
          summary: "Save the draft's simulation protocol",
          params: idParams,
          body: simulationProtocolBody,
          response: { 200: simulationProtocolResponse },
        },
      },
      async (request) => updateProtocol(db, requireUser(request), request.params.id, request.body),
    );
  };
}

/** /api/v2/systems draft calls (SPEC §7): the polymer builder's one draft system per user. */
export function systemDraftRoutes({ database, config }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    // An id other than the caller's draft answers 404 even when the body is refused too.
    checkPathIdsOnRefusal(app, {
      id: async (request, id) => {
        if (!isUuid(id)) return;
        const draft = await getDraft(db, requireUser(request)).catch(() => undefined);
        if (draft?.id !== id) throw new AppError(404, SystemErrors.UPDATE_NOT_FOUND, { id });
      },
    });
    app.post(
      "/systems/draft",
      { schema: { tags: systemTags, summary: "Start a polymer-builder draft", response: { 201: systemResponse } } },
      async (request, reply) => reply.status(201).send(await createDraft(db, requireUser(request))),
    );
    app.get(
      "/systems/draft",
      { schema: { tags: systemTags, summary: "The caller's draft system", response: { 200: systemResponse } } },
      async (request) => getDraft(db, requireUser(request)),
    );
    app.delete(
      "/systems/draft",
      { schema: { tags: systemTags, summary: "Clear the draft", response: { 204: z.null() } } },
      async (request, reply) => {
        await deleteDraft(db, requireUser(request));
        return reply.status(204).send(null);
      },
    );
    app.patch(
      "/systems/:id/draft",
      {
        schema: {
          tags: systemTags,
          summary: "Name and finish the draft",
          params: idParams,
          body: finishDraftBody,
          response: { 200: systemResponse },
        },
      },
      async (request) => finishDraft(db, requireUser(request), request.params.id, request.body, config.jobLimits),
    );
  };
}
