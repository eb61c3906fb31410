import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { signIn } from "../../lib/auth/session";
import { renderApp } from "../../test/renderApp";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

/** A stand-in for the server's /building_blocks list and archive calls, over an in-memory store. */
function fakeBlocksServer(blocks: BuildingBlock[]) {
  const requests: URL[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), "http://localhost");
    requests.push(url);
    const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });
    const archive = /^\/api\/v2\/building_blocks\/([^/]+)$/.exec(url.pathname);
    if (archive && init?.method === "DELETE") {
      const block = blocks.find((b) => b.id === archive[1]);
      if (!block) return json({ errors: [{ error_code: "BUILDING_BLOCK.DELETE.NOT_FOUND" }] }, 404);
      block.archived = true;
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
  return {
    id: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
    name: `Chain ${index}`,
    type: "linear",
    description: null,
    version: 0,
    draft: false,
    archived: false,
    created_at: "2026-03-04T10:00:00Z",
    updated_at: "2026-03-04T10:00:00Z",
    data: { repeating_unit: "[*:1]CC[*:2]", head_repeating_unit: "[*:2][H]", tail_repeating_unit: "[*:1][H]" },
  };
}

describe("building block catalogue", () => {
  beforeAll(async () => {
    await signIn({ oidcProvider: "http://localhost/auth/realms/polyforge", clientId: "polyforge-web" });
  });
  afterEach(() => vi.unstubAllGlobals());

  it("pages, archives the last row of the last page and moves back a page", async () => {
    const server = fakeBlocksServer(Array.from({ length: 11 }, (_, i) => linearBlock(i + 1)));
    vi.stubGlobal("fetch", server.fetchImpl);
    const user = userEvent.setup();
    renderApp("/building-blocks");

    expect(await screen.findByRole("link", { name: "Chain 1" })).toBeInTheDocument();
    expect(screen.getByText("1 - 10 of 11")).toBeInTheDocument();
    expect(screen.getByText("1 of 2 pages")).toBeInTheDocument();
    expect(screen.getByRole("columnheader", { name: "Last Modified" })).toBeInTheDocument();
    expect(within(screen.getByRole("row", { name: /Chain 1\b/ })).getByText("04/03/2026")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "2" }));
    expect(await screen.findByRole("link", { name: "Chain 11" })).toBeInTheDocument();
    expect(screen.getByText("11 - 11 of 11")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Archive Chain 11" }));
    expect(await screen.findByText("Building block archived")).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText("1 - 10 of 10")).toBeInTheDocument());
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
    expect(await screen.findByRole("link", { name: "Chain 1" })).toBeInTheDocument();

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
});
