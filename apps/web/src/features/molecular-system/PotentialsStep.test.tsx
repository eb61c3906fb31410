import { GrowthBookProvider } from "@growthbook/growthbook-react";
import { FLAGS } from "@polyforge/contracts/flags";
import type { PotentialResponse } from "@polyforge/contracts/potentials";
import { unsupportedFileTypeMessage } from "@polyforge/contracts/uploads";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { identityFromClaims } from "../../lib/auth/identity";
import { molecularSystem, potentialGeneration } from "../../test/fixtures";
import { growthbookWith, TEST_CLAIMS } from "../../test/renderApp";
import { renderWithProviders } from "../../test/renderWithProviders";
import { jsonResponse, signedInWithFetch } from "../../test/signedInFetch";
import type { MolecularSystem } from "./api/getMolecularSystem";
import { PotentialsStep } from "./PotentialsStep";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();
const SYSTEM_ID = "7d1e2f3a-4b5c-4d6e-8f90-123456789abc";
const POTENTIALS = `/systems/${SYSTEM_ID}/potentials`;

const system: MolecularSystem = molecularSystem(
  { id: SYSTEM_ID, name: "Ethanol", sanitized_name: "ethanol", origin: "smiles", type: "molecule" },
  { status: "converted", smiles: "CCO" },
);

function potential(origin: "generate" | "upload", overrides: Partial<PotentialResponse> = {}): PotentialResponse {
  return {
    id: origin === "generate" ? "p-gen" : "p-up",
    system_id: SYSTEM_ID,
    name: origin === "generate" ? "Ethanol GAFF2" : "Hand-made",
    description: "",
    origin,
    system_type: "molecule",
    is_draft: false,
    antechamber_potential: origin === "generate" ? { force_field: "GAFF2", charge: 0, minimization_steps: 5 } : null,
    potential_execution:
      origin === "generate" ? potentialGeneration({ status: "waiting_for_resources", progress: 0 }) : null,
    uploaded_potential:
      origin === "upload"
        ? { status: "pending_upload", file: null, file_size: null, upload_id: null, problem: null, topology: null }
        : null,
    created_at: "2026-11-25T10:00:00Z",
    updated_at: "2026-11-25T10:00:00Z",
    ...overrides,
  };
}

type Call = { method: string; path: string; body: unknown };

/** The API: the potentials list as given, and every call recorded; other answers by `answer`. */
function serve(list: PotentialResponse[], answer: (call: Call) => Response | undefined = () => undefined) {
  const calls: Call[] = [];
  fetchMock.mockImplementation(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const method = init?.method ?? "GET";
    const path = url.pathname.replace("/api/v2", "");
    const call = { method, path, body: init?.body ? JSON.parse(String(init.body)) : undefined };
    calls.push(call);
    const answered = answer(call);
    if (answered) return answered;
    if (method === "GET" && path === `${POTENTIALS}/`) return jsonResponse(200, { data: list });
    return jsonResponse(404, {});
  });
  return calls;
}

function renderStep({ flags = [FLAGS.GENERATE_POTENTIAL], organization = "other" } = {}) {
  return renderWithProviders(
    <GrowthBookProvider growthbook={growthbookWith(flags)}>
      <PotentialsStep system={system} />
    </GrowthBookProvider>,
    identityFromClaims({ ...TEST_CLAIMS, organization }),
  );
}

async function openMenuItem(name: string) {
  await userEvent.click(await screen.findByRole("button", { name: "Add potential" }));
  await userEvent.click(await screen.findByRole("menuitem", { name }));
}

