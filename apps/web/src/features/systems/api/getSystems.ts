import type { SystemType } from "@polyforge/contracts/enums";
import type { ListResponse } from "@polyforge/contracts/pagination";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { SYSTEM_LISTS_QUERY_KEY } from "../../../lib/api/systems";
import { useSystemsPollInterval } from "../../../lib/notifications/connectionState";

export interface SystemListParams {
  page_num: number;
  page_size: number;
  type: SystemType;
  name?: string;
  /** Only the systems filed under this project. */
  project_id?: string;
}

// Under the lists' key, where live updates find the systems a status message is about.
export const systemListQueryKey = (params: SystemListParams) => [...SYSTEM_LISTS_QUERY_KEY, params] as const;

/** A page of systems; without a type, systems of every type. */
export const fetchSystems = (params: Omit<SystemListParams, "type"> & { type?: SystemType }) =>
  api.get<ListResponse<SystemWithExecutions>>("/systems", { query: { ...params } });

export const systemsQueryOptions = (params: SystemListParams) =>
  queryOptions({ queryKey: systemListQueryKey(params), queryFn: () => fetchSystems(params) });

/** One page of the catalogue; the previous page stays shown while the next one loads. Live
 * statuses come through the notifications socket; while it is closed, poll (SPEC §4, §9). */
export const useSystems = (params: SystemListParams) =>
  useQuery({
    ...systemsQueryOptions(params),
    placeholderData: keepPreviousData,
    refetchInterval: useSystemsPollInterval(),
  });
