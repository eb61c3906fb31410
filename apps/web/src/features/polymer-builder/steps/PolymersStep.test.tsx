import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { signIn } from "../../../lib/auth/session";
import { renderWithProviders } from "../../../test/renderWithProviders";
import { jsonResponse as json, TEST_SESSION } from "../../../test/signedInFetch";
import { PolymersStep } from "./PolymersStep";

vi.mock("keycloak-js", () => import("../../../test/fakeKeycloak"));

const polymer = (id: string, name: string) => ({
  id,
  name,
  force_field: "gaff2",
  segments: [],
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