describe("potentials: generate", () => {
  signedInWithFetch(fetchMock);

  it("starts with GAFF2, charge 0 and 5 steps, checks the numbers, and sends them trimmed", async () => {
    const created = potential("generate", { name: "Ethanol GAFF2" });
    const calls = serve([], (call) =>
      call.method === "POST" && call.path === `${POTENTIALS}/` ? jsonResponse(201, created) : undefined,
    );
    renderStep();
    expect(await screen.findByText(/No potentials yet/)).toBeInTheDocument();
    await openMenuItem("Generate");
    const form = await screen.findByRole("form", { name: "Generate a potential" });
    const charge = within(form).getByLabelText(/Net charge/);
    const steps = within(form).getByLabelText(/Minimisation steps/);
    expect(within(form).getByRole("textbox", { name: /Force field/ })).toHaveValue("GAFF2");
    expect(charge).toHaveValue("0");
    expect(steps).toHaveValue("5");

    const user = userEvent.setup();
    await user.clear(charge);
    await user.type(charge, "abc");
    await user.clear(steps);
    await user.type(steps, "-1");
    await user.click(within(form).getByRole("button", { name: "Generate" }));
    expect(await within(form).findByText("Required field")).toBeInTheDocument();
    expect(within(form).getByText("Must be a valid number")).toBeInTheDocument();
    expect(within(form).getByText("Must be at least 0")).toBeInTheDocument();

    await user.clear(charge);
    await user.type(charge, "1.5");
    await user.click(within(form).getByRole("button", { name: "Generate" }));
    expect(await within(form).findByText("Must be a whole number")).toBeInTheDocument();
    expect(calls.filter((c) => c.method === "POST")).toEqual([]);

    await user.type(within(form).getByLabelText(/Name/), "Ethanol GAFF2");
    await user.clear(charge);
    await user.type(charge, "  -1 ");
    await user.clear(steps);
    await user.type(steps, "0");
    await user.click(within(form).getByRole("button", { name: "Generate" }));
    await waitFor(() =>
      expect(calls.filter((c) => c.method === "POST")).toEqual([
        {
          method: "POST",
          path: `${POTENTIALS}/`,
          body: {
            origin: "generate",
            name: "Ethanol GAFF2",
            description: "",
            force_field: "GAFF2",
            charge: -1,
            minimization_steps: 0,
          },
        },
      ]),
    );
    await waitFor(() => expect(screen.queryByRole("form", { name: "Generate a potential" })).not.toBeInTheDocument());
  });

  it("offers GAFF and GAFF2 to most organizations and GAFF2 only to the cosmetics company", async () => {
    serve([]);
    const { unmount } = renderStep();
    await openMenuItem("Generate");
    await userEvent.click(screen.getByRole("textbox", { name: /Force field/ }));
    expect((await screen.findAllByRole("option")).map((o) => o.textContent)).toEqual(["GAFF", "GAFF2"]);
    unmount();

    renderStep({ organization: "cosmetics" });
    await openMenuItem("Generate");
    await userEvent.click(screen.getByRole("textbox", { name: /Force field/ }));
    expect((await screen.findAllByRole("option")).map((o) => o.textContent)).toEqual(["GAFF2"]);
  });

  it("offers Generate only with the generate-potential flag", async () => {
    serve([]);
    renderStep({ flags: [] });
    await userEvent.click(await screen.findByRole("button", { name: "Add potential" }));
    expect(await screen.findByRole("menuitem", { name: "Upload file" })).toBeInTheDocument();
    expect(screen.queryByRole("menuitem", { name: "Generate" })).not.toBeInTheDocument();
  });

  it("says why the server refused to create it", async () => {
    serve([], (call) =>
      call.method === "POST"
        ? jsonResponse(409, { errors: [{ error_code: "SYSTEM.CREATE_POTENTIAL.EXISTING_DRAFT" }] })
        : undefined,
    );
    renderStep();
    await openMenuItem("Generate");
    const form = await screen.findByRole("form", { name: "Generate a potential" });
    await userEvent.type(within(form).getByLabelText(/Name/), "Second");
    await userEvent.click(within(form).getByRole("button", { name: "Generate" }));
    expect(await screen.findByText("There was a problem creating the potential")).toBeInTheDocument();
    expect(screen.getByText("Finish your draft potential before creating a new one")).toBeInTheDocument();
  });
});

describe("potentials: one draft at a time", () => {
  signedInWithFetch(fetchMock);

  it("refuses a second form while one is open", async () => {
    serve([]);
    renderStep();
    await openMenuItem("Generate");
    await openMenuItem("Upload file");
    expect(await screen.findByRole("alert")).toHaveTextContent("Finish your draft potential before creating a new one");
    expect(screen.getByRole("form", { name: "Generate a potential" })).toBeInTheDocument();
    expect(screen.queryByRole("form", { name: "Upload a potential" })).not.toBeInTheDocument();
  });

  it("refuses a new potential while an uploaded one still waits for its file", async () => {
    serve([potential("upload", { is_draft: true })]);
    renderStep();
    expect(await screen.findByText("Hand-made")).toBeInTheDocument();
    await openMenuItem("Generate");
    expect(await screen.findByRole("alert")).toHaveTextContent("Finish your draft potential before creating a new one");
    expect(screen.queryByRole("form")).not.toBeInTheDocument();
  });
});

