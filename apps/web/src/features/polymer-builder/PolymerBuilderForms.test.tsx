import { invalidCodesMessage, SEGMENT_MESSAGES } from "@polyforge/contracts/segments";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { linearBlock } from "../../test/fixtures";
import { renderWithProviders } from "../../test/renderWithProviders";
import { signedInWithFetch } from "../../test/signedInFetch";
import { BuildingBlocksStep } from "./steps/BuildingBlocksStep";
import { LinearBlockSegmentForm, LinearPeptideSegmentForm, LinearRandomSegmentForm } from "./steps/SegmentForms";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();

const block = (id: string, name: string) =>
  linearBlock(id, name, {
    draft: true,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
    data: { repeating_unit: "[*:1]CC[*:2]" },
  });
const list = (items: unknown[]) => ({
  data: items,
  metadata: { page_num: 1, page_size: 10, num_records: items.length },
});
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });

/** Answers by method and path; anything unexpected fails loudly. */
function routes(handlers: Record<string, (init?: RequestInit) => Response>) {
  fetchMock.mockImplementation(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const key = `${init?.method ?? "GET"} ${url.pathname}`;
    const handler = handlers[key];
    if (!handler) throw new Error(`unexpected call ${key}`);
    return handler(init);
  });
}

describe("polymer builder forms", () => {
  signedInWithFetch(fetchMock);

  it("shows live ratio percentages and total, and keeps what was typed when the server refuses", async () => {
    routes({
      "GET /api/v2/building_blocks/draft": () => json(list([block("a", "Ethylene"), block("b", "Styrene")])),
      "POST /api/v2/segments": () => json({ errors: [{ error_code: "SEGMENT.VALIDATE.NAME_NOT_UNIQUE" }] }, 409),
    });
    const user = userEvent.setup();
    renderWithProviders(<LinearRandomSegmentForm />);
    await user.type(screen.getByLabelText("Segment name"), "copolymer");
    await user.click(await screen.findByRole("button", { name: "Add Ethylene" }));
    await user.click(screen.getByRole("button", { name: "Add Styrene" }));
    await user.clear(screen.getByLabelText("Ratio Styrene"));
    await user.type(screen.getByLabelText("Ratio Styrene"), "3");
    await user.clear(screen.getByLabelText("Multiplier"));
    await user.type(screen.getByLabelText("Multiplier"), "2");
    expect(screen.getByText("25.00 %")).toBeInTheDocument();
    expect(screen.getByText("75.00 %")).toBeInTheDocument();
    expect(screen.getByText("Total building blocks: 8")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Add segment" }));
    expect(await screen.findByText("There was a problem creating your segment")).toBeInTheDocument();
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === "POST");
    expect(JSON.parse(String(post?.[1]?.body))).toEqual({
      name: "copolymer",
      type: "linear_random",
      data: { total_building_blocks: 8, multiplier: 2 },
      blocks: [
        { building_block_id: "a", order: 1, ratio: 1 },
        { building_block_id: "b", order: 2, ratio: 3 },
      ],
    });
    expect(screen.getByLabelText("Segment name")).toHaveValue("copolymer");
    expect(screen.getByLabelText("Ratio Styrene")).toHaveValue("3");
  });

  it("sends a linear block segment's blocks in order with their occurrences, then empties the form", async () => {
    routes({
      "GET /api/v2/building_blocks/draft": () => json(list([block("a", "Ethylene"), block("b", "Styrene")])),
      "POST /api/v2/segments": () => json({ id: "s-1", name: "diblock" }, 201),
    });
    const user = userEvent.setup();
    renderWithProviders(<LinearBlockSegmentForm />);
    await user.type(screen.getByLabelText("Segment name"), "diblock");
    await user.click(await screen.findByRole("button", { name: "Add Ethylene" }));
    await user.click(screen.getByRole("button", { name: "Add Styrene" }));
    await user.clear(screen.getByLabelText("Occurrence Styrene"));
    await user.type(screen.getByLabelText("Occurrence Styrene"), "4");

    await user.click(screen.getByRole("button", { name: "Add segment" }));
    await waitFor(() => expect(screen.getByLabelText("Segment name")).toHaveValue(""));
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === "POST");
    expect(JSON.parse(String(post?.[1]?.body))).toEqual({
      name: "diblock",
      type: "linear_block",
      data: { total_building_blocks: 5 },
      blocks: [
        { building_block_id: "a", order: 1, occurrence: 1 },
        { building_block_id: "b", order: 2, occurrence: 4 },
      ],
    });
  });

  it("refuses a typed zero and reports an empty ratio as required", async () => {
    routes({ "GET /api/v2/building_blocks/draft": () => json(list([block("a", "Ethylene")])) });
    const user = userEvent.setup();
    renderWithProviders(<LinearRandomSegmentForm />);
    await user.click(await screen.findByRole("button", { name: "Add Ethylene" }));
    await user.clear(screen.getByLabelText("Ratio Ethylene"));
    await user.type(screen.getByLabelText("Ratio Ethylene"), "0");
    expect(screen.getByLabelText("Ratio Ethylene")).toHaveValue("");
    await user.click(screen.getByRole("button", { name: "Add segment" }));
    expect(await screen.findAllByText("Required field")).not.toHaveLength(0);
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === "POST")).toBe(false);
  });

  it("adds a block optimistically and puts a removed block back when the server refuses", async () => {
    let drafted = [block("a", "Ethylene")];
    routes({
      "GET /api/v2/building_blocks/draft": () => json(list(drafted)),
      "GET /api/v2/building_blocks": () => json(list([block("a", "Ethylene"), block("b", "Styrene")])),
      "PATCH /api/v2/building_blocks/b/draft": () => {
        drafted = [...drafted, block("b", "Styrene")];
        return json(block("b", "Styrene"));
      },
      "PATCH /api/v2/building_blocks/a/draft": () =>
        json({ errors: [{ error_code: "BUILDING_BLOCK.UPDATE.DRAFT_FAILED" }] }, 409),
    });
    const user = userEvent.setup();
    renderWithProviders(<BuildingBlocksStep />);
    const added = await screen.findByTestId("added-blocks");
    await within(added).findByText("Ethylene");

    await user.click(await screen.findByRole("button", { name: "Add Styrene" }));
    expect(within(added).getByText("Styrene")).toBeInTheDocument();
    expect(within(added).getByLabelText("Adding...")).toBeInTheDocument();
    await waitFor(() => expect(within(added).getAllByLabelText("Added")).toHaveLength(2), { timeout: 3000 });

    await user.click(within(added).getByRole("button", { name: "Remove Ethylene" }));
    expect(
      await screen.findByText("There was a problem removing your building block from the list."),
    ).toBeInTheDocument();
    expect(within(added).getByText("Ethylene")).toBeInTheDocument();
  });

  it("checks a peptide sequence against the aminoacids on submit and clears its message while it is edited", async () => {
    const aminoacid = (id: string, three: string, one: string) => ({
      ...block(id, three),
      type: "aminoacid",
      data: { smiles: "[*:1]NCC(=O)[*:2]", three_letter_code: three, one_letter_code: one },
    });
    let posted: unknown;
    routes({
      "GET /api/v2/building_blocks": () => json(list([aminoacid("g", "Gly", "G"), aminoacid("a", "Ala", "A")])),
      "POST /api/v2/segments": (init) => {
        posted = JSON.parse(String(init?.body));
        return json({ id: "s" }, 201);
      },
      "GET /api/v2/segments/draft": () => json(list([])),
    });
    const user = userEvent.setup();
    renderWithProviders(<LinearPeptideSegmentForm />);
    await user.click(screen.getByRole("button", { name: "Add segment" }));
    expect(await screen.findByText("Required field")).toBeInTheDocument();
    expect(screen.getByText(SEGMENT_MESSAGES.SEQUENCE_REQUIRED)).toBeInTheDocument();
    await user.type(screen.getByLabelText("Segment name"), "GAG");
    expect(screen.queryByText("Required field")).toBeNull();
    await user.type(screen.getByLabelText("Sequence"), "Gly-Xyz");
    await user.click(screen.getByRole("button", { name: "Add segment" }));
    // Checked against the aminoacids loaded after the form first rendered.
    const message = await screen.findByText(invalidCodesMessage(["Xyz"], "threeLetter"));
    await user.type(screen.getByLabelText("Sequence"), "a");
    expect(message).not.toBeInTheDocument();
    await user.clear(screen.getByLabelText("Sequence"));
    await user.type(screen.getByLabelText("Sequence"), "Gly-Ala-Gly");
    await user.click(screen.getByRole("button", { name: "Add segment" }));
    await waitFor(() =>
      expect(posted).toMatchObject({
        name: "GAG",
        type: "linear_peptide",
        data: { total_building_blocks: 3, sequence: "Gly-Ala-Gly", sequence_naming: "threeLetter" },
        blocks: [
          { building_block_id: "g", order: 1 },
          { building_block_id: "a", order: 2 },
          { building_block_id: "g", order: 3 },
        ],
      }),
    );
  });
});
