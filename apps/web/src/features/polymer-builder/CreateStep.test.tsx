import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactNode } from "react";
import { gate } from "../../test/gate";
import { renderWithProviders } from "../../test/renderWithProviders";
import { signedInWithFetch } from "../../test/signedInFetch";
import { CreateStep } from "./steps/CreateStep";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));
const navigate = vi.fn();
vi.mock("@tanstack/react-router", async (original) => ({
  ...(await original<object>()),
  useNavigate: () => navigate,
  Link: ({ children }: { children: ReactNode }) => <a href="/">{children}</a>,
}));

const fetchMock = vi.fn<typeof fetch>();
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });
const list = (items: unknown[]) => ({
  data: items,
  metadata: { page_num: 1, page_size: 100, num_records: items.length },
});
const complete = { 1: true, 2: true, 3: true, 4: true, 5: true };

/** The draft's reads for the review, and the finishing PATCH, answered once `finish.open()` is called
 * (so a second click lands while it is on its way). */
function serve() {
  const finishes: unknown[] = [];
  const finish = gate();
  fetchMock.mockImplementation(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const key = `${init?.method ?? "GET"} ${url.pathname}`;
    if (key === "PATCH /api/v2/systems/draft-1/draft") {
      finishes.push(JSON.parse(String(init?.body)));
      await finish.passed;
      return json({ id: "system-1", name: "Melt", type: "system" });
    }
    if (key === "GET /api/v2/polymer_builder_systems/simulation_protocol/draft") return json({ id: "p1" });
    if (key === "GET /api/v2/polymer_builder_systems/system_setup/draft")
      return json({ id: "s1", polymers: [], saved: true, cell_dimension_selector: "density", density: 1 });
    if (key === "GET /api/v2/polymers/draft" || key === "GET /api/v2/segments/draft") return json(list([]));
    throw new Error(`unexpected call ${key}`);
  });
  return { finishes, finish };
}

beforeAll(async () => {
  await loadRDKit();
});

describe("step 6: create", () => {
  signedInWithFetch(fetchMock);

  it("asks for a name, clears the message once it is typed, and creates one system on a double click", async () => {
    const { finishes, finish } = serve();
    const file = vi.fn(async () => {});
    const user = userEvent.setup();
    renderWithProviders(
      <CreateStep
        draftId="draft-1"
        completion={complete}
        filing={{
          field: ({ value, onChange }) => (
            <label>
              Project
              <select value={value ?? ""} onChange={(event) => onChange(event.currentTarget.value || null)}>
                <option value="">No project</option>
                <option value="project-1">Melts</option>
              </select>
            </label>
          ),
          file,
        }}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Create system" }));
    expect(await screen.findByText("Required field")).toBeInTheDocument();
    expect(finishes).toEqual([]);

    await user.type(screen.getByLabelText("System name"), "Melt");
    expect(screen.queryByText("Required field")).toBeNull();
    await user.selectOptions(screen.getByLabelText("Project"), "project-1");
    // Two clicks in one go, before anything re-renders (a double click on a slow machine).
    const button = screen.getByRole("button", { name: "Create system" });
    fireEvent.click(button);
    fireEvent.click(button);
    await waitFor(() => expect(finishes).toHaveLength(1)); // on its way, and answered only now
    finish.open();
    await waitFor(() => expect(navigate).toHaveBeenCalled());
    expect(finishes).toEqual([{ name: "Melt", is_draft: false }]);
    expect(file).toHaveBeenCalledWith(expect.objectContaining({ id: "system-1" }), "project-1");
  });
});
