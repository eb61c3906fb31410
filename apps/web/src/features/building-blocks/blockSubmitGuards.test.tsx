import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { signIn } from "../../lib/auth/session";
import { linearBlock } from "../../test/fixtures";
import { gate } from "../../test/gate";
import { renderApp } from "../../test/renderApp";
import { TEST_SESSION } from "../../test/signedInFetch";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });

const block = linearBlock("00000000-0000-4000-8000-000000000001", "Ethylene");

describe("block form guards (issue 24)", () => {
  beforeAll(async () => {
    await loadRDKit();
    await signIn(TEST_SESSION);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("sends one create with an Idempotency-Key when 'Create block' is double-clicked", async () => {
    const creates: RequestInit[] = [];
    const create = gate(); // the create is answered once both clicks have landed
    vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (init?.method === "POST" && url === "/api/v2/building_blocks") {
        creates.push(init);
        await create.passed;
        return json({ ...block, name: "Propylene" }, 201);
      }
      if (url.startsWith("/api/v2/building_blocks?")) {
        return json({ data: [], metadata: { page_num: 1, page_size: 10, num_records: 0 } });
      }
      return json({ errors: [{ error_code: "COMMON.ROUTE.NOT_FOUND" }] }, 404);
    });
    const user = userEvent.setup();
    renderApp("/building-blocks/create/linear");
    await user.type(await screen.findByLabelText(/^Name/, {}, { timeout: 20_000 }), "Propylene");
    await user.type(screen.getByLabelText("Repeating unit"), "[[*:1]CC(C)[[*:2]");
    await user.click(screen.getByRole("button", { name: "Done editing Repeating unit" }));
    await user.dblClick(screen.getByRole("button", { name: "Create block" }));
    create.open();
    expect(await screen.findByText("Linear building block created")).toBeInTheDocument();
    expect(creates).toHaveLength(1);
    const headers = creates[0]!.headers as Record<string, string>;
    expect(headers["Idempotency-Key"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("shows the server's IN_USE reason when a used block's SMILES is saved, and keeps the edit", async () => {
    vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (init?.method === "PATCH") return json({ errors: [{ error_code: "BUILDING_BLOCK.UPDATE.IN_USE" }] }, 409);
      if (url.startsWith(`/api/v2/building_blocks/${block.id}`)) return json(block);
      return json({ errors: [{ error_code: "COMMON.ROUTE.NOT_FOUND" }] }, 404);
    });
    const user = userEvent.setup();
    renderApp(`/building-blocks/${block.id}?type=linear`);
    await user.click(await screen.findByRole("button", { name: "Edit Repeating unit" }, { timeout: 20_000 }));
    await user.clear(screen.getByLabelText("Repeating unit"));
    await user.type(screen.getByLabelText("Repeating unit"), "[[*:1]CCO[[*:2]");
    await user.click(screen.getByRole("button", { name: "Done editing Repeating unit" }));
    await user.click(screen.getByRole("button", { name: "Save changes" }));

    expect(await screen.findByText("Failed to update building block")).toBeInTheDocument();
    expect(screen.getByText(/A segment uses this building block/)).toBeInTheDocument();
    expect(screen.getByLabelText("Repeating unit")).toHaveValue("[*:1]CCO[*:2]");
  });
});
