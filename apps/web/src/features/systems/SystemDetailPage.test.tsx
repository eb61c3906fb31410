import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { screen, within } from "@testing-library/react";
import { renderApp } from "../../test/renderApp";
import { jsonResponse as json, signedInWithFetch } from "../../test/signedInFetch";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();

const SYSTEM_ID = "0b9f3c1e-8f7e-4d2a-9c54-1f2e3d4c5b6a";

const failedSystem: SystemWithExecutions = {
  id: SYSTEM_ID,
  name: "PE melt",
  sanitized_name: "pe_melt",
  description: "",
  origin: "polymer_builder",
  type: "system",
  is_draft: false,
  system_data: {
    simulation: "MD",
    random_seed: 7,
    minimization: true,
    minimization_steps: 50,
    dynamics: false,
    dynamics_steps: null,
    temperature: 300,
    ensemble: "NVT",
    construction_order: "as_listed_in_components",
    cell_dimension_selector: "density",
    density: 0.8,
    cell_sides: [100, 100, 100],
    potential_wall_z: false,
    polymers: [
      {
        id: "p-1",
        name: "PE-b-PS",
        occurrence: 3,
        force_field: "gaff2",
        segments: [
          {
            id: "s-1",
            name: "PE10",
            occurrence: 2,
            blocks: [{ building_block_id: "b-1", name: "Ethylene", occurrence: 10, ratio: null }],
          },
        ],
      },
    ],
  },
  created_at: "2026-11-20T10:00:00Z",
  updated_at: "2026-11-21T10:00:00Z",
  potentials: [],
  system_executions: [
    {
      id: "e-1",
      status: "error",
      progress: 30,
      stage: "packing",
      seed: null,
      versions: {},
      error_code: "DENSITY_TOO_HIGH",
      error_message: "The molecules do not fit at 0.8 g/cm3.",
      result_files: [],
      created_at: "2026-11-21T10:00:00Z",
      started_at: null,
      finished_at: null,
      updated_at: "2026-11-21T10:00:00Z",
    },
  ],
};

