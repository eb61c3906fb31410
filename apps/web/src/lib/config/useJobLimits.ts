import { DEFAULT_JOB_LIMITS, type JobLimits } from "@polyforge/contracts/job-limits";
import { useQuery } from "@tanstack/react-query";
import { appConfigQuery } from "./appConfig";

/** This deployment's job limits (POLYFORGE_MAX_* on the server), from /config.json. main.tsx puts
 * the configuration in the cache before the first render; the contracts' defaults stand in only
 * where it is not (the server enforces its own limits either way). */
export function useJobLimits(): JobLimits {
  return useQuery(appConfigQuery).data?.jobLimits ?? DEFAULT_JOB_LIMITS;
}
