import { z } from "zod";
import { paginationQuery } from "./pagination";
import { REQUIRED_FIELD } from "./users";

/** Longest project name and description the server keeps. */
export const PROJECT_NAME_MAX = 255;
export const PROJECT_DESCRIPTION_MAX = 2000;

/** SPEC §9: the projects summary reads its projects in one page of 100. */
export const PROJECTS_PAGE_SIZE = 100;

/** The messages users see at the fields (the same on both sides). */
export const PROJECT_MESSAGES = {
  required: REQUIRED_FIELD,
  nameTooLong: `The name can have at most ${PROJECT_NAME_MAX} characters`,
  descriptionTooLong: `The description can have at most ${PROJECT_DESCRIPTION_MAX} characters`,
} as const;

/** SPEC §5 Project: name required, description optional. Both trimmed. */
export const projectBody = z.object({
  name: z.string().trim().min(1, PROJECT_MESSAGES.required).max(PROJECT_NAME_MAX, PROJECT_MESSAGES.nameTooLong),
  description: z
    .string()
    .trim()
    .max(PROJECT_DESCRIPTION_MAX, PROJECT_MESSAGES.descriptionTooLong)
    .nullish()
    .transform((d) => d || null),
});
export type ProjectBody = z.input<typeof projectBody>;

/** PATCH sends name and description (SPEC §7); a field left out keeps its value. */
export const projectPatchBody = z.object({
  name: projectBody.shape.name.optional(),
  description: projectBody.shape.description.optional(),
});

/** GET /projects: SPEC §7's page_num, page_size, name and description (substring, any case). */
export const projectListQuery = paginationQuery.extend({
  name: z.string().trim().max(PROJECT_NAME_MAX).optional(),
  description: z.string().trim().max(PROJECT_DESCRIPTION_MAX).optional(),
});

export const projectResponse = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  /** The systems filed under the project that are still in the catalogue (not archived). */
  system_ids: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Project = z.infer<typeof projectResponse>;

/** PUT /projects/{id}/systems/{systemId} files a system under a project (moving it from another). */
export const projectSystemParams = z.object({ id: z.string(), systemId: z.string() });
