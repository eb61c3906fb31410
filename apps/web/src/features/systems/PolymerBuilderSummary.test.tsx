import { screen } from "@testing-library/react";
import { renderWithProviders } from "../../test/renderWithProviders";
import { PolymerBuilderSummary } from "./PolymerBuilderSummary";

/** Issue 24: codes such as 'as_listed_in_components' and 'cell_sides' never reach the user. */
describe("polymer-builder summary", () => {
  it("shows enumerated values as words from the locale files", () => {
    renderWithProviders(
      <PolymerBuilderSummary
        data={{
          simulation: "MD",
          random_seed: 7,
          minimization: true,
          minimization_steps: 50,
          dynamics: true,
          dynamics_steps: 5000,
          temperature: 300,
          ensemble: "NVT",
          equilibration: "none",
          construction_order: "as_listed_in_components",
          cell_dimension_selector: "cell_sides",
          density: null,
          cell_sides: [40, 50, 60],
          potential_wall_z: false,
          polymers: [],
        }}
      />,
    );
    expect(screen.getByText("As listed")).toBeInTheDocument();
    expect(screen.getByText("Cell sides")).toBeInTheDocument();
    expect(screen.getByText("NVT (constant temperature)")).toBeInTheDocument();
    expect(screen.getByText("40 × 50 × 60")).toBeInTheDocument();
    expect(screen.queryByText(/as_listed_in_components|cell_sides/)).not.toBeInTheDocument();
  });

  it("names each polymer's chosen tacticity, not the default atactic 0.5 (issue 22)", () => {
    const polymer = (name: string, tacticity?: object) => ({
      id: name,
      name,
      occurrence: 2,
      force_field: "gaff2",
      ...(tacticity ? { tacticity } : {}),
      segments: [],
    });
    renderWithProviders(
      <PolymerBuilderSummary
        data={{
          polymers: [
            polymer("PE", { kind: "atactic", meso_fraction: 0.5 }),
            polymer("old", undefined),
            polymer("iPS", { kind: "isotactic" }),
            polymer("PS 70", { kind: "atactic", meso_fraction: 0.7 }),
            polymer("PMMA", { kind: "as_drawn" }),
          ],
        }}
      />,
    );
    expect(screen.getByText("Isotactic")).toBeInTheDocument();
    expect(screen.getByText("Atactic, meso fraction 0.7")).toBeInTheDocument();
    expect(screen.getByText("Tacticity as drawn")).toBeInTheDocument();
    expect(screen.queryByText(/meso fraction 0.5/)).not.toBeInTheDocument();
  });

  it("spells each force field as the polymer form's select does (SPEC §5), whichever spelling is stored", () => {
    const polymer = (name: string, forceField: string) => ({
      id: name,
      name,
      occurrence: 1,
      force_field: forceField,
      segments: [],
    });
    renderWithProviders(
      <PolymerBuilderSummary
        data={{
          polymers: [
            polymer("Cellulose", "glycam_06j"),
            polymer("Chitin", "extended_glycam_06j"),
            polymer("PE", "gaff2"),
          ],
        }}
      />,
    );
    expect(screen.getByText("Force field glycam06j")).toBeInTheDocument();
    expect(screen.getByText("Force field extended glycam06j")).toBeInTheDocument();
    expect(screen.getByText("Force field gaff2")).toBeInTheDocument();
    expect(screen.queryByText(/glycam_06j/)).not.toBeInTheDocument();
  });
});