describe("potentials: statuses and results", () => {
  signedInWithFetch(fetchMock);

  it("shows a queued generation read-only, with its status and Cancel, and takes the cancel's answer", async () => {
    const queued = potential("generate");
    const cancelled = { ...queued, potential_execution: { ...queued.potential_execution!, status: "cancelled" } };
    // The list keeps answering the generation as queued: the tag must come from the cancel's answer.
    const calls = serve([queued], (call) =>
      call.method === "DELETE" && call.path.endsWith("/process/cancel") ? jsonResponse(200, cancelled) : undefined,
    );
    renderStep();
    const card = await screen.findByLabelText("Ethanol GAFF2");
    expect(within(card).getByText("Waiting for resources")).toBeInTheDocument();
    expect(within(card).getByText("GAFF2")).toBeInTheDocument();
    expect(within(card).queryByRole("textbox")).not.toBeInTheDocument();
    await userEvent.click(within(card).getByRole("button", { name: "Cancel generation" }));
    await waitFor(() =>
      expect(calls).toContainEqual({
        method: "DELETE",
        path: `${POTENTIALS}/p-gen/process/cancel`,
        body: undefined,
      }),
    );
    expect(await within(card).findByText("Cancelled")).toBeInTheDocument();
  });

  it("shows a completed generation's atom types and charges per molecule, total charge, energy and the zip", async () => {
    const completed = potential("generate", {
      potential_execution: {
        status: "completed",
        progress: 100,
        stage: null,
        error_code: null,
        error_message: null,
        scheduler_reason: null,
        result_files: [{ name: "ethanol_gaff2_files.zip", size: 4096 }],
        result: {
          force_field: "GAFF2",
          atoms: 9,
          molecules: 1,
          total_charge: 0,
          charge_method: "AM1-BCC",
          kinds: [
            {
              name: "MOL",
              copies: 1,
              atoms: 9,
              net_charge: 0,
              min_atom_charge: -0.6,
              max_atom_charge: 0.4,
              atom_types: ["c3", "hc", "oh", "ho", "h1"],
            },
          ],
          energy_before_minimization_kj_mol: 12.5,
          minimized_energy_kj_mol: -3.25,
        },
        started_at: "2026-11-25T10:00:00Z",
        finished_at: "2026-11-25T10:01:00Z",
      },
    });
    const calls = serve([completed], (call) =>
      call.path === `${POTENTIALS}/p-gen/files` ? new Response(new Blob(["zip"]), { status: 200 }) : undefined,
    );
    URL.createObjectURL = vi.fn(() => "blob:zip");
    URL.revokeObjectURL = vi.fn();
    renderStep();
    const card = await screen.findByLabelText("Ethanol GAFF2");
    expect(within(card).getByText("Completed")).toBeInTheDocument();
    const kinds = within(card).getByRole("table", { name: "Atom types and charges by molecule" });
    expect(within(kinds).getByRole("row", { name: /MOL 1 9 0 -0.600 to \+0.400 c3 hc oh ho h1/ })).toBeInTheDocument();
    expect(within(card).getByText("-3.3 kJ/mol")).toBeInTheDocument();
    expect(within(card).getByText("0.000")).toBeInTheDocument();
    await userEvent.click(within(card).getByRole("button", { name: "Download files" }));
    expect(await screen.findByText("Files downloaded")).toBeInTheDocument();
    expect(calls.filter((c) => c.path.endsWith("/files"))).toHaveLength(1);
  });

  it("follows the generation's status without a reload (polled while the socket is closed)", async () => {
    const running = potential("generate");
    serve([running]);
    renderStep();
    const card = await screen.findByLabelText("Ethanol GAFF2");
    expect(within(card).getByText("Waiting for resources")).toBeInTheDocument();
    if (running.potential_execution) {
      running.potential_execution.status = "running";
      running.potential_execution.progress = 40;
    }
    expect(await within(card).findByText("Running 40%", {}, { timeout: 8000 })).toBeInTheDocument();
  });

  it("shows why a generation failed", async () => {
    const failed = potential("generate");
    if (failed.potential_execution) {
      failed.potential_execution.status = "failed";
      failed.potential_execution.error_code = "WRONG_NET_CHARGE";
      failed.potential_execution.error_message = "The structure carries a net charge of 0, not +2.";
    }
    serve([failed]);
    renderStep();
    const card = await screen.findByLabelText("Ethanol GAFF2");
    expect(within(card).getByText("Failed")).toBeInTheDocument();
    expect(within(card).getByRole("alert")).toHaveTextContent("The structure carries a net charge of 0, not +2.");
    expect(within(card).queryByRole("button", { name: "Cancel generation" })).not.toBeInTheDocument();
  });
});

