import { listResponse } from "@polyforge/contracts/pagination";
import {
  projectBody,
  projectListQuery,
  projectPatchBody,
  projectResponse,
  projectSystemParams,
} from "@polyforge/contracts/projects";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUser } from "../../platform/auth/authenticate";
import { checkPathIdsOnRefusal } from "../../platform/errors";
import type { ModuleContext } from "../module-context";
import {
  addSystemToProject,
  createProject,
  deleteProject,
  getProject,
  listProjects,
  removeSystemFromProject,
  updateProject,
} from "./service";

const tags = ["projects"];
const idParams = z.object({ id: z.string() });

/** /api/v2/projects (SPEC §7) and the filing of systems under a project. */
export function projectsRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    // Another user's id answers 404 even when the body or query is refused too.
    checkPathIdsOnRefusal(app, { id: (request, id) => getProject(db, requireUser(request), id) });
    app.get(
      "/projects",
      {
        schema: {
          tags,
          summary: "List the caller's projects",
          querystring: projectListQuery,
          response: { 200: listResponse(projectResponse) },
        },
      },
      async (request) => listProjects(db, requireUser(request), request.query),
    );
    app.get(
      "/projects/:id",
      { schema: { tags, summary: "One project", params: idParams, response: { 200: projectResponse } } },
      async (request) => getProject(db, requireUser(request), request.params.id),
    );
    app.post(
      "/projects",
      { schema: { tags, summary: "Create a project", body: projectBody, response: { 201: projectResponse } } },
      async (request, reply) => reply.status(201).send(await createProject(db, requireUser(request), request.body)),
    );
    app.patch(
      "/projects/:id",
      {
        schema: {
          tags,
          summary: "Rename or describe a project",
          params: idParams,
          body: projectPatchBody,
          response: { 200: projectResponse },
        },
      },
      async (request) => updateProject(db, requireUser(request), request.params.id, request.body),
    );
    app.delete(
      "/projects/:id",
      {
        schema: {
          tags,
          summary: "Delete a project (its systems stay)",
          params: idParams,
          response: { 204: z.null() },
        },
      },
      async (request, reply) => {
        await deleteProject(db, requireUser(request), request.params.id);
        return reply.status(204).send(null);
      },
    );
    app.put(
      "/projects/:id/systems/:systemId",
      {
        schema: {
          tags,
          summary: "File a system under the project (moving it from another)",
          params: projectSystemParams,
          response: { 200: projectResponse },
        },
      },
      async (request) => addSystemToProject(db, requireUser(request), request.params.id, request.params.systemId),
    );
    app.delete(
      "/projects/:id/systems/:systemId",
      {
        schema: {
          tags,
          summary: "Take a system out of the project (the system stays)",
          params: projectSystemParams,
          response: { 200: projectResponse },
        },
      },
      async (request) => removeSystemFromProject(db, requireUser(request), request.params.id, request.params.systemId),
    );
  };
}
