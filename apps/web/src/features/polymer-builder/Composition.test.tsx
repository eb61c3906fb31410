import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { DEFAULT_JOB_LIMITS } from "@polyforge/contracts/job-limits";
import { CELL_SIDE_MESSAGE } from "@polyforge/contracts/polymer-builder";
import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { linearBlock } from "../../test/fixtures";
import { renderWithProviders } from "../../test/renderWithProviders";
import { signedInWithFetch } from "../../test/signedInFetch";
import { ReviewComposition } from "./steps/ReviewComposition";
import { SystemSetupStep } from "./steps/SystemSetupStep";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });
const list = (items: unknown[]) => ({
  data: items,
  metadata: { page_num: 1, page_size: 100, num_records: items.length },
});

const setup = {
  id: "setup-1",
  polymers: [{ polymer_id: "p", name: "PE-100", order: 1, occurrence: 10 }],
  cell_dimension_selector: "density" as const,
  density: 0.8,
  cell_sides: null,
  potential_wall_z: false,
  construction_order: "as_listed_in_components" as const,
  saved: true,
};
const polymer = {
  id: "p",
  name: "PE-100",
  force_field: "gaff2",
  segments: [{ segment_id: "s", occurrence: 2, order: 1, segment: { id: "s", name: "PE-50", type: "linear_block" } }],
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};
const segment = {
  id: "s",
  name: "PE-50",
  type: "linear_block",
  data: { total_building_blocks: 50 },
  blocks: [
    {
      building_block_id: "pe",
      order: 1,
      occurrence: 50,
      ratio: null,
      building_block: { id: "pe", name: "Ethylene", type: "linear" },
    },
  ],
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};
const block = linearBlock("pe", "Ethylene", {
  draft: true,
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
});

function serveDraft() {
  const patches: unknown[] = [];
  fetchMock.mockImplementation(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const key = `${init?.method ?? "GET"} ${url.pathname}`;
    if (key === "GET /api/v2/polymer_builder_systems/system_setup/draft") return json(setup);
    if (key === "GET /api/v2/polymers/draft") return json(list([polymer]));
    if (key === "GET /api/v2/segments/draft") return json(list([segment]));
    if (key === "GET /api/v2/building_blocks/pe") return json(block);
    if (key === "PATCH /api/v2/polymer_builder_systems/system_setup/setup-1") {
      patches.push(JSON.parse(String(init?.body)));
      return json({ ...setup, ...JSON.parse(String(init?.body)) });
    }
    throw new Error(`unexpected call ${key}`);
  });
  return patches;
}

// The real RDKit, loaded the Node way first; the lazy loader then shares this instance.
beforeAll(async () => {
  await loadRDKit();
});

