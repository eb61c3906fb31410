import type { PotentialResponse } from "@polyforge/contracts/potentials";
import type { SystemExecution, SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { builtSystem, potentialGeneration } from "../../test/fixtures";
import { renderApp } from "../../test/renderApp";
import { jsonResponse as json, signedInWithFetch } from "../../test/signedInFetch";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();

function execution(overrides: Partial<SystemExecution>): SystemExecution {
  return {
    id: crypto.randomUUID(),
    status: "completed",
    progress: 100,
    stage: null,
    seed: 1,
    versions: {},
    error_code: null,
    error_message: null,
    result_files: [],
    created_at: "2026-11-20T10:00:00Z",
    started_at: null,
    finished_at: null,
    updated_at: "2026-11-20T10:00:00Z",
    ...overrides,
  };
}

function system(name: string, overrides: Partial<SystemWithExecutions> = {}): SystemWithExecutions {
  return builtSystem({ id: crypto.randomUUID(), name, sanitized_name: name.toLowerCase(), ...overrides });
}

const done = system("Done melt", {
  system_executions: [execution({ result_files: [{ name: "done_melt_files.zip", size: 10 }] })],
  potentials: [{ id: "p-1", name: "GAFF2 water", system_type: "system" }],
});
/** The potential of Done melt as its system's potentials list answers it: a generation at 40 %. */
const generatedPotential: PotentialResponse = {
  id: "p-1",
  system_id: done.id,
  name: "GAFF2 water",
  description: "",
  origin: "generate",
  system_type: "system",
  is_draft: false,
  antechamber_potential: { force_field: "GAFF2", charge: 0, minimization_steps: 5 },
  potential_execution: potentialGeneration({ status: "running", progress: 40 }),
  uploaded_potential: null,
  created_at: "2026-11-25T10:00:00Z",
  updated_at: "2026-11-25T10:00:00Z",
};
const failed = system("Failed melt", {
  system_executions: [
    execution({ status: "error", error_code: "CELL_TOO_SMALL", error_message: "The cell is too small." }),
  ],
});
const fresh = system("Fresh melt");

/** The list answers `systems` with 12 records in total; start answers `startStatus`. */
function serve(startStatus = 201) {
  fetchMock.mockImplementation(async (url, init) => {
    const path = String(url);
    if (init?.method === "POST" && path.endsWith("/process/start")) {
      return startStatus < 400
        ? json(startStatus, execution({ status: "waiting_for_resources" }))
        : json(startStatus, { errors: [{ error_code: "SYSTEM.PROCESS.FAILED", args: {} }] });
    }
    if (path.startsWith("/api/v2/systems?")) {
      return json(200, { data: [done, failed, fresh], metadata: { page_num: 1, page_size: 10, num_records: 12 } });
    }
    if (path === `/api/v2/systems/${done.id}/potentials/`) return json(200, { data: [generatedPotential] });
    return json(404, { errors: [{ error_code: "COMMON.ROUTE.NOT_FOUND" }] });
  });
}

const listCalls = () =>
  fetchMock.mock.calls
    .map(([url]) => String(url))
    .filter((url) => url.startsWith("/api/v2/systems?"))
    .map((url) => Object.fromEntries(new URLSearchParams(url.split("?")[1])));

describe("systems catalogue", () => {
  signedInWithFetch(fetchMock);

  it("shows rows with status tags, the actions each status allows, pagination and potentials", async () => {
    serve();
    renderApp("/systems?type=system");
    const doneRow = (await screen.findByText("Done melt")).closest("tr")!;
    expect(within(doneRow).getByText("Completed")).toBeInTheDocument();
    expect(within(doneRow).getByRole("button", { name: "Download the files of Done melt" })).toBeInTheDocument();
    expect(within(doneRow).queryByRole("button", { name: /Start processing/ })).not.toBeInTheDocument();

    const failedRow = screen.getByText("Failed melt").closest("tr")!;
    expect(within(failedRow).getByText("Error")).toBeInTheDocument();
    expect(within(failedRow).getByRole("button", { name: "Start processing Failed melt" })).toBeInTheDocument();
    const freshRow = screen.getByText("Fresh melt").closest("tr")!;
    expect(within(freshRow).getByText("Not submitted")).toBeInTheDocument();
    expect(within(freshRow).queryByRole("button", { name: /Download/ })).not.toBeInTheDocument();

    expect(screen.getByText("1 - 10")).toBeInTheDocument();
    expect(screen.getByText("Total: 12")).toBeInTheDocument();
    expect(screen.getByText("1 of 2 pages")).toBeInTheDocument();
    expect(listCalls()[0]).toEqual({ page_num: "1", page_size: "10", type: "system" });

    await userEvent.setup().click(screen.getByRole("button", { name: "Show the potentials of Done melt" }));
    const potentialRow = screen.getByRole("row", { name: /Potential - GAFF2 water/ });
    expect(within(potentialRow).getByText("System")).toBeInTheDocument();
    // Its status tag, as the potential's own generation has it.
    expect(await within(potentialRow).findByText("Running 40%")).toBeInTheDocument();
  });

  it("keeps the expander's place on rows without potentials, so every name starts at the same x", async () => {
    serve();
    renderApp("/systems?type=system");
    await screen.findByText("Done melt");
    const slots = ["Done melt", "Failed melt", "Fresh melt"].map(
      (name) => screen.getByText(name).closest("td")!.querySelector<HTMLElement>("[data-expander-slot]")!,
    );
    expect(slots.every((slot) => slot !== null)).toBe(true);
    expect(new Set(slots.map((slot) => slot.style.width)).size).toBe(1);
    expect(within(slots[2]!).queryByRole("button")).not.toBeInTheDocument();
  });

  it("starts processing with a toast and refetches; a refused start shows the spec's message", async () => {
    serve();
    renderApp("/systems?type=system");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Start processing Fresh melt" }));
    expect(await screen.findByText("Processing started")).toBeInTheDocument();
    await waitFor(() => expect(listCalls().length).toBeGreaterThan(1));

    serve(409);
    await user.click(screen.getByRole("button", { name: "Start processing Failed melt" }));
    expect(await screen.findByText("There was a problem starting the processing")).toBeInTheDocument();
  });

  it("resets the page and the name search when the type filter changes", async () => {
    serve();
    const { router } = renderApp("/systems?type=system");
    const user = userEvent.setup();
    await screen.findByText("Done melt");
    await user.click(screen.getByRole("button", { name: "2" }));
    await user.type(screen.getByPlaceholderText("Search molecular systems by name..."), "melt");
    await waitFor(() => expect(listCalls().at(-1)).toMatchObject({ name: "melt", page_num: "1" }));

    await user.click(screen.getByText("Mixed"));
    expect(router.state.location.search).toEqual({ type: "mixed" });
    expect(screen.getByPlaceholderText("Search molecular systems by name...")).toHaveValue("");
    await waitFor(() => expect(listCalls().at(-1)).toEqual({ page_num: "1", page_size: "10", type: "mixed" }));
  });

  it("asks before archiving a system, and archives only once confirmed", async () => {
    serve();
    const serveList = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (url, init) =>
      init?.method === "DELETE" ? new Response(null, { status: 204 }) : serveList(url, init),
    );
    renderApp("/systems?type=system");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Delete Fresh melt" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete system" });
    expect(within(dialog).getByText(/Its files and results are kept/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === "DELETE")).toBe(false);

    await user.click(screen.getByRole("button", { name: "Delete Fresh melt" }));
    await user.click(
      within(await screen.findByRole("dialog", { name: "Delete system" })).getByRole("button", {
        name: "Delete system",
      }),
    );
    expect(await screen.findByText("System deleted")).toBeInTheDocument();
    const deletes = fetchMock.mock.calls.filter(([, init]) => init?.method === "DELETE");
    expect(deletes.map(([url]) => String(url))).toEqual([`/api/v2/systems/${fresh.id}`]);
  });

  it("says 'An error has occurred' when the list cannot be read", async () => {
    fetchMock.mockImplementation(async () => json(400, { errors: [{ error_code: "SYSTEM.GET.INVALID_QUERY" }] }));
    renderApp("/systems");
    expect(await screen.findByText("An error has occurred")).toBeInTheDocument();
  });
});
