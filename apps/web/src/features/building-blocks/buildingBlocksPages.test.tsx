import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { FLAGS } from "@polyforge/contracts/flags";
import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { signIn } from "../../lib/auth/session";
import { linearBlock as ethyleneBlock } from "../../test/fixtures";
import { renderApp } from "../../test/renderApp";
import { TEST_SESSION } from "../../test/signedInFetch";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

/** A stand-in for the server's /building_blocks list and archive calls, over an in-memory store. */
function fakeBlocksServer(blocks: BuildingBlock[]) {
  const requests: URL[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), "http://localhost");
    requests.push(url);
    const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });
    const byId = /^\/api\/v2\/building_blocks\/([^/]+)$/.exec(url.pathname);
    if (byId) {
      const block = blocks.find((b) => b.id === byId[1]);
      if (!block) return json({ errors: [{ error_code: "BUILDING_BLOCK.GET.NOT_FOUND" }] }, 404);
      if (init?.method === "DELETE") block.archived = true;
      if (init?.method === "PATCH") {
        const patch = JSON.parse(String(init.body));
        Object.assign(block, { ...patch, data: { ...block.data, ...patch.data }, updated_at: "2026-03-05T10:00:00Z" });
      }
      return json(block);
    }
    if (url.pathname === "/api/v2/building_blocks") {
      const q = url.searchParams;
      const types = q.getAll("type");
      const name = (q.get("name") ?? "").toLowerCase();
      const matching = blocks.filter(
        (b) =>
          b.archived === (q.get("show_archived") === "true") &&
          (types.length === 0 || types.includes(b.type)) &&
          b.name.toLowerCase().includes(name),
      );
      const pageNum = Number(q.get("page_num"));
      const pageSize = Number(q.get("page_size"));
      return json({
        data: matching.slice((pageNum - 1) * pageSize, pageNum * pageSize),
        metadata: { page_num: pageNum, page_size: pageSize, num_records: matching.length },
      });
    }
    return json({ errors: [{ error_code: "COMMON.ROUTE.NOT_FOUND" }] }, 404);
  };
  return { fetchImpl, requests };
}

function linearBlock(index: number): BuildingBlock {
  return ethyleneBlock(`00000000-0000-4000-8000-${String(index).padStart(12, "0")}`, `Chain ${index}`);
}

describe("building block catalogue", () => {
  beforeAll(async () => {
    await loadRDKit(); // the real RDKit, shared with the pages' lazy loader
    // The routes load these pages lazily; loaded here first, the first render does not wait for
    // their transform on a busy machine (it once took longer than a find's timeout).
    await Promise.all([import("./BuildingBlocksCatalogue"), import("./BlockDetailPage"), import("./CreateBlockPage")]);
    await signIn(TEST_SESSION);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("pages, archives the last row of the last page and moves back a page", async () => {
    const server = fakeBlocksServer(Array.from({ length: 11 }, (_, i) => linearBlock(i + 1)));
    vi.stubGlobal("fetch", server.fetchImpl);
    const user = userEvent.setup();
    renderApp("/building-blocks");

    expect(await screen.findByRole("link", { name: "Chain 1" }, { timeout: 20_000 })).toBeInTheDocument();
    expect(screen.getByText("1 - 10")).toBeInTheDocument();
    expect(screen.getByText("Total: 11")).toBeInTheDocument();
    expect(screen.getByText("1 of 2 pages")).toBeInTheDocument();
    expect(screen.getByRole("columnheader", { name: "Last Modified" })).toBeInTheDocument();
    expect(within(screen.getByRole("row", { name: /Chain 1\b/ })).getByText("04/03/2026")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "2" }));
    expect(await screen.findByRole("link", { name: "Chain 11" })).toBeInTheDocument();
    expect(screen.getByText("11 - 11")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Archive Chain 11" }));
    expect(await screen.findByText("Building block archived")).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText("Total: 10")).toBeInTheDocument());
    expect(screen.getByText("1 - 10")).toBeInTheDocument();
    expect(screen.getByText("1 of 1 pages")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Chain 1" })).toBeInTheDocument();
  });

  it("searches by name after a pause in typing, and lists archived blocks under their filter", async () => {
    const blocks = Array.from({ length: 3 }, (_, i) => linearBlock(i + 1));
    blocks[2]!.archived = true;
    const server = fakeBlocksServer(blocks);
    vi.stubGlobal("fetch", server.fetchImpl);
    const user = userEvent.setup();
    renderApp("/building-blocks");
    expect(await screen.findByRole("link", { name: "Chain 1" }, { timeout: 20_000 })).toBeInTheDocument();

    await user.type(screen.getByPlaceholderText("Search building blocks by name..."), "chain 2");
    await waitFor(() => expect(screen.queryByRole("link", { name: "Chain 1" })).not.toBeInTheDocument());
    expect(screen.getByRole("link", { name: "Chain 2" })).toBeInTheDocument();
    // One request for the whole word, not one per keystroke.
    const searches = server.requests.filter((url) => url.searchParams.has("name"));
    expect(searches.map((url) => url.searchParams.get("name"))).toEqual(["chain 2"]);

    await user.click(screen.getByText("Archived blocks"));
    expect(await screen.findByRole("link", { name: "Chain 3" })).toBeInTheDocument();
    expect(screen.getByPlaceholderText("Search building blocks by name...")).toHaveValue("");
    expect(screen.getByRole("button", { name: "Recover Chain 3" })).toBeInTheDocument();
    const last = server.requests.at(-1)!;
    expect(last.searchParams.get("show_archived")).toBe("true");
    expect(last.searchParams.getAll("type")).toEqual(["linear", "dendrimer"]);
  });

  it("shows the aminoacid columns under the Aminoacids filter when peptide-builder is on", async () => {
    const glycine: BuildingBlock = {
      ...linearBlock(1),
      name: "Glycine",
      type: "aminoacid",
      data: { one_letter_code: "G", three_letter_code: "Gly", repeating_unit: "[*:1]NCC(=O)[*:2]" },
    };
    vi.stubGlobal("fetch", fakeBlocksServer([glycine]).fetchImpl);
    const user = userEvent.setup();
    renderApp("/building-blocks", { flagsOn: [FLAGS.PEPTIDE_BUILDER] });
    await user.click(await screen.findByText("Aminoacids"));
    const row = await screen.findByRole("row", { name: /Glycine/ });
    expect(within(row).getByText("Gly")).toBeInTheDocument();
    expect(within(row).getByText("G")).toBeInTheDocument();
    expect(screen.getByRole("columnheader", { name: "Three-letter code" })).toBeInTheDocument();
    expect(screen.getByRole("columnheader", { name: "One-letter code" })).toBeInTheDocument();
    expect(screen.queryByRole("columnheader", { name: "Actions" })).not.toBeInTheDocument();
  });

  it("hides the Aminoacids filter while peptide-builder is off", async () => {
    vi.stubGlobal("fetch", fakeBlocksServer([]).fetchImpl);
    renderApp("/building-blocks?type=%5B%22aminoacid%22%5D");
    expect(await screen.findByText("Active blocks")).toBeInTheDocument();
    expect(screen.queryByText("Aminoacids")).not.toBeInTheDocument();
    expect(await screen.findByText("No items found")).toBeInTheDocument();
  });
});

