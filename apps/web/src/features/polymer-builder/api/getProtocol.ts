import type { SimulationProtocolResponse } from "@polyforge/contracts/polymer-builder";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import { queryKeys } from "./builderKeys";

export const fetchProtocol = () =>
  api.get<SimulationProtocolResponse>("/polymer_builder_systems/simulation_protocol/draft");

export const protocolQueryOptions = () => queryOptions({ queryKey: queryKeys.protocol, queryFn: fetchProtocol });

export const useProtocol = () => useQuery(protocolQueryOptions());
