import { MESO_FRACTION_MESSAGE } from "@polyforge/contracts/polymers";
import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { signIn } from "../../../lib/auth/session";
import { renderWithProviders } from "../../../test/renderWithProviders";
import { jsonResponse as json, TEST_SESSION } from "../../../test/signedInFetch";
import { PolymersStep } from "./PolymersStep";

vi.mock("keycloak-js", () => import("../../../test/fakeKeycloak"));

// The real RDKit (the form looks for prochiral centres once a segment is added), loaded the Node
// way first; the lazy loader then shares this instance.
beforeAll(async () => {
  await loadRDKit();
});

const polymer = (id: string, name: string) => ({
  id,
  name,
  force_field: "gaff2",
  segments: [],
  tacticity: { kind: "atactic", meso_fraction: 0.5 },
  created_at: "2026-11-20T10:00:00Z",
  updated_at: "2026-11-20T10:00:00Z",
});

/** The draft's polymers and a saved setup holding `inSetup`; DELETE /polymers/{id} answers 204. */
function serve(polymers: ReturnType<typeof polymer>[], inSetup: ReturnType<typeof polymer>[]) {
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (init?.method === "DELETE") return new Response(null, { status: 204 });
    if (url.startsWith("/api/v2/polymers/draft")) {
      return json(200, { data: polymers, metadata: { page_num: 1, page_size: 100, num_records: polymers.length } });
    }
    if (url.startsWith("/api/v2/segments/draft")) {
      return json(200, { data: [], metadata: { page_num: 1, page_size: 100, num_records: 0 } });
    }
    if (url.startsWith("/api/v2/polymer_builder_systems/system_setup/draft")) {
      return json(200, {
        id: "setup-1",
        saved: true,
        cell_dimension_selector: "density",
        density: 0.1,
        cell_sides: null,
        potential_wall_z: false,
        construction_order: "random",
        polymers: inSetup.map((p, index) => ({ polymer_id: p.id, name: p.name, order: index + 1, occurrence: 2 })),
      });
    }
    return json(404, { errors: [{ error_code: "COMMON.ROUTE.NOT_FOUND" }] });
  });
}

