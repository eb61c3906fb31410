import { GrowthBookProvider } from "@growthbook/growthbook-react";
import { FLAGS } from "@polyforge/contracts/flags";
import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";
import { fileTooLargeMessage, MB, unsupportedFileTypeMessage } from "@polyforge/contracts/uploads";
import { useQueryClient } from "@tanstack/react-query";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Ketcher } from "ketcher-core";
import { useEffect } from "react";
import { molecularSystem as molecularSystemFixture } from "../../test/fixtures";
import { growthbookWith } from "../../test/renderApp";
import { renderWithProviders } from "../../test/renderWithProviders";
import { jsonResponse, signedInWithFetch } from "../../test/signedInFetch";
import type { MolecularSystem } from "./api/getMolecularSystem";
import { MolecularSystemFlow } from "./MolecularSystemFlow";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

// Ketcher itself needs a real browser (canvas, workers): the tests stand in a minimal editor that
// holds one SMILES, with Ketcher's own calls (setMolecule, getSmiles).
const editor = { smiles: "" };
vi.mock("./KetcherEditor", () => ({
  default: ({ onInit }: { onInit: (ketcher: Ketcher) => void }) => {
    useEffect(() => {
      onInit({
        setMolecule: async (smiles: string) => {
          editor.smiles = smiles;
        },
        getSmiles: async () => editor.smiles,
      } as unknown as Ketcher);
    }, [onInit]);
    return <div data-testid="ketcher-editor" />;
  },
}));

const fetchMock = vi.fn<typeof fetch>();
const SYSTEM_ID = "7d1e2f3a-4b5c-4d6e-8f90-123456789abc";

function molecularSystem(origin: "upload" | "smiles", data: Partial<MolecularSystem["system_data"]>): MolecularSystem {
  return molecularSystemFixture(
    { id: SYSTEM_ID, name: "Aspirin", sanitized_name: "aspirin", origin, type: "not_defined" },
    { status: origin === "smiles" ? "pending" : "pending_upload", ...data },
  );
}

/** The API: GET of the system, and every other call recorded. */
function serve(system: MolecularSystem) {
  const calls: Array<{ method: string; path: string; body: unknown }> = [];
  fetchMock.mockImplementation(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const method = init?.method ?? "GET";
    const path = url.pathname.replace("/api/v2", "");
    calls.push({ method, path, body: init?.body ? JSON.parse(String(init.body)) : undefined });
    if (method === "GET" && path === `/systems/${SYSTEM_ID}`) return jsonResponse(200, system);
    if (method === "POST" && path === "/systems") return jsonResponse(201, { id: SYSTEM_ID });
    if (method === "POST" && path === `/systems/${SYSTEM_ID}/smiles`) return jsonResponse(200, {});
    if (method === "GET" && path === `/systems/${SYSTEM_ID}/potentials/`) return jsonResponse(200, { data: [] });
    return jsonResponse(404, {});
  });
  return calls;
}

describe("add molecular system: details", () => {
  signedInWithFetch(fetchMock);

  it("requires a name and an origin, then creates the system and hands its id on", async () => {
    const calls = serve(molecularSystem("upload", {}));
    const created = vi.fn();
    renderWithProviders(<MolecularSystemFlow onCreated={created} onLoadFailed={() => {}} />);
    const user = userEvent.setup();

    await user.click(screen.getByRole("button", { name: "Next" }));
    expect(await screen.findAllByText("Required field")).toHaveLength(2);
    expect(calls).toEqual([]);

    await user.type(screen.getByLabelText(/Name/), "  Aspirin  ");
    await user.type(screen.getByLabelText("Description"), "From a paper");
    await user.click(screen.getByLabelText("From structure"));
    await user.click(screen.getByRole("button", { name: "Next" }));

    await waitFor(() => expect(created).toHaveBeenCalledWith(SYSTEM_ID));
    expect(calls).toEqual([
      { method: "POST", path: "/systems", body: { name: "Aspirin", description: "From a paper", origin: "smiles" } },
    ]);
  });
});