describe("system detail", () => {
  signedInWithFetch(fetchMock);

  it("shows the read-only summary and the engine's error of the latest run", async () => {
    fetchMock.mockImplementation(async () => json(200, failedSystem));
    renderApp(`/systems/${SYSTEM_ID}`);
    expect(await screen.findByRole("heading", { name: "PE melt" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "← Back to molecular systems" })).toHaveAttribute(
      "href",
      "/systems?type=system",
    );
    const setup = screen.getByText("System setup").closest("div")!;
    expect(within(setup).getByText("0.8")).toBeInTheDocument();
    expect(within(setup).queryByText("Cell sides A, B, C (Å)")).not.toBeInTheDocument();
    expect(screen.getByText("Segment PE10 × 2")).toBeInTheDocument();
    expect(screen.getByText("Ethylene × 10")).toBeInTheDocument();
    expect(screen.getByText("3 copies")).toBeInTheDocument();
    expect(screen.getByText("Processing ended with an error (DENSITY_TOO_HIGH)")).toBeInTheDocument();
    expect(screen.getByText("The molecules do not fit at 0.8 g/cm3.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Start processing PE melt" })).toBeInTheDocument();
    expect(screen.queryByTestId("execution-stage")).not.toBeInTheDocument(); // a finished run has no stage
  });

  it("shows the stage a running job is in (the melt equilibration's stages)", async () => {
    const running: SystemWithExecutions = {
      ...failedSystem,
      system_executions: [
        {
          ...failedSystem.system_executions[0]!,
          status: "running",
          progress: 45,
          stage: "equilibration stage 9 of 21: NPT at 300 K, 50000 bar",
          error_code: null,
          error_message: null,
        },
      ],
    };
    fetchMock.mockImplementation(async () => json(200, running));
    renderApp(`/systems/${SYSTEM_ID}`);
    expect(await screen.findByTestId("execution-stage")).toHaveTextContent(
      "Stage: equilibration stage 9 of 21: NPT at 300 K, 50000 bar",
    );
  });

  it("shows the simulated time and the time left of running dynamics, refreshed with the run", async () => {
    const runningAt = (simulated: number, remaining: number | null): SystemWithExecutions => ({
      ...failedSystem,
      system_executions: [
        {
          ...failedSystem.system_executions[0]!,
          status: "running",
          progress: 64,
          stage: "dynamics",
          error_code: null,
          error_message: null,
          simulated_ns: simulated,
          total_ns: 2,
          remaining_seconds: remaining,
        },
      ],
    });
    let current = runningAt(0.05, null);
    fetchMock.mockImplementation(async () => json(200, current));
    const { queryClient } = renderApp(`/systems/${SYSTEM_ID}`);
    expect(await screen.findByTestId("execution-dynamics-progress")).toHaveTextContent(
      "Simulated 0.050 of 2.000 ns · estimating…",
    );
    // The next progress the server pushes (a notification refreshes the system).
    current = runningAt(1.28, 95);
    await queryClient.invalidateQueries();
    expect(await screen.findByText("Simulated 1.280 of 2.000 ns · about 1 min 35 s left")).toBeInTheDocument();
  });

  it("holds the time left while the simulated time does not move, instead of extrapolating from a stale point", async () => {
    const runningAt = (simulated: number, remaining: number | null): SystemWithExecutions => ({
      ...failedSystem,
      system_executions: [
        {
          ...failedSystem.system_executions[0]!,
          status: "running",
          progress: 2,
          stage: "dynamics",
          error_code: null,
          error_message: null,
          simulated_ns: simulated,
          total_ns: 0.01,
          remaining_seconds: remaining,
        },
      ],
    });
    let current = runningAt(0.0002, 780);
    fetchMock.mockImplementation(async () => json(200, current));
    const { queryClient } = renderApp(`/systems/${SYSTEM_ID}`);
    const progress = await screen.findByTestId("execution-dynamics-progress");
    expect(progress).toHaveTextContent("Simulated 0.20 of 10.00 ps · about 13 min left");

    // 30 s later the engine sends the same point again with its clock run on: 35 min.
    current = runningAt(0.0002, 2100);
    await queryClient.invalidateQueries();
    await vi.waitFor(() => expect(queryClient.isFetching()).toBe(0));
    expect(progress).toHaveTextContent("Simulated 0.20 of 10.00 ps · about 13 min left");

    // The simulation moves: the estimate at the new point is taken.
    current = runningAt(0.0004, 700);
    await queryClient.invalidateQueries();
    expect(await screen.findByText("Simulated 0.40 of 10.00 ps · about 11 min 40 s left")).toBeInTheDocument();
  });

  it("stays on the page while the server cannot be reached (a restart), and leaves when the system is gone", async () => {
    fetchMock.mockImplementation(async () => json(200, failedSystem));
    const { queryClient, router } = renderApp(`/systems/${SYSTEM_ID}`);
    expect(await screen.findByRole("heading", { name: "PE melt" })).toBeInTheDocument();
    fetchMock.mockImplementation(async () => {
      throw new TypeError("Failed to fetch");
    });
    await queryClient.refetchQueries();
    expect(screen.getByRole("heading", { name: "PE melt" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(`/systems/${SYSTEM_ID}`);
    fetchMock.mockImplementation(async () => json(404, { errors: [{ error_code: "SYSTEM.GET.NOT_FOUND", args: {} }] }));
    await queryClient.refetchQueries();
    await vi.waitFor(() => expect(router.state.location.pathname).toBe("/systems"));
  });

  it("says what happened to a run taken back after its server stopped", async () => {
    const notice =
      "The server running this stopped; processing was taken back and started again from the beginning (attempt 2 of 3).";
    const retaken: SystemWithExecutions = {
      ...failedSystem,
      system_executions: [
        {
          ...failedSystem.system_executions[0]!,
          status: "processing",
          progress: 0,
          stage: null,
          error_code: null,
          error_message: null,
          notice,
        },
      ],
    };
    fetchMock.mockImplementation(async () => json(200, retaken));
    renderApp(`/systems/${SYSTEM_ID}`);
    const alert = await screen.findByTestId("execution-notice");
    expect(alert).toHaveTextContent("What happened to this run");
    expect(alert).toHaveTextContent(notice);
    expect(screen.queryByTestId("execution-dynamics-progress")).not.toBeInTheDocument();
  });

  it("shows why the cluster keeps a waiting job waiting (Slurm's reason)", async () => {
    const waiting: SystemWithExecutions = {
      ...failedSystem,
      system_executions: [
        {
          ...failedSystem.system_executions[0]!,
          status: "waiting_for_resources",
          progress: 0,
          stage: null,
          error_code: null,
          error_message: null,
          scheduler_reason: "Resources",
        },
      ],
    };
    fetchMock.mockImplementation(async () => json(200, waiting));
    renderApp(`/systems/${SYSTEM_ID}`);
    expect(await screen.findByText("Waiting on the cluster: Resources")).toBeInTheDocument();
    expect(screen.getByText("Waiting for resources")).toBeInTheDocument();
  });

  it("goes back to the catalogue with a message when the system cannot be loaded", async () => {
    fetchMock.mockImplementation(async (url) =>
      String(url).startsWith(`/api/v2/systems/${SYSTEM_ID}`)
        ? json(404, { errors: [{ error_code: "SYSTEM.GET.NOT_FOUND", args: {} }] })
        : json(200, { data: [], metadata: { page_num: 1, page_size: 10, num_records: 0 } }),
    );
    const { router } = renderApp(`/systems/${SYSTEM_ID}`);
    expect(await screen.findByText("There was an error getting the system detail")).toBeInTheDocument();
    expect(await screen.findByRole("heading", { name: "Molecular systems" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/systems");
  });

  it("lists the first systems on the dashboard cards with their status and 'SHOW ALL'", async () => {
    fetchMock.mockImplementation(async (url) => {
      const type = new URLSearchParams(String(url).split("?")[1]).get("type");
      if (type === "system") {
        return json(200, { data: [failedSystem], metadata: { page_num: 1, page_size: 5, num_records: 7 } });
      }
      return json(200, { data: [], metadata: { page_num: 1, page_size: 5, num_records: 0 } });
    });
    renderApp("/");
    const systemsCard = (await screen.findByText("Systems summary")).closest(".mantine-Card-root") as HTMLElement;
    expect(await within(systemsCard).findByRole("link", { name: "PE melt" })).toHaveAttribute(
      "href",
      `/systems/${SYSTEM_ID}`,
    );
    expect(within(systemsCard).getByText("Error")).toBeInTheDocument();
    expect(within(systemsCard).getByRole("link", { name: "SHOW ALL" })).toHaveAttribute("href", "/systems?type=system");
    const moleculesCard = screen.getByText("Molecules summary").closest(".mantine-Card-root") as HTMLElement;
    expect(await within(moleculesCard).findByText("There is no data to show.")).toBeInTheDocument();
  });
});
