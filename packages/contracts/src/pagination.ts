import { z } from "zod";
import { queryInt32 } from "./bounds";

/** Query params every list call takes (ARCHITECTURE §3). page_size is capped at 100. */
export const paginationQuery = z.object({
  page_num: queryInt32().min(1).default(1),
  page_size: queryInt32().min(1).max(100).default(10),
});

export const listMetadata = z.object({
  page_num: z.number().int(),
  page_size: z.number().int(),
  num_records: z.number().int(),
});

export type ListMetadata = z.infer<typeof listMetadata>;

export function listResponse<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), metadata: listMetadata });
}

export interface ListResponse<T> {
  data: T[];
  metadata: ListMetadata;
}

/** A query value that may be sent once or repeated (`type=a&type=b`) becomes an array. */
export function repeatedQuery<T extends z.ZodType>(item: T) {
  return z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).optional());
}

/** Query booleans arrive as strings. */
export const queryBoolean = z.preprocess((v) => (v === "true" ? true : v === "false" ? false : v), z.boolean());
