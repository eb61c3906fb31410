import {
  simulationProtocolBody,
  simulationProtocolResponse,
  systemSetupBody,
  systemSetupResponse,
} from "@polyforge/contracts/polymer-builder";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { ModuleContext } from "../../app";
import { requireUser } from "../../platform/auth/authenticate";
import { getDraftProtocol, getDraftSetup, updateProtocol, updateSetup } from "./service";

const idParams = z.object({ id: z.string() });
const tags = ["polymer_builder_systems"];

/** /api/v2/polymer_builder_systems: the draft's system setup and simulation protocol (SPEC §7). */
export function polymerBuilderSystemsRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
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
