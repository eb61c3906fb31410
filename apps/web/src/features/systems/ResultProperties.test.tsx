import { screen, within } from "@testing-library/react";
import { renderWithProviders } from "../../test/renderWithProviders";
import { ResultProperties } from "./ResultProperties";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

/** The shape the engine writes (simulate/properties.py), trimmed to what the page shows. */
const report = {
  seed: 7,
  properties: {
    measured_on: "final structure",
    density_g_cm3: {
      mean: 0.8512,
      std: 0.004,
      drift_per_ns: -0.012,
      drift_over_part: -0.0001,
      part: "stage 21 (the last)",
      from: "energies.csv",
      samples: 40,
    },
    chains: [
      {
        name: "polymer PE-100",
        copies: 20,
        radius_of_gyration_a: { mean: 21.3, std: 3.1, min: 15, max: 28 },
        end_to_end_distance_a: { mean: 50, std: 12, min: 20, max: 80, root_mean_square: 52.4 },
        backbone_bonds: 199,
        internal_distances: {
          m: [1, 2, 4],
          c_m: [1, 1.9, 3.2],
          mean_square_bond_length_a2: 2.37,
          c_infinity: 7.12,
          c_infinity_error: 0.31,
          c_n: 6.8,
        },
        torsions: {
          by_atoms: { "C-C-C-C": { count: 1960, trans: 0.6, gauche_plus: 0.2, gauche_minus: 0.2 } },
          all: { count: 1960, trans: 0.6, gauche_plus: 0.2, gauche_minus: 0.2 },
          consecutive_gauche_plus_minus: 0.02,
        },
        reference: {
          polymer: "polyethylene",
          c_infinity: { low: 6.7, high: 8.3, source: "Fetters et al. 1994" },
          density_g_cm3: { low: 0.85, high: 0.86, source: "Mark 2007" },
        },
      },
    ],
  },
};

describe("measured properties", () => {
  it("shows density, chain sizes, C∞, torsions beside the literature", () => {
    renderWithProviders(<ResultProperties report={{ data: JSON.stringify(report), isError: false }} />);
    const table = screen.getByTestId("measured-properties");
    const row = (label: string) => within(table).getByText(label).closest("tr") as HTMLElement;
    expect(row("Density (g/cm³)")).toHaveTextContent(
      "0.851 ± 0.004 over stage 21 (the last); drift -0.012 g/cm³ per ns",
    );
    expect(row("Density (g/cm³)")).toHaveTextContent("0.85–0.86 (polyethylene)");
    expect(row("C∞ (fit of C(m))")).toHaveTextContent("7.12 ± 0.31");
    expect(row("C∞ (fit of C(m))")).not.toHaveTextContent("few or short chains");
    expect(row("C∞ (fit of C(m))")).toHaveTextContent("6.7–8.3");
    expect(row("End-to-end distance, RMS (Å)")).toHaveTextContent("52.40");
    expect(row("Radius of gyration (Å)")).toHaveTextContent("21.30 ± 3.10");
    expect(within(table).getByText("C-C-C-C: 60 % / 20 % / 20 %")).toBeInTheDocument();
    expect(row("Consecutive g+g− pairs")).toHaveTextContent("2 %");
    expect(screen.getByText("Sources: Fetters et al. 1994; Mark 2007")).toBeInTheDocument();
  });

  it("shows the measured meso fraction with its dyads for a chain with prochiral centres (issue 22)", () => {
    const chain = report.properties.chains[0]!;
    const ps = {
      ...chain,
      name: "polymer iPS-100",
      reference: undefined,
      meso_fraction: { value: 0.9798, dyads: 1980 },
    };
    const withPs = { ...report, properties: { ...report.properties, chains: [chain, ps] } };
    renderWithProviders(<ResultProperties report={{ data: JSON.stringify(withPs), isError: false }} />);
    const rows = within(screen.getByTestId("measured-properties")).getAllByText("Meso fraction (dyads)");
    // Only the chain that has centres says it.
    expect(rows).toHaveLength(1);
    expect(rows[0]!.closest("tr")).toHaveTextContent("0.98 (1980)");
  });

  it("gives one chain's radius of gyration without a spread it cannot have", () => {
    const chain = report.properties.chains[0]!;
    const single = { ...chain, copies: 1, radius_of_gyration_a: { mean: 21.3, std: 0, min: 21.3, max: 21.3 } };
    const withSingle = { ...report, properties: { ...report.properties, chains: [single] } };
    renderWithProviders(<ResultProperties report={{ data: JSON.stringify(withSingle), isError: false }} />);
    const table = screen.getByTestId("measured-properties");
    const cells = within(table).getByText("Radius of gyration (Å)").closest("tr") as HTMLElement;
    expect(cells).toHaveTextContent("21.30");
    expect(cells).not.toHaveTextContent("±");
  });

  it("says when C∞ is too uncertain to read from few or short chains", () => {
    const chain = report.properties.chains[0]!;
    const noisy = {
      ...chain,
      internal_distances: { ...chain.internal_distances, c_infinity: 5.67, c_infinity_error: 2.4 },
    };
    const withNoisy = { ...report, properties: { ...report.properties, chains: [noisy] } };
    renderWithProviders(<ResultProperties report={{ data: JSON.stringify(withNoisy), isError: false }} />);
    const table = screen.getByTestId("measured-properties");
    expect(within(table).getByText("C∞ (fit of C(m))").closest("tr")).toHaveTextContent(
      "5.67 ± 2.40: few or short chains; more copies or longer chains narrow it",
    );
  });

  it("gives a fixed cell's density alone, and never a drift of -0.000", () => {
    const fixedCell = {
      ...report,
      properties: {
        ...report.properties,
        density_g_cm3: { mean: 1.0564, from: "fixed cell", part: "the last third of the run" },
      },
    };
    const { unmount } = renderWithProviders(
      <ResultProperties report={{ data: JSON.stringify(fixedCell), isError: false }} />,
    );
    const row = () => within(screen.getByTestId("measured-properties")).getByText("Density (g/cm³)").closest("tr");
    expect(row()).toHaveTextContent("1.056 (a fixed cell: no barostat in this run)");
    unmount();
    const still = {
      ...report,
      properties: {
        ...report.properties,
        density_g_cm3: { ...report.properties.density_g_cm3, std: 0.0001, drift_per_ns: -0.0002 },
      },
    };
    renderWithProviders(<ResultProperties report={{ data: JSON.stringify(still), isError: false }} />);
    expect(row()).toHaveTextContent("0.851 ± 0.000 over stage 21 (the last); drift 0.000 g/cm³ per ns");
  });

  it("says when a result has no properties or a broken report", () => {
    const { unmount } = renderWithProviders(
      <ResultProperties report={{ data: JSON.stringify({ seed: 1 }), isError: false }} />,
    );
    expect(screen.getByText(/has no measured properties/)).toBeInTheDocument();
    unmount();
    renderWithProviders(<ResultProperties report={{ data: "{not json", isError: false }} />);
    expect(screen.getByText("The measured properties could not be read")).toBeInTheDocument();
  });
});
