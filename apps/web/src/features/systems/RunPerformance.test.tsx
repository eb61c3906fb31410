import { screen, within } from "@testing-library/react";
import { renderWithProviders } from "../../test/renderWithProviders";
import { RunPerformance } from "./RunPerformance";
import { parseRunPerformance, stageTime } from "./runPerformance";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

/** report.json's `performance` as the engine writes it (workflow.py, simulate/run.py). */
const performance = {
  build_s: 3.21,
  parametrisation_s: 9.84,
  engine: "GROMACS 2022.5",
  platform: "CPU",
  threads: 2,
  minimisation_s: 14.02,
  dynamics_s: 125.5,
  ns_per_day: 17.412,
  mdrun_ns_per_day: 18.1,
  minimisation_engine: "OpenMM 8.6.1",
  md_engine_setting: "auto",
};

const rowOf = (label: string) =>
  within(screen.getByTestId("run-performance")).getByText(label).closest("tr") as HTMLElement;

describe("run performance", () => {
  it("shows each stage's time, the engines, platform, threads and ns/day", () => {
    renderWithProviders(<RunPerformance report={{ data: JSON.stringify({ seed: 1, performance }) }} />);
    expect(rowOf("Structure build")).toHaveTextContent("3.2 s");
    expect(rowOf("Parametrisation")).toHaveTextContent("9.8 s");
    expect(rowOf("Minimisation")).toHaveTextContent("14.0 s");
    expect(rowOf("Dynamics")).toHaveTextContent("2 min 6 s");
    expect(rowOf("Engine")).toHaveTextContent("GROMACS 2022.5 · CPU · 2 threads");
    expect(rowOf("Minimisation engine")).toHaveTextContent("OpenMM 8.6.1");
    expect(rowOf("Speed of the dynamics")).toHaveTextContent("17.41 ns/day");
  });

  it("says how the dynamics ran as the run recorded it, not as the protocol asked", () => {
    // A melt protocol's stages as the engine's report lists them, run on GROMACS.
    const method = (ensemble: string) =>
      ensemble === "NPT"
        ? "GROMACS sd integrator, tau-t 1.0 ps, C-rescale barostat, tau-p 5.0 ps"
        : "GROMACS sd (Langevin) integrator, tau-t 1.0 ps = 1/friction";
    const dynamics_stages = ["NVT", "NPT", "NVT", "NPT"].map((ensemble, index) => ({
      number: index + 1,
      ensemble,
      temperature_k: 600,
      pressure_bar: ensemble === "NPT" ? 1000 : null,
      steps: 1000,
      method: method(ensemble),
    }));
    renderWithProviders(<RunPerformance report={{ data: JSON.stringify({ performance, dynamics_stages }) }} />);
    expect(rowOf("How the dynamics ran")).toHaveTextContent(
      "NVT: GROMACS sd (Langevin) integrator, tau-t 1.0 ps = 1/friction; NPT: GROMACS sd integrator, tau-t 1.0 ps, C-rescale barostat, tau-p 5.0 ps",
    );
    expect(screen.queryByText(/Monte Carlo/)).toBeNull();
  });

  it("leaves out what the report does not hold or holds in another shape", () => {
    const partial = {
      parametrisation_s: 1.5,
      engine: "OpenMM 8.6.1",
      platform: "CPU",
      threads: null,
      ns_per_day: null,
    };
    renderWithProviders(<RunPerformance report={{ data: JSON.stringify({ performance: partial }) }} />);
    const table = screen.getByTestId("run-performance");
    expect(within(table).getAllByRole("row")).toHaveLength(2);
    expect(rowOf("Parametrisation")).toHaveTextContent("1.5 s");
    expect(rowOf("Engine")).toHaveTextContent("OpenMM 8.6.1 · CPU");
    expect(within(table).queryByText("Speed of the dynamics")).toBeNull();
    expect(within(table).queryByText("Structure build")).toBeNull();
  });

  it("shows nothing without a performance section, while loading or for a broken report", () => {
    for (const data of [JSON.stringify({ seed: 1 }), undefined, "{not json", JSON.stringify({ performance: "fast" })]) {
      const { unmount } = renderWithProviders(<RunPerformance report={{ data }} />);
      expect(screen.queryByTestId("run-performance")).toBeNull();
      unmount();
    }
  });

  it("reads seconds as the stage times", () => {
    expect(parseRunPerformance(JSON.stringify({ performance: { dynamics_s: -1, threads: 1.5 } }))).toBeNull();
    expect(stageTime(0.42)).toBe("0.4 s");
    expect(stageTime(3725)).toBe("1 h 2 min");
  });
});
