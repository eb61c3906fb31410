import type { SystemResponse } from "@polyforge/contracts/systems";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { ProductError } from "../../../lib/api/productError";
import { queryKeys } from "./builderKeys";

export const fetchDraft = () => api.get<SystemResponse>("/systems/draft");
export const createDraft = () => api.post<SystemResponse>("/systems/draft");

/** The user's draft, created when there is none (SPEC §4, polymer-builder flow). */
export async function openDraft() {
  try {
    return await fetchDraft();
  } catch (error) {
    if (error instanceof ProductError && error.status === 404) return createDraft();
    throw error;
  }
}

/** Opened once per visit: a failure is not retried (the page sends the user home). */
export const draftQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.draft, queryFn: openDraft, retry: false, staleTime: Number.POSITIVE_INFINITY });

export const useDraft = () => useQuery(draftQueryOptions());
