import {
  projectBody,
  projectListQuery,
  projectPatchBody,
  projectResponse,
  projectSystemParams,
} from "@polyforge/contracts/projects";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { requireUser } from "../../platform/auth/authenticate";
import { registerOwnedResourceRoutes } from "../../platform/resource-routes";
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

/** /api/v2/projects (SPEC §7) and the filing of systems under a project. */
export function projectsRoutes({ database }: ModuleContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = database.db;
    registerOwnedResourceRoutes(app, {
      path: "/projects",
      tag: "projects",
      schemas: { item: projectResponse, create: projectBody, patch: projectPatchBody, listQuery: projectListQuery },
      summaries: {
        list: "List the caller's projects",
        get: "One project",
        create: "Create a project",
        update: "Rename or describe a project",
        remove: "Delete a project (its systems stay)",
      },
      service: {
        list: listProjects,
        get: getProject,
        create: createProject,
        update: updateProject,
        remove: deleteProject,
      },
      db,
    });
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
      async (request) => addSystemToProject(db, requireUser(request), request.params),
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
      async (request) => removeSystemFromProject(db, requireUser(request), request.params),
    );
  };
}