describe("potentials: upload", () => {
  signedInWithFetch(fetchMock);

  it("requires a name and a .top, creates the potential and sends the file to it", async () => {
    const created = potential("upload", { is_draft: true });
    const list: PotentialResponse[] = [];
    const calls = serve(list, (call) => {
      if (call.method === "POST" && call.path === `${POTENTIALS}/`) {
        list.push(created);
        return jsonResponse(201, created);
      }
      if (call.path === `${POTENTIALS}/p-up/upload/begin`) return jsonResponse(200, { upload_id: "up-1" });
      return undefined;
    });
    const { container } = renderStep();
    await openMenuItem("Upload file");
    const form = await screen.findByRole("form", { name: "Upload a potential" });
    await userEvent.click(within(form).getByRole("button", { name: "Upload" }));
    expect(await within(form).findAllByText("Required field")).toHaveLength(2);

    const input = container.querySelector<HTMLInputElement>('input[type="file"]');
    if (!input) throw new Error("no file input");
    await userEvent.upload(input, new File(["x"], "topol.itp"), { applyAccept: false });
    expect(await within(form).findByText(unsupportedFileTypeMessage([".top"]))).toBeInTheDocument();
    await userEvent.upload(input, new File(["[ defaults ]\n"], "topol.top"));
    expect(within(form).getByText(/topol.top/)).toBeInTheDocument();
    await userEvent.type(within(form).getByLabelText(/Name/), "Hand-made");
    await userEvent.click(within(form).getByRole("button", { name: "Upload" }));

    await waitFor(() =>
      expect(calls).toContainEqual({
        method: "POST",
        path: `${POTENTIALS}/`,
        body: { origin: "upload", name: "Hand-made", description: "" },
      }),
    );
    // The chosen file goes to the new potential's upload calls at once.
    await waitFor(() =>
      expect(calls).toContainEqual({
        method: "POST",
        path: `${POTENTIALS}/p-up/upload/begin`,
        body: { file: "topol.top", file_size: 13 },
      }),
    );
  });

  it("explains an invalid .top with its line; the saved potential is locked", async () => {
    serve([
      potential("upload", {
        uploaded_potential: {
          status: "invalid",
          file: "topol.top",
          file_size: 2048,
          upload_id: "up-1",
          problem: { code: "INVALID_TOPOLOGY", message: "[ molecules ] lists 3 SOL, the structure has 216", line: 12 },
          topology: null,
        },
      }),
    ]);
    renderStep();
    const card = await screen.findByLabelText("Hand-made");
    expect(within(card).getAllByText("Invalid file").length).toBeGreaterThan(0);
    expect(within(card).getByRole("alert")).toHaveTextContent(
      "Line 12: [ molecules ] lists 3 SOL, the structure has 216",
    );
    expect(within(card).getByRole("alert")).toHaveTextContent(/delete this potential and upload the corrected .top/);
    expect(within(card).getByText("Locked")).toBeInTheDocument();
    expect(within(card).queryByRole("button", { name: "Choose file" })).not.toBeInTheDocument();
  });

  it("shows a pending upload as 'Not submitted'", async () => {
    serve([potential("upload", { is_draft: true })]);
    renderStep();
    const card = await screen.findByLabelText("Hand-made");
    expect(within(card).getAllByText("Not submitted").length).toBeGreaterThan(0);
    expect(within(card).getByRole("button", { name: "Choose file" })).toBeEnabled();
  });

  it("locks a saved (valid) uploaded potential", async () => {
    serve([
      potential("upload", {
        uploaded_potential: {
          status: "valid",
          file: "topol.top",
          file_size: 2048,
          upload_id: "up-1",
          problem: null,
          topology: { atoms: 648, molecules: 216, molecule_types: ["SOL"] },
        },
      }),
    ]);
    renderStep();
    const card = await screen.findByLabelText("Hand-made");
    expect(within(card).getByText("Locked")).toBeInTheDocument();
    expect(within(card).queryByRole("button", { name: "Choose file" })).not.toBeInTheDocument();
    expect(within(card).getByText("SOL")).toBeInTheDocument();
  });
});

describe("potentials: delete", () => {
  signedInWithFetch(fetchMock);

  async function deleteIt() {
    renderStep();
    const card = await screen.findByLabelText("Ethanol GAFF2");
    await userEvent.click(within(card).getByRole("button", { name: "Delete potential Ethanol GAFF2" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete potential" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete potential" }));
  }

  it("deletes after confirmation and says 'Potential deleted'", async () => {
    const calls = serve([potential("generate")], (call) =>
      call.method === "DELETE" ? new Response(null, { status: 204 }) : undefined,
    );
    await deleteIt();
    expect(await screen.findByText("Potential deleted")).toBeInTheDocument();
    expect(calls).toContainEqual({ method: "DELETE", path: `${POTENTIALS}/p-gen`, body: undefined });
  });

  it("says 'There was a problem deleting the potential' when it fails", async () => {
    serve([potential("generate")], (call) =>
      call.method === "DELETE"
        ? jsonResponse(404, { errors: [{ error_code: "SYSTEM.VALIDATE.POTENTIAL_NOT_FOUND" }] })
        : undefined,
    );
    await deleteIt();
    expect(await screen.findByText("There was a problem deleting the potential")).toBeInTheDocument();
  });
});
