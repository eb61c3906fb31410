import type { SystemSetupResponse } from "@polyforge/contracts/polymer-builder";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { queryKeys } from "./builderKeys";

export const fetchSetup = () => api.get<SystemSetupResponse>("/polymer_builder_systems/system_setup/draft");

export const setupQueryOptions = () => queryOptions({ queryKey: queryKeys.setup, queryFn: fetchSetup });

export const useSetup = () => useQuery(setupQueryOptions());
