import type { JobLimits } from "@polyforge/contracts/job-limits";
import { useQuery } from "@tanstack/react-query";
import { appConfigQuery } from "./appConfig";

/** This deployment's job limits (POLYFORGE_MAX_* on the server), from /config.json; undefined only
 * until the configuration is in the cache. */
export function useJobLimits(): JobLimits | undefined {
  return useQuery(appConfigQuery).data?.jobLimits;
}