describe("add molecular system: a second click", () => {
  signedInWithFetch(fetchMock);

  it("creates one system when Next is double-clicked", async () => {
    const calls = serve(molecularSystem("upload", {}));
    const { queryClient } = renderWithProviders(<MolecularSystemFlow onCreated={() => {}} onLoadFailed={() => {}} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/Name/), "Water");
    await user.click(screen.getByLabelText("From file"));
    await user.dblClick(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => expect(calls.filter((c) => c.path === "/systems")).toHaveLength(1));
    // Every create the two clicks started has been answered: a second one would be counted now.
    await waitFor(() => expect(queryClient.isMutating()).toBe(0));
    expect(calls.filter((c) => c.path === "/systems")).toHaveLength(1);
  });
});

describe("add molecular system: from file", () => {
  signedInWithFetch(fetchMock);

  async function openFileStep(data: Partial<MolecularSystem["system_data"]> = {}) {
    const calls = serve(molecularSystem("upload", data));
    const { container } = renderWithProviders(<MolecularSystemFlow systemId={SYSTEM_ID} onLoadFailed={() => {}} />);
    await screen.findByText("Drop a .pdb or .gro file here, or choose one");
    const input = container.querySelector<HTMLInputElement>('input[type="file"]');
    if (!input) throw new Error("no file input");
    return { calls, input };
  }

  it("refuses a wrong extension before anything is sent", async () => {
    const { calls, input } = await openFileStep();
    await userEvent.upload(input, new File(["x"], "melt.xyz"), { applyAccept: false });
    expect(await screen.findByRole("alert")).toHaveTextContent(unsupportedFileTypeMessage([".pdb", ".gro"]));
    expect(calls.filter((c) => c.path.includes("/upload"))).toEqual([]);
  });

  it("refuses a file over 2000 MB before anything is sent", async () => {
    const { calls, input } = await openFileStep();
    const big = new File(["x"], "melt.gro");
    Object.defineProperty(big, "size", { value: 2000 * MB + 1 });
    await userEvent.upload(input, big);
    expect(await screen.findByRole("alert")).toHaveTextContent(fileTooLargeMessage(2000));
    expect(calls.filter((c) => c.path.includes("/upload"))).toEqual([]);
  });

  it("takes the same file again after refusing it (the input forgets each choice)", async () => {
    const { calls, input } = await openFileStep();
    const melt = new File(["x".repeat(35)], "melt.gro");
    Object.defineProperty(melt, "size", { value: 2000 * MB + 1, configurable: true });
    await userEvent.upload(input, melt);
    expect(await screen.findByRole("alert")).toHaveTextContent(fileTooLargeMessage(2000));
    expect(input.value).toBe("");

    // The same file, trimmed on disk, chosen again: checked again and sent.
    Object.defineProperty(melt, "size", { value: 35 });
    await userEvent.upload(input, melt);
    await waitFor(() =>
      expect(calls.map((c) => `${c.method} ${c.path}`)).toContain(`POST /systems/${SYSTEM_ID}/upload/begin`),
    );
    expect(screen.getByText(/melt\.gro \(35 bytes\)/)).toBeInTheDocument();
  });

  /** The file step of melt.pdb, found invalid by the engine at `line` with `message`. */
  const openInvalidFile = (message: string, line: number) =>
    openFileStep({
      status: "invalid",
      file: "melt.pdb",
      file_size: 2048,
      problem: { code: "BAD_COORDINATES", message, line },
    });

  it("shows an invalid file with the reason and the line, and lets another file be chosen", async () => {
    await openInvalidFile("The x coordinate 'abc' is not a number", 42);
    expect(screen.getByText("Invalid file")).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("Line 42: The x coordinate 'abc' is not a number");
    expect(screen.getByRole("button", { name: "Choose file" })).toBeEnabled();
    expect(screen.getByRole("button", { name: "Next" })).toBeDisabled();
  });

  it("does not repeat the line when the engine's message already gives it", async () => {
    await openInvalidFile("Line 2: the x coordinate 'abcde' is not a number", 2);
    expect(screen.getByRole("alert")).toHaveTextContent(/^Line 2: the x coordinate 'abcde' is not a number/);
  });

  it("locks the uploader while the file is validated", async () => {
    await openFileStep({ status: "validating", file: "melt.pdb", file_size: 2048, upload_id: "up-1" });
    expect(screen.getByText("Validating file")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Choose file" })).toBeDisabled();
  });

  it("offers to resume an interrupted upload with the same file", async () => {
    await openFileStep({ status: "uploading", file: "melt.pdb", file_size: 30 * MB, upload_id: "up-1" });
    expect(screen.getByText(/An upload of melt.pdb \(30 MB\) was interrupted/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Choose file" })).toBeEnabled();
  });

  it("shows what a validated file holds and opens the Potentials step", async () => {
    serve(
      molecularSystem("upload", {
        status: "valid",
        file: "water.gro",
        file_size: 4096,
        structure: {
          atoms: 648,
          residues: 216,
          molecules: 216,
          kinds: [{ name: "SOL", count: 216, atoms: 3, formula: "H2O", charge: null }],
          formula: "H432O216",
          net_charge: null,
          box: [18.62, 18.62, 18.62],
          type: "system",
          viewer_file: null,
        },
      }),
    );
    renderWithProviders(
      <GrowthBookProvider growthbook={growthbookWith([FLAGS.GENERATE_POTENTIAL])}>
        <MolecularSystemFlow systemId={SYSTEM_ID} onLoadFailed={() => {}} />
      </GrowthBookProvider>,
    );
    expect(await screen.findByText("File validated")).toBeInTheDocument();
    const table = screen.getByRole("table", { name: "What was found" });
    expect(within(table).getByRole("row", { name: /SOL 216 3 H2O/ })).toBeInTheDocument();
    expect(screen.getByText("18.62 × 18.62 × 18.62 Å")).toBeInTheDocument();
    expect(screen.getByText("H432O216")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Next" }));
    expect(await screen.findByRole("button", { name: "Add potential" })).toBeInTheDocument();
    expect(await screen.findByText(/No potentials yet/)).toBeInTheDocument();
  });
});

describe("add molecular system: a system with potentials", () => {
  signedInWithFetch(fetchMock);

  it("opens on its potentials", async () => {
    serve({
      ...molecularSystem("smiles", { status: "converted", smiles: "CCO" }),
      potentials: [{ id: "p-1", name: "Ethanol GAFF2", system_type: "molecule" }],
    });
    renderWithProviders(
      <GrowthBookProvider growthbook={growthbookWith([FLAGS.GENERATE_POTENTIAL])}>
        <MolecularSystemFlow systemId={SYSTEM_ID} onLoadFailed={() => {}} />
      </GrowthBookProvider>,
    );
    expect(await screen.findByRole("button", { name: "Add potential" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Previous" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Next" })).not.toBeInTheDocument();
  });
});

describe("add molecular system: from structure", () => {
  signedInWithFetch(fetchMock);
  beforeAll(async () => {
    await loadRDKit();
  });
  beforeEach(() => {
    editor.smiles = "";
  });

  async function openStructureStep(data: Partial<MolecularSystem["system_data"]> = {}) {
    const calls = serve(molecularSystem("smiles", data));
    renderWithProviders(<MolecularSystemFlow systemId={SYSTEM_ID} onLoadFailed={() => {}} />);
    await screen.findByTestId("ketcher-editor");
    return calls;
  }

  it("says 'Invalid SMILES format' for a bad SMILES and draws a good one in the editor", async () => {
    await openStructureStep();
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Enter SMILES" }));
    const dialog = await screen.findByRole("dialog", { name: "Enter SMILES" });
    const field = within(dialog).getByLabelText("SMILES");
    await user.type(field, "C1CC(");
    await user.click(within(dialog).getByRole("button", { name: "Draw structure" }));
    expect(await within(dialog).findByText("Invalid SMILES format")).toBeInTheDocument();
    expect(editor.smiles).toBe("");

    await user.clear(field);
    await user.type(field, "CC(=O)Oc1ccccc1C(=O)O");
    await user.click(within(dialog).getByRole("button", { name: "Draw structure" }));
    await waitFor(() => expect(editor.smiles).toBe("CC(=O)Oc1ccccc1C(=O)O"));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("refuses a building block's connection points in the dialog and at Save, before the server sees them", async () => {
    const calls = await openStructureStep();
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Enter SMILES" }));
    const dialog = await screen.findByRole("dialog", { name: "Enter SMILES" });
    await user.click(within(dialog).getByLabelText("SMILES"));
    await user.paste("[*:1]CC[*:2]");
    await user.click(within(dialog).getByRole("button", { name: "Draw structure" }));
    expect(await within(dialog).findByText(/remove its connection points/)).toBeInTheDocument();
    expect(editor.smiles).toBe("");
    await user.keyboard("{Escape}");

    // Drawn in the editor itself (Ketcher's R1 and R2 read back as [*:1] and [*:2]).
    editor.smiles = "[*:1]CC[*:2]";
    await user.click(screen.getByRole("button", { name: "Save structure" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(/remove its connection points/);
    expect(calls.filter((c) => c.path.endsWith("/smiles"))).toEqual([]);
  });

  it("opens the dialog on the structure already drawn, and saves it untouched without a warning", async () => {
    const calls = await openStructureStep();
    editor.smiles = "CC(=O)O";
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Enter SMILES" }));
    const dialog = await screen.findByRole("dialog", { name: "Enter SMILES" });
    expect(within(dialog).getByLabelText("SMILES")).toHaveValue("CC(=O)O");
    await user.keyboard("{Escape}");
    await user.click(screen.getByRole("button", { name: "Save structure" }));
    await waitFor(() =>
      expect(calls.filter((c) => c.path.endsWith("/smiles"))).toEqual([
        { method: "POST", path: `/systems/${SYSTEM_ID}/smiles`, body: { smiles: "CC(=O)O" } },
      ]),
    );
  });

  it("shows the catalogue's message for the server's code, not only the generic title", async () => {
    await openStructureStep();
    const served = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (input, init) =>
      String(input).endsWith("/smiles")
        ? jsonResponse(400, { errors: [{ error_code: "SYSTEM.CREATE_DRAWN_SYSTEM.INVALID_SMILES" }] })
        : served(input, init),
    );
    editor.smiles = "CCO";
    await userEvent.click(screen.getByRole("button", { name: "Save structure" }));
    expect(await screen.findByText("Invalid SMILES format")).toBeInTheDocument();
  });

  it("warns instead of saving an empty editor or a SMILES not yet drawn", async () => {
    const calls = await openStructureStep();
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Save structure" }));
    expect(await screen.findByText("Please provide a molecular structure before saving")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Enter SMILES" }));
    const dialog = await screen.findByRole("dialog", { name: "Enter SMILES" });
    await user.type(within(dialog).getByLabelText("SMILES"), "CCO");
    await user.keyboard("{Escape}");
    await user.click(screen.getByRole("button", { name: "Save structure" }));
    expect(await screen.findByText("Please finish editing the SMILES before saving")).toBeInTheDocument();
    expect(calls.filter((c) => c.path.endsWith("/smiles"))).toEqual([]);
  });

  it("saves the editor's structure once, then keeps Save disabled", async () => {
    const calls = await openStructureStep();
    editor.smiles = "CCO";
    const user = userEvent.setup();
    const save = screen.getByRole("button", { name: "Save structure" });
    await user.click(save);
    await waitFor(() =>
      expect(calls.filter((c) => c.path.endsWith("/smiles"))).toEqual([
        { method: "POST", path: `/systems/${SYSTEM_ID}/smiles`, body: { smiles: "CCO" } },
      ]),
    );
    await waitFor(() => expect(screen.getByRole("button", { name: "Save structure" })).toBeDisabled());
    // After the save delay (SPEC §9: 1.5 s) the status is read again; Save stays disabled.
    await waitFor(() =>
      expect(screen.getByRole("button", { name: "Save structure" })).not.toHaveAttribute("data-loading"),
    );
    expect(screen.getByRole("button", { name: "Save structure" })).toBeDisabled();
  });

  it("says why the server refused a structure", async () => {
    await openStructureStep();
    const served = fetchMock.getMockImplementation()!;
    const message = "The SMILES describes 2,702 atoms with its hydrogens; a structure from SMILES holds at most 1,000";
    fetchMock.mockImplementation(async (input, init) =>
      String(input).endsWith("/smiles")
        ? jsonResponse(400, {
            errors: [{ error_code: "SYSTEM.CREATE_DRAWN_SYSTEM.SMILES_TOO_LARGE", args: { atoms: 2702, message } }],
          })
        : served(input, init),
    );
    editor.smiles = "C".repeat(900);
    await userEvent.click(screen.getByRole("button", { name: "Save structure" }));
    expect(await screen.findByText("There was a problem trying to save the structure")).toBeInTheDocument();
    expect(await screen.findByText(message)).toBeInTheDocument();
  });

  it("sends the structure once when Save is double-clicked", async () => {
    const calls = await openStructureStep();
    editor.smiles = "CCO";
    await userEvent.dblClick(screen.getByRole("button", { name: "Save structure" }));
    await waitFor(() => expect(screen.getByRole("button", { name: "Save structure" })).toBeDisabled());
    await waitFor(() =>
      expect(screen.getByRole("button", { name: "Save structure" })).not.toHaveAttribute("data-loading"),
    );
    expect(calls.filter((c) => c.path.endsWith("/smiles"))).toHaveLength(1);
  });

  it("shows 'Validating structure' and keeps Save disabled while converting", async () => {
    await openStructureStep({ status: "converting", smiles: "CCO" });
    expect(screen.getByText("Validating structure")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Save structure" })).toBeDisabled();
    await waitFor(() => expect(editor.smiles).toBe("CCO"));
  });

  it("shows why a conversion failed and lets the structure be saved again", async () => {
    await openStructureStep({
      status: "failed",
      smiles: "[Xe]",
      problem: { code: "UNSUPPORTED_ELEMENT", message: "Xe is not supported by GAFF", line: null },
    });
    expect(screen.getByText("Structure validation failed")).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("Xe is not supported by GAFF");
    expect(screen.getByRole("button", { name: "Save structure" })).toBeEnabled();
  });
});

/** Reads every query again, as a notification does. */
function RefreshButton() {
  const queryClient = useQueryClient();
  return (
    <button type="button" onClick={() => void queryClient.invalidateQueries()}>
      refresh
    </button>
  );
}

describe("add molecular system: reading the system again", () => {
  signedInWithFetch(fetchMock);
  beforeAll(async () => {
    await loadRDKit();
  });
  // An empty editor: the dialog opens on what the editor holds.
  beforeEach(() => {
    editor.smiles = "";
  });

  /** The structure step with a SMILES typed in the dialog; then each GET of the system answers `status`,
   * and the system has been read again once. */
  async function typingWhenReadsFail(status: number) {
    serve(molecularSystem("smiles", {}));
    const left = vi.fn();
    renderWithProviders(
      <>
        <RefreshButton />
        <MolecularSystemFlow systemId={SYSTEM_ID} onLoadFailed={left} />
      </>,
    );
    await screen.findByTestId("ketcher-editor");
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Enter SMILES" }));
    const dialog = await screen.findByRole("dialog", { name: "Enter SMILES" });
    await user.type(within(dialog).getByLabelText("SMILES"), "CCO");
    fetchMock.mockImplementation(async () => jsonResponse(status, { errors: [{ error_code: "NOT_FOUND" }] }));
    const callsBefore = fetchMock.mock.calls.length;
    await user.click(screen.getByRole("button", { name: "refresh", hidden: true }));
    await waitFor(() => expect(fetchMock.mock.calls.length).toBeGreaterThan(callsBefore));
    return { left, dialog };
  }

  it("keeps the user and what they typed when a refresh fails", async () => {
    const { left, dialog } = await typingWhenReadsFail(403);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(left).not.toHaveBeenCalled();
    expect(within(dialog).getByLabelText("SMILES")).toHaveValue("CCO");
  });

  it("leaves the flow once the system is gone", async () => {
    const { left } = await typingWhenReadsFail(404);
    await waitFor(() => expect(left).toHaveBeenCalledOnce());
  });
});
