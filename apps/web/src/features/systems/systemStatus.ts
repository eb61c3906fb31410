import { currentStatus, type SystemWithExecutions } from "@polyforge/contracts/system-executions";

type StatusSource = Pick<SystemWithExecutions, "origin" | "system_data" | "system_executions">;

/** The status a system's tag shows: its latest run for a polymer-builder system; for a system from
 * a file or a structure, system_data.status (upload or conversion, SPEC §3-4). */
export function systemStatus(system: StatusSource): string {
  if (system.origin === "polymer_builder") return currentStatus(system);
  const status = system.system_data.status;
  return typeof status === "string" ? status : "not_submitted";
}

/** Why that status is an error, shown on hover: the run's message or the file's/structure's problem. */
export function systemStatusError(system: StatusSource): string | null {
  if (system.origin === "polymer_builder") return system.system_executions.at(-1)?.error_message ?? null;
  const problem = system.system_data.problem as { message?: unknown } | null | undefined;
  return typeof problem?.message === "string" ? problem.message : null;
}
