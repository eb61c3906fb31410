import { DEFAULT_JOB_LIMITS } from "@polyforge/contracts/job-limits";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderWithProviders } from "../../test/renderWithProviders";
import { signedInWithFetch } from "../../test/signedInFetch";
import { SimulationProtocolStep } from "./steps/SimulationProtocolStep";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });

const stored = {
  id: "p1",
  simulation: "MD",
  random_seed: -1,
  minimization: true,
  minimization_steps: 1000,
  dynamics: true,
  dynamics_steps: 5000,
  temperature: 300,
  ensemble: "NVT",
  pressure: 1,
  equilibration: "none",
};

describe("simulation protocol step", () => {
  signedInWithFetch(fetchMock);

  it("offers NPT with its pressure and the melt equilibration, shows the simulated time and saves them", async () => {
    const sent: unknown[] = [];
    fetchMock.mockImplementation(async (input, init) => {
      const url = new URL(String(input), "http://localhost");
      const key = `${init?.method ?? "GET"} ${url.pathname}`;
      if (key === "GET /api/v2/polymer_builder_systems/simulation_protocol/draft") return json(stored);
      if (key === "PATCH /api/v2/polymer_builder_systems/simulation_protocol/p1") {
        const body = JSON.parse(String(init?.body));
        sent.push(body);
        return json({ id: "p1", ...body });
      }
      throw new Error(`unexpected call ${key}`);
    });
    const user = userEvent.setup();
    renderWithProviders(<SimulationProtocolStep />);

    expect(await screen.findByTestId("simulated-time")).toHaveTextContent("5000 steps × 2 fs = 10 ps");
    expect(screen.queryByLabelText("Pressure (bar)")).not.toBeInTheDocument();

    await user.clear(screen.getByLabelText("Dynamics steps"));
    await user.type(screen.getByLabelText("Dynamics steps"), "21000");
    expect(screen.getByTestId("simulated-time")).toHaveTextContent("21000 steps × 2 fs = 42 ps");

    // The melt equilibration without NPT is refused with the contracts' message.
    await user.click(screen.getByRole("textbox", { name: "Equilibration" }));
    await user.click(await screen.findByRole("option", { name: "Melt equilibration (21 stages)" }));
    await user.click(screen.getByRole("button", { name: "Save simulation protocol" }));
    expect(
      await screen.findByText("The melt equilibration ends at the chosen pressure: choose NPT"),
    ).toBeInTheDocument();
    expect(sent).toHaveLength(0);

    await user.click(screen.getByRole("textbox", { name: "Ensemble" }));
    await user.click(await screen.findByRole("option", { name: "NPT (Monte Carlo barostat)" }));
    // Choosing NPT makes the equilibration right: its message goes at once, not on the next save.
    await waitFor(() =>
      expect(screen.queryByText("The melt equilibration ends at the chosen pressure: choose NPT")).toBeNull(),
    );
    const pressure = await screen.findByLabelText("Pressure (bar)");
    expect(pressure).toHaveValue("1");
    await user.clear(pressure);
    // Said at the field as it is emptied, before any save.
    expect(await screen.findByText("Required field")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Save simulation protocol" }));
    expect(sent).toHaveLength(0);
    await user.type(pressure, "250.5");
    await user.click(screen.getByRole("button", { name: "Save simulation protocol" }));

    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({
      dynamics_steps: 21000,
      ensemble: "NPT",
      pressure: 250.5,
      equilibration: "melt_21_step",
    });
    expect(await screen.findByText("Pressure (bar): 250.5")).toBeInTheDocument();
    expect(screen.getByText("Equilibration: Melt equilibration (21 stages)")).toBeInTheDocument();
  });

  it("bounds the temperature by this deployment's limit, not the contracts' default", async () => {
    fetchMock.mockImplementation(async (input, init) => {
      const key = `${init?.method ?? "GET"} ${new URL(String(input), "http://localhost").pathname}`;
      if (key === "GET /api/v2/polymer_builder_systems/simulation_protocol/draft") return json(stored);
      throw new Error(`unexpected call ${key}`);
    });
    const user = userEvent.setup();
    // A server started with POLYFORGE_MAX_TEMPERATURE=1000 sends it in /config.json.
    renderWithProviders(<SimulationProtocolStep />, undefined, {
      jobLimits: { ...DEFAULT_JOB_LIMITS, maxTemperature: 1000 },
    });
    const temperature = await screen.findByLabelText("Temperature (K)");
    await user.clear(temperature);
    await user.type(temperature, "1500");
    expect(await screen.findByText("Temperature must be above 0 and at most 1,000 K")).toBeInTheDocument();
    await user.clear(temperature);
    await user.type(temperature, "1000");
    await waitFor(() => expect(screen.queryByText("Temperature must be above 0 and at most 1,000 K")).toBeNull());
  });
});
