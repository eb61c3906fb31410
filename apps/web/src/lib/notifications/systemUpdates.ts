import type { NotificationMessage, NotificationType } from "@polyforge/contracts/notifications";
import type { ListResponse } from "@polyforge/contracts/pagination";
import {
  CANCELLABLE_STATUSES,
  type SystemExecution,
  type SystemWithExecutions,
  systemExecution,
} from "@polyforge/contracts/system-executions";
import type { Query, QueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { isQueryOfSystem, SYSTEM_LISTS_QUERY_KEY, SYSTEMS_QUERY_KEY, systemQueryKey } from "../api/systems";

/** What a message may carry of an execution. */
const executionFields = systemExecution.omit({ id: true }).partial();

/** A run's status message: which run of which system, its status and progress (and a notice when
 * something happened to it). Any other field of the execution it carries is taken too. */
const executionStatusMessage = executionFields.extend({
  message_type: z.literal("system_execution_status_updated"),
  system_id: z.string(),
  execution_id: z.string(),
  status: systemExecution.shape.status,
  progress: systemExecution.shape.progress,
});
type ExecutionStatusMessage = z.infer<typeof executionStatusMessage>;

/** Messages about a system from a file or a structure: its own row changed (its data, its last
 * modification), so its place in any list may have too. */
const ROW_MESSAGES: readonly NotificationType[] = [
  "uploaded_system_status_updated",
  "system_conversion_status_updated",
];

/**
 * Brings the cached /systems data up to date with one notification. A run's status message is
 * written into every cached copy of its execution (the lists and the detail), and only what it does
 * not carry is asked again: the detail (stage, simulated time, results), and the lists holding the
 * system once the run ends (its error, its files). Any other message, or one about a run not in the
 * cache, refreshes that one system's queries; one that names no system, every systems query.
 */
export function applySystemNotification(queryClient: QueryClient, message: NotificationMessage): void {
  const systemId = typeof message.system_id === "string" ? message.system_id : null;
  if (systemId === null) {
    void queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY });
    return;
  }
  const status = executionStatusMessage.safeParse(message);
  const before = status.success ? writeExecution(queryClient, status.data) : undefined;
  if (status.success && before) {
    refetchWhatItLacks(queryClient, status.data, before, message);
    return;
  }
  invalidateSystem(queryClient, systemId, ROW_MESSAGES.includes(message.message_type));
}

/** Writes the message's fields into every cached copy of its execution; answers the execution as it
 * was, or undefined when no cached system holds that run. */
function writeExecution(queryClient: QueryClient, message: ExecutionStatusMessage): SystemExecution | undefined {
  const { system_id: systemId, execution_id: executionId } = message;
  return patchExecution(queryClient, systemId, executionId, executionFields.parse(message));
}

/** Takes an execution as the server has just answered it (a cancel's own answer) into every cached
 * copy of that run, without waiting for a refetch. */
export function storeExecution(queryClient: QueryClient, systemId: string, execution: SystemExecution): void {
  patchExecution(queryClient, systemId, execution.id, execution);
}

/** A run that has ended (cancelled, failed, completed) never becomes active again: a progress message
 * sent before the end but read after it is stale and must not bring back its status. */
const staleRevival = (current: SystemExecution, fields: Partial<SystemExecution>): boolean =>
  fields.status !== undefined &&
  CANCELLABLE_STATUSES.includes(fields.status) &&
  !CANCELLABLE_STATUSES.includes(current.status) &&
  current.status !== "not_submitted";

/** Writes fields into every cached copy of one run (none for a stale revival of an ended run);
 * answers the run as it was, or undefined when no cached system holds it. */
function patchExecution(
  queryClient: QueryClient,
  systemId: string,
  executionId: string,
  fields: Partial<SystemExecution>,
): SystemExecution | undefined {
  let before: SystemExecution | undefined;
  const update = (system: SystemWithExecutions): SystemWithExecutions => {
    const current = system.id === systemId ? system.system_executions.find(({ id }) => id === executionId) : undefined;
    if (!current) return system;
    before ??= current;
    if (staleRevival(current, fields)) return system;
    const executions = system.system_executions.map((run) => (run === current ? { ...run, ...fields } : run));
    return { ...system, system_executions: executions };
  };
  queryClient.setQueryData<SystemWithExecutions>(systemQueryKey(systemId), (system) =>
    system ? changed(system, update(system)) : undefined,
  );
  queryClient.setQueriesData<ListResponse<SystemWithExecutions>>({ queryKey: SYSTEM_LISTS_QUERY_KEY }, (list) => {
    const systems = list?.data.map(update);
    return list && systems?.some((system, i) => system !== list.data[i]) ? { ...list, data: systems } : undefined;
  });
  return before;
}

/** The new value, or undefined (no write, the entry's age untouched) when nothing changed. */
const changed = <T>(old: T, next: T): T | undefined => (next === old ? undefined : next);

/** After the message was written: the detail asks again unless the message was the whole execution;
 * a list holding the system asks again when the run has just ended (its error and files are not in
 * the message) or when its copy of the system does not have that run yet. */
function refetchWhatItLacks(
  queryClient: QueryClient,
  message: ExecutionStatusMessage,
  before: SystemExecution,
  raw: NotificationMessage,
): void {
  const { system_id: systemId, execution_id: executionId } = message;
  const whole = systemExecution.safeParse({ ...raw, id: executionId }).success;
  if (!whole) void queryClient.invalidateQueries({ queryKey: systemQueryKey(systemId), exact: true });
  const ended = message.status !== before.status && !CANCELLABLE_STATUSES.includes(message.status);
  const endLacking = ended && (message.error_message === undefined || message.result_files === undefined);
  const lacks = (query: Query) => {
    const system = systemIn(query.state.data, systemId);
    return system !== undefined && (endLacking || !system.system_executions.some(({ id }) => id === executionId));
  };
  void queryClient.invalidateQueries({ queryKey: SYSTEM_LISTS_QUERY_KEY, predicate: lacks });
}

/** Marks one system's queries stale (its detail, potentials, structure, files, and the lists that
 * hold it, or with `everyList` all lists); the ones on screen are asked again. */
function invalidateSystem(queryClient: QueryClient, systemId: string, everyList: boolean): void {
  const ofSystem = (query: Query) =>
    isQueryOfSystem(query.queryKey, systemId) ||
    (query.queryKey[1] === SYSTEM_LISTS_QUERY_KEY[1] &&
      (everyList || systemIn(query.state.data, systemId) !== undefined));
  void queryClient.invalidateQueries({ queryKey: SYSTEMS_QUERY_KEY, predicate: ofSystem });
}

/** The system as a cached page of systems lists it, if it does. */
function systemIn(data: unknown, systemId: string): SystemWithExecutions | undefined {
  const systems = (data as Partial<ListResponse<SystemWithExecutions>> | undefined)?.data;
  return Array.isArray(systems) ? systems.find((system) => system.id === systemId) : undefined;
}