describe("system setup: the atom ceiling at the chains field", () => {
  signedInWithFetch(fetchMock);

  it("shows each chain's atoms and the system's against the ceiling as chains are typed, and refuses too many", async () => {
    const patches = serveDraft();
    const user = userEvent.setup();
    renderWithProviders(<SystemSetupStep />);
    // 2 × 50 ethylene units of 2 carbons: 200 heavy atoms a chain; 10 chains.
    expect(await screen.findByText("200 heavy atoms per chain")).toBeInTheDocument();
    expect(
      await screen.findByText(
        "The system: up to 2,000 heavy atoms (hydrogens not counted); this server builds at most 1,000,000.",
      ),
    ).toBeInTheDocument();

    const chains = screen.getByLabelText("Occurrence PE-100");
    await user.clear(chains);
    await user.type(chains, "5001");
    expect(
      await screen.findByText(
        "The system would have up to 1,000,200 heavy atoms (hydrogens not counted); this server builds at most 1,000,000. Use fewer or shorter chains.",
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Save system setup" })).toBeDisabled();

    await user.clear(chains);
    await user.type(chains, "5000");
    await waitFor(() => expect(screen.getByRole("button", { name: "Save system setup" })).toBeEnabled());
    expect(screen.getByText(/up to 1,000,000 heavy atoms/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Save system setup" }));
    await waitFor(() => expect(patches).toHaveLength(1));
    expect(patches[0]).toMatchObject({ polymers: [{ polymer_id: "p", order: 1, occurrence: 5000 }] });
  });
});

describe("system setup: what the cell implies", () => {
  signedInWithFetch(fetchMock);

  it("shows the density of sides and the edge of a density as they are typed, and refuses a cell too small", async () => {
    const patches = serveDraft();
    const user = userEvent.setup();
    renderWithProviders(<SystemSetupStep />);
    // 10 chains of PE-100: 200 C and 402 H each, 28,074.16 g/mol in all. At 0.8 g/cm³ the cube's
    // edge is (28,074.16 × 1.66054 / 0.8)^(1/3) = 38.77 Å.
    expect(await screen.findByText("This density makes a cube of 38.8 Å a side")).toBeInTheDocument();

    await user.click(screen.getByText("Cell sides", { exact: true }));
    // 100 Å sides: 28,074.16 × 1.66054 / 10⁶ = 0.0466 g/cm³.
    expect(await screen.findByText("These sides make a density of 0.0466 g/cm³")).toBeInTheDocument();
    for (const axis of ["X", "Y", "Z"]) {
      const side = screen.getByLabelText(`${axis} (Å)`);
      await user.clear(side);
      await user.type(side, "20");
    }
    // 8,000 Å³ for 6,020 atoms, below the engine's 2.388 Å³ an atom: its own message, before any save.
    expect(await screen.findByText("These sides make a density of 5.83 g/cm³")).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent(
      "The cell (20.0 × 20.0 × 20.0 Å) is too small to hold 6020 atoms at 1.5 Å from each other (5.83 g/cm³). " +
        "Lower the density or enlarge the cell.",
    );
    expect(screen.getByRole("button", { name: "Save system setup" })).toBeDisabled();

    const x = screen.getByLabelText("X (Å)");
    await user.clear(x);
    await user.type(x, "40");
    await waitFor(() => expect(screen.queryByRole("alert")).not.toBeInTheDocument());
    await user.click(screen.getByRole("button", { name: "Save system setup" }));
    await waitFor(() => expect(patches).toHaveLength(1));
  });
});

describe("system setup: this deployment's atom ceiling", () => {
  signedInWithFetch(fetchMock);

  it("takes the ceiling from the server's configuration, not the contracts' default", async () => {
    serveDraft();
    const user = userEvent.setup();
    // A server started with POLYFORGE_MAX_ATOMS=5000 sends it in /config.json.
    renderWithProviders(<SystemSetupStep />, undefined, { jobLimits: { ...DEFAULT_JOB_LIMITS, maxAtoms: 5000 } });
    expect(
      await screen.findByText(
        "The system: up to 2,000 heavy atoms (hydrogens not counted); this server builds at most 5,000.",
      ),
    ).toBeInTheDocument();
    const chains = screen.getByLabelText("Occurrence PE-100");
    await user.clear(chains);
    await user.type(chains, "26");
    expect(
      await screen.findByText(
        "The system would have up to 5,200 heavy atoms (hydrogens not counted); this server builds at most 5,000. Use fewer or shorter chains.",
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Save system setup" })).toBeDisabled();
    await user.clear(chains);
    await user.type(chains, "25");
    await waitFor(() => expect(screen.getByRole("button", { name: "Save system setup" })).toBeEnabled());
  });
});

describe("system setup: one form, bounds at the fields", () => {
  signedInWithFetch(fetchMock);

  it("says a side is out of bounds as it is typed, clears it once right, and saves the cell", async () => {
    const patches = serveDraft();
    const user = userEvent.setup();
    renderWithProviders(<SystemSetupStep />);
    await user.click(await screen.findByText("Cell sides", { exact: true }));
    const x = screen.getByLabelText("X (Å)");
    await user.clear(x);
    await user.type(x, "5");
    expect(await screen.findByText(CELL_SIDE_MESSAGE)).toBeInTheDocument();
    await user.type(x, "0");
    expect(screen.queryByText(CELL_SIDE_MESSAGE)).toBeNull();
    await user.click(screen.getByRole("switch", { name: /Hard walls in z/ }));
    await user.click(screen.getByRole("button", { name: "Save system setup" }));
    await waitFor(() => expect(patches).toHaveLength(1));
    expect(patches[0]).toEqual({
      cell_dimension_selector: "cell_sides",
      density: null,
      cell_sides: [50, 100, 100],
      potential_wall_z: true,
      construction_order: "as_listed_in_components",
      polymers: [{ polymer_id: "p", order: 1, occurrence: 10 }],
    });
  });
});

describe("review: the composition", () => {
  signedInWithFetch(fetchMock);

  it("lists the number of each unit per chain and in the system, with the atoms and mass", async () => {
    serveDraft();
    renderWithProviders(<ReviewComposition setup={setup} />);
    const table = await screen.findByRole("table", { name: "PE-100" }, { timeout: 20_000 });
    const rows = within(table)
      .getAllByRole("row")
      .map((row) => [...row.querySelectorAll("th, td")].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ["Unit", "Per chain", "In the system"],
      ["Ethylene", "100", "1,000"],
      ["Ethylene (head cap)", "1", "10"],
      ["Ethylene (tail cap)", "1", "10"],
    ]);
    expect(screen.getByText("PE-100: 10 chains")).toBeInTheDocument();
    // H-(CH2-CH2)100-H is C200H402: 602 atoms, 200 × 12.011 + 402 × 1.008 g/mol.
    expect(screen.getByText("One chain: 602 atoms, 2,807.4 g/mol")).toBeInTheDocument();
    expect(screen.getByTestId("system-totals")).toHaveTextContent(
      "The whole system: 10 chains, 6,020 atoms (2,000 without hydrogens), 28,074.2 g/mol",
    );
  });
});

describe("review: a peptide chain's composition", () => {
  signedInWithFetch(fetchMock);

  // The API's aminoacid blocks carry their residue as `repeating_unit` (not the engine job's `smiles`).
  const aminoacid = (id: string, name: string, one: string, three: string, residue: string) =>
    ({
      id,
      name,
      type: "aminoacid",
      description: null,
      version: 0,
      draft: false,
      archived: false,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      data: { one_letter_code: one, three_letter_code: three, repeating_unit: residue },
    }) as unknown as BuildingBlock;
  const gly = aminoacid("gly", "Glycine", "G", "Gly", "[*:1]NCC(=O)[*:2]");
  const ala = aminoacid("ala", "Alanine", "A", "Ala", "[*:1]N[C@@H](C)C(=O)[*:2]");
  const sequence = ["gly", "ala", "gly", "ala", "gly", "ala", "gly", "ala", "gly"];
  const peptideSegment = {
    id: "pep",
    name: "GAGAGAGAG",
    type: "linear_peptide",
    data: { total_building_blocks: 9, capping_type: "synthetic", sequence: "GAGAGAGAG", sequence_naming: "one_letter" },
    blocks: sequence.map((id, order) => ({
      building_block_id: id,
      order: order + 1,
      occurrence: 1,
      ratio: null,
      building_block: { id, name: id === "gly" ? "Glycine" : "Alanine", type: "aminoacid" },
    })),
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
  };
  const peptide = {
    ...polymer,
    id: "pp",
    name: "GAGAGAGAG",
    segments: [
      { segment_id: "pep", occurrence: 1, order: 1, segment: { id: "pep", name: "GAGAGAGAG", type: "linear_peptide" } },
    ],
  };
  const peptideSetup = { ...setup, polymers: [{ polymer_id: "pp", name: "GAGAGAGAG", order: 1, occurrence: 2 }] };

  it("counts every residue's atoms and mass, with a free amine and a free acid", async () => {
    fetchMock.mockImplementation(async (input, init) => {
      const url = new URL(String(input), "http://localhost");
      const key = `${init?.method ?? "GET"} ${url.pathname}`;
      if (key === "GET /api/v2/polymers/draft") return json(list([peptide]));
      if (key === "GET /api/v2/segments/draft") return json(list([peptideSegment]));
      if (key === "GET /api/v2/building_blocks/gly") return json(gly);
      if (key === "GET /api/v2/building_blocks/ala") return json(ala);
      throw new Error(`unexpected call ${key}`);
    });
    renderWithProviders(<ReviewComposition setup={peptideSetup} />);
    await screen.findByRole("table", { name: "GAGAGAGAG" }, { timeout: 20_000 });
    // H-(Gly-Ala)4-Gly-OH: 5 × Gly (C2H3NO, 7 atoms, 57.052 g/mol) + 4 × Ala (C3H5NO, 10 atoms,
    // 71.079 g/mol) + H2O (3 atoms, 18.015 g/mol) = C22H37N9O10: 78 atoms, 587.59 g/mol.
    expect(await screen.findByText("One chain: 78 atoms, 587.6 g/mol")).toBeInTheDocument();
  });
});