describe("deleting a polymer the saved setup uses (issue 24: say so)", () => {
  beforeAll(() => signIn(TEST_SESSION));
  afterEach(() => vi.unstubAllGlobals());

  it("says the saved setup is now empty when it held only that polymer", async () => {
    const pe = polymer("p-1", "PE");
    serve([pe], [pe]);
    renderWithProviders(<PolymersStep />);
    await userEvent.setup().click(await screen.findByRole("button", { name: "Remove PE" }, { timeout: 20_000 }));
    expect(await screen.findByText("Polymer deleted")).toBeInTheDocument();
    expect(await screen.findByText(/PE was the only polymer of the saved system setup/)).toBeInTheDocument();
  });

  it("says it left the setup when other polymers remain in it", async () => {
    const pe = polymer("p-1", "PE");
    const ps = polymer("p-2", "PS");
    serve([pe, ps], [pe, ps]);
    renderWithProviders(<PolymersStep />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Remove PS" }, { timeout: 20_000 }));
    expect(await screen.findByText("PS was also taken out of the saved system setup.")).toBeInTheDocument();
  });
});

describe("added polymers (issue 22: a chosen tacticity is named)", () => {
  beforeAll(() => signIn(TEST_SESSION));
  afterEach(() => vi.unstubAllGlobals());

  it("names a tacticity other than atactic 0.5 beside the force field", async () => {
    serve(
      [
        polymer("p-1", "PE"),
        { ...polymer("p-2", "iPS"), tacticity: { kind: "isotactic", meso_fraction: 0.5 } },
        { ...polymer("p-3", "PS 70"), tacticity: { kind: "atactic", meso_fraction: 0.7 } },
      ],
      [],
    );
    renderWithProviders(<PolymersStep />);
    const added = await screen.findByTestId("added-polymers");
    await within(added).findByText("iPS", { exact: false }, { timeout: 20_000 });
    expect(within(added).getByText("(gaff2)")).toBeInTheDocument();
    expect(within(added).getByText("(gaff2, isotactic)")).toBeInTheDocument();
    expect(within(added).getByText("(gaff2, atactic, meso fraction 0.7)")).toBeInTheDocument();
  });
});

describe("the linear polymer form (one form approach: @mantine/form with the zod resolver)", () => {
  beforeAll(() => signIn(TEST_SESSION));
  afterEach(() => vi.unstubAllGlobals());

  it("says what is missing, clears each message once its field is valid, and sends the polymer", async () => {
    const posted: unknown[] = [];
    vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (init?.method === "POST") {
        posted.push(JSON.parse(String(init.body)));
        return json(201, polymer("p-9", "PE-100"));
      }
      if (url.startsWith("/api/v2/segments/draft")) {
        return json(200, {
          data: [
            { id: "s-1", name: "PE-50", type: "linear_block", data: {}, blocks: [], created_at: "", updated_at: "" },
          ],
          metadata: { page_num: 1, page_size: 100, num_records: 1 },
        });
      }
      if (url.startsWith("/api/v2/polymers/draft")) {
        return json(200, { data: [], metadata: { page_num: 1, page_size: 100, num_records: 0 } });
      }
      return json(404, { errors: [{ error_code: "COMMON.ROUTE.NOT_FOUND" }] });
    });
    renderWithProviders(<PolymersStep />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Add PE-50" }, { timeout: 20_000 }));
    await user.click(screen.getByRole("button", { name: "Add polymer" }));
    expect(await screen.findAllByText("Required field")).toHaveLength(2);

    await user.type(screen.getByLabelText("Polymer name"), "PE-100");
    expect(screen.getAllByText("Required field")).toHaveLength(1);
    await user.click(screen.getByRole("textbox", { name: "Force field" }));
    await user.click(await screen.findByRole("option", { name: "gaff2" }));
    expect(screen.queryByText("Required field")).toBeNull();

    const occurrence = screen.getByLabelText("Occurrence PE-50");
    await user.clear(occurrence);
    expect(await screen.findByText("Required field")).toBeInTheDocument();
    await user.type(occurrence, "2");
    expect(screen.queryByText("Required field")).toBeNull();

    await user.click(screen.getByRole("button", { name: "Add polymer" }));
    expect(await screen.findByText("Polymer created")).toBeInTheDocument();
    expect(posted).toEqual([
      { name: "PE-100", force_field: "gaff2", segments: [{ segment_id: "s-1", occurrence: 2, order: 1 }] },
    ]);
    // The form starts again, empty.
    expect(screen.getByLabelText("Polymer name")).toHaveValue("");
  });
});