describe("building block detail", () => {
  beforeAll(async () => {
    await loadRDKit();
    await signIn(TEST_SESSION);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows the dates as DD/MM/YYYY and the type, and saves an edited SMILES", async () => {
    const block = linearBlock(1);
    const server = fakeBlocksServer([block]);
    vi.stubGlobal("fetch", server.fetchImpl);
    const user = userEvent.setup();
    renderApp(`/building-blocks/${block.id}?type=linear`);

    expect(await screen.findByRole("heading", { name: "Chain 1" })).toBeInTheDocument();
    expect(screen.getByText("Last modified: 04/03/2026")).toBeInTheDocument();
    expect(screen.getByText("Created: 04/03/2026")).toBeInTheDocument();
    expect(screen.getAllByText("Linear").length).toBeGreaterThan(0);

    await user.click(screen.getByRole("button", { name: "Edit Repeating unit" }));
    await user.clear(screen.getByLabelText("Repeating unit"));
    await user.type(screen.getByLabelText("Repeating unit"), "[[*:1]CCO[[*:2]");
    await user.click(screen.getByRole("button", { name: "Done editing Repeating unit" }));
    await user.click(screen.getByRole("button", { name: "Save changes" }));

    expect(await screen.findByText("Building block updated")).toBeInTheDocument();
    expect(await screen.findByText("Last modified: 05/03/2026")).toBeInTheDocument();
    expect(block.data.repeating_unit).toBe("[*:1]CCO[*:2]");
  });

  it("goes back to the catalogue with a message when the block cannot be loaded", async () => {
    vi.stubGlobal("fetch", fakeBlocksServer([]).fetchImpl);
    const { router } = renderApp("/building-blocks/00000000-0000-4000-8000-000000000099");
    expect(await screen.findByText("There was an error getting the building block detail")).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe("/building-blocks"));
  });
});

describe("dashboard building blocks card", () => {
  beforeAll(async () => {
    await signIn(TEST_SESSION);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("lists the first five blocks with their type and offers SHOW ALL when there are more", async () => {
    vi.stubGlobal("fetch", fakeBlocksServer(Array.from({ length: 7 }, (_, i) => linearBlock(i + 1))).fetchImpl);
    renderApp("/");
    const link = await screen.findByRole("link", { name: "Chain 1" });
    expect(link).toHaveAttribute("href", `/building-blocks/${linearBlock(1).id}?type=linear`);
    expect(screen.getByRole("link", { name: "Chain 5" })).toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "Chain 6" })).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "SHOW ALL" })).toHaveAttribute("href", "/building-blocks");
  });

  it("says there is no data and offers no SHOW ALL when the user has no blocks", async () => {
    vi.stubGlobal("fetch", fakeBlocksServer([]).fetchImpl);
    renderApp("/");
    expect(await screen.findByText("There is no data to show.")).toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "SHOW ALL" })).not.toBeInTheDocument();
  });
});
