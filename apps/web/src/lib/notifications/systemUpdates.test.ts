import type { ListResponse } from "@polyforge/contracts/pagination";
import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { QueryClient, type QueryKey } from "@tanstack/react-query";
import { builtSystem, runningExecution } from "../../test/fixtures";
import { applySystemNotification } from "./systemUpdates";

const melt = builtSystem({ id: "melt", name: "Melt", sanitized_name: "melt", system_executions: [runningExecution()] });
const other = builtSystem({
  id: "other",
  name: "Other",
  sanitized_name: "other",
  system_executions: [runningExecution({ id: "run-9" })],
});
const page = (...systems: SystemWithExecutions[]): ListResponse<SystemWithExecutions> => ({
  data: systems,
  metadata: { page_num: 1, page_size: 10, num_records: systems.length },
});

// The keys the features cache /systems under (lib/api/systems.ts says how they are made).
const KEYS = {
  catalogue: ["systems", "list", { page_num: 1, page_size: 10, type: "system" }],
  otherPage: ["systems", "list", { page_num: 2, page_size: 10, type: "system" }],
  project: ["systems", "list", { project_id: "project-1" }],
  detail: ["systems", "detail", "melt"],
  potentials: ["systems", "potentials", "melt"],
  structure: ["systems", "structure", "melt", "viewer.pdb"],
  otherDetail: ["systems", "detail", "other"],
  otherPotentials: ["systems", "potentials", "other"],
} satisfies Record<string, QueryKey>;

/** A cache holding the melt in two lists and its detail, and another system beside it. */
function cache() {
  const queryClient = new QueryClient();
  queryClient.setQueryData(KEYS.catalogue, page(melt, other));
  queryClient.setQueryData(KEYS.otherPage, page(other));
  queryClient.setQueryData(KEYS.project, page(melt));
  queryClient.setQueryData(KEYS.detail, melt);
  queryClient.setQueryData(KEYS.potentials, { data: [] });
  queryClient.setQueryData(KEYS.structure, "ATOM");
  queryClient.setQueryData(KEYS.otherDetail, other);
  queryClient.setQueryData(KEYS.otherPotentials, { data: [] });
  const stale = () =>
    Object.entries(KEYS)
      .filter(([, key]) => queryClient.getQueryState(key)?.isInvalidated)
      .map(([name]) => name);
  const meltIn = (key: QueryKey) => {
    const data = queryClient.getQueryData<SystemWithExecutions | ListResponse<SystemWithExecutions>>(key);
    const system = data && "data" in data ? data.data.find(({ id }) => id === "melt") : data;
    return system?.system_executions.at(-1);
  };
  return { queryClient, stale, meltIn };
}

const statusMessage = (fields: Record<string, unknown>) => ({
  message_type: "system_execution_status_updated" as const,
  system_id: "melt",
  execution_id: "run-1",
  ...fields,
});

describe("a status message in the systems cache", () => {
  it("writes the run's status and progress into every cached copy and asks again only for the detail", () => {
    const { queryClient, stale, meltIn } = cache();
    applySystemNotification(queryClient, statusMessage({ status: "running", progress: 64 }));
    for (const key of [KEYS.catalogue, KEYS.project, KEYS.detail]) {
      expect(meltIn(key)).toMatchObject({ status: "running", progress: 64, stage: "dynamics" });
    }
    // The detail shows what the message does not carry (stage, simulated time): only it is asked again.
    expect(stale()).toEqual(["detail"]);
    expect(queryClient.getQueryData<ListResponse<SystemWithExecutions>>(KEYS.otherPage)?.data[0]).toBe(other);
  });

  it("takes a notice and the new status of a run taken back", () => {
    const { queryClient, meltIn } = cache();
    const notice = "The server running this stopped; processing was taken back and started again.";
    applySystemNotification(queryClient, statusMessage({ status: "processing", progress: 0, notice }));
    expect(meltIn(KEYS.catalogue)).toMatchObject({ status: "processing", progress: 0, notice });
    expect(meltIn(KEYS.detail)).toMatchObject({ status: "processing", progress: 0, notice });
  });

  it("asks again for the lists holding the system once its run ends (its error and files are not in the message)", () => {
    const { queryClient, stale, meltIn } = cache();
    applySystemNotification(queryClient, statusMessage({ status: "error", progress: 30 }));
    expect(meltIn(KEYS.catalogue)).toMatchObject({ status: "error" });
    expect(stale()).toEqual(["catalogue", "project", "detail"]);
  });

  it("asks again for a list whose copy of the system does not have the run yet", () => {
    const { queryClient, stale } = cache();
    queryClient.setQueryData(KEYS.otherPage, page(other, { ...melt, system_executions: [] }));
    applySystemNotification(queryClient, statusMessage({ status: "running", progress: 64 }));
    expect(stale()).toEqual(["otherPage", "detail"]);
  });

  it("asks for nothing when the message is the whole execution", () => {
    const { queryClient, stale, meltIn } = cache();
    const { id: _id, ...whole } = runningExecution({
      status: "completed",
      progress: 100,
      result_files: [{ name: "a.zip", size: 1 }],
    });
    applySystemNotification(queryClient, statusMessage(whole));
    expect(meltIn(KEYS.detail)).toMatchObject({ status: "completed", result_files: [{ name: "a.zip", size: 1 }] });
    expect(stale()).toEqual([]);
  });

  it("refreshes that one system's queries for a run the cache does not hold (started elsewhere)", () => {
    const { queryClient, stale, meltIn } = cache();
    applySystemNotification(
      queryClient,
      statusMessage({ execution_id: "run-2", status: "waiting_for_resources", progress: 0 }),
    );
    expect(stale()).toEqual(["catalogue", "project", "detail", "potentials", "structure"]);
    expect(meltIn(KEYS.detail)).toMatchObject({ id: "run-1", status: "running" });
  });

  it("refreshes that one system's queries when the message lacks a field", () => {
    const { queryClient, stale, meltIn } = cache();
    applySystemNotification(queryClient, statusMessage({ progress: 50 }));
    expect(stale()).toEqual(["catalogue", "project", "detail", "potentials", "structure"]);
    expect(meltIn(KEYS.detail)).toMatchObject({ status: "running", progress: 10 });
  });

  it("asks for nothing about a run of a system the cache does not hold", () => {
    const { queryClient, stale } = cache();
    applySystemNotification(queryClient, statusMessage({ system_id: "elsewhere", status: "running", progress: 5 }));
    expect(stale()).toEqual([]);
  });

  it("refreshes a potential's system (its potentials, the lists holding it), not the others", () => {
    const { queryClient, stale } = cache();
    applySystemNotification(queryClient, {
      message_type: "system_execution_status_updated",
      system_id: "melt",
      potential_id: "potential-1",
      status: "completed",
      progress: 100,
    });
    expect(stale()).toEqual(["catalogue", "project", "detail", "potentials", "structure"]);
  });

  it("refreshes a file's or structure's system and every list (its last change moves it in them)", () => {
    const { queryClient, stale } = cache();
    applySystemNotification(queryClient, {
      message_type: "uploaded_system_status_updated",
      system_id: "melt",
      status: "valid",
    });
    expect(stale()).toEqual(["catalogue", "otherPage", "project", "detail", "potentials", "structure"]);
  });

  it("refreshes every systems query when the message names no system", () => {
    const { queryClient, stale } = cache();
    applySystemNotification(queryClient, { message_type: "system_conversion_status_updated" });
    expect(stale()).toEqual(Object.keys(KEYS));
  });
});