describe("tacticity in the linear polymer form (issue 22)", () => {
  beforeAll(() => signIn(TEST_SESSION));
  afterEach(() => vi.unstubAllGlobals());

  const unit = (id: string, name: string, smiles: string) => ({
    id,
    name,
    type: "linear",
    description: null,
    version: 0,
    draft: true,
    archived: false,
    created_at: "",
    updated_at: "",
    data: { repeating_unit: smiles, head_repeating_unit: "[*:2][H]", tail_repeating_unit: "[*:1][H]" },
  });
  const blocks = new Map(
    [
      unit("b-ps", "Styrene", "[*:1]CC(c1ccccc1)[*:2]"),
      unit("b-pe", "Ethylene", "[*:1]CC[*:2]"),
      unit("b-ps-r", "R-styrene", "[*:1]C[C@H](c1ccccc1)[*:2]"),
    ].map((b) => [b.id, b]),
  );
  const segmentOf = (id: string, name: string, blockId: string) => ({
    id,
    name,
    type: "linear_block",
    data: { total_building_blocks: 10 },
    blocks: [{ building_block_id: blockId, order: 1, occurrence: 10, ratio: null }],
    created_at: "",
    updated_at: "",
  });

  function serveSegments() {
    const posted: Array<Record<string, unknown>> = [];
    const segments = [
      segmentOf("s-ps", "PS-10", "b-ps"),
      segmentOf("s-pe", "PE-10", "b-pe"),
      segmentOf("s-r", "R-PS-10", "b-ps-r"),
    ];
    vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (init?.method === "POST") {
        posted.push(JSON.parse(String(init.body)));
        return json(201, polymer("p-9", "PS"));
      }
      if (url.startsWith("/api/v2/segments/draft")) {
        return json(200, { data: segments, metadata: { page_num: 1, page_size: 100, num_records: segments.length } });
      }
      if (url.startsWith("/api/v2/polymers/draft")) {
        return json(200, { data: [], metadata: { page_num: 1, page_size: 100, num_records: 0 } });
      }
      const block = blocks.get(url.replace(/^\/api\/v2\/building_blocks\//, "").split("?")[0] ?? "");
      if (block) return json(200, block);
      return json(404, { errors: [{ error_code: "COMMON.ROUTE.NOT_FOUND" }] });
    });
    return posted;
  }

  async function fillNameAndForceField(user: ReturnType<typeof userEvent.setup>, name: string) {
    await user.type(screen.getByLabelText("Polymer name"), name);
    await user.click(screen.getByRole("textbox", { name: "Force field" }));
    await user.click(await screen.findByRole("option", { name: "gaff2" }));
  }

  it("offers it for a unit with an open prochiral centre, checks the meso fraction and sends the choice", async () => {
    const posted = serveSegments();
    renderWithProviders(<PolymersStep />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Add PS-10" }, { timeout: 20_000 }));
    const tacticity = await screen.findByRole("textbox", { name: "Tacticity" }, { timeout: 20_000 });
    expect(tacticity).toHaveValue("Atactic");
    expect(screen.getByText("How the prochiral backbone centres of Styrene are set")).toBeInTheDocument();
    const meso = screen.getByLabelText("Meso fraction");
    expect(meso).toHaveValue("0.5");

    await fillNameAndForceField(user, "PS");
    await user.clear(meso);
    expect(await screen.findByText("Required field")).toBeInTheDocument();
    await user.type(meso, "1.5");
    expect(await screen.findByText(MESO_FRACTION_MESSAGE)).toBeInTheDocument();
    await user.type(meso, "x-"); // not a decimal: not typed
    expect(meso).toHaveValue("1.5");
    await user.click(screen.getByRole("button", { name: "Add polymer" }));
    expect(posted).toEqual([]);

    await user.clear(meso);
    await user.type(meso, "0.7");
    expect(screen.queryByText(MESO_FRACTION_MESSAGE)).toBeNull();
    await user.click(screen.getByRole("button", { name: "Add polymer" }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toEqual({
      name: "PS",
      force_field: "gaff2",
      segments: [{ segment_id: "s-ps", occurrence: 1, order: 1 }],
      tacticity: { kind: "atactic", meso_fraction: 0.7 },
    });
  });

  it("hides the meso fraction for the other kinds and sends the kind alone", async () => {
    const posted = serveSegments();
    renderWithProviders(<PolymersStep />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Add PE-10" }, { timeout: 20_000 }));
    await user.click(screen.getByRole("button", { name: "Add PS-10" }));
    await user.click(await screen.findByRole("textbox", { name: "Tacticity" }, { timeout: 20_000 }));
    expect((await screen.findAllByRole("option")).map((o) => o.textContent)).toEqual([
      "Atactic",
      "Isotactic",
      "Syndiotactic",
      "As drawn",
    ]);
    await user.click(screen.getByRole("option", { name: "Syndiotactic" }));
    expect(screen.queryByLabelText("Meso fraction")).toBeNull();
    await fillNameAndForceField(user, "PE-b-sPS");
    await user.click(screen.getByRole("button", { name: "Add polymer" }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toMatchObject({ tacticity: { kind: "syndiotactic" } });
  });

  it("does not offer it once no unit has an open centre (none, or drawn in the SMILES)", async () => {
    const posted = serveSegments();
    renderWithProviders(<PolymersStep />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Add PE-10" }, { timeout: 20_000 }));
    await user.click(screen.getByRole("button", { name: "Add R-PS-10" }));
    await user.click(screen.getByRole("button", { name: "Add PS-10" }));
    // Offered only once every block of the polymer and RDKit are loaded: R-PS-10's block is known here.
    await user.click(await screen.findByRole("textbox", { name: "Tacticity" }, { timeout: 20_000 }));
    expect(screen.getByText("How the prochiral backbone centres of Styrene are set")).toBeInTheDocument();
    await user.click(await screen.findByRole("option", { name: "Isotactic" }));
    await user.click(screen.getByRole("button", { name: "Remove PS-10" }));
    await waitFor(() => expect(screen.queryByTestId("tacticity")).toBeNull());
    await fillNameAndForceField(user, "PE-b-RPS");
    await user.click(screen.getByRole("button", { name: "Add polymer" }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).not.toHaveProperty("tacticity");
  });
});
