import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderWithProviders } from "../../test/renderWithProviders";
import { jsonResponse, signedInWithFetch } from "../../test/signedInFetch";
import { AddMolecularSystemPage } from "./AddMolecularSystemPage";
import type { NewSystemFiling } from "./newSystemFiling";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();
const SYSTEM_ID = "7d1e2f3a-4b5c-4d6e-8f90-123456789abc";

/** The app's project field stands in as a plain select (features do not import each other). */
function filingWith(choose: NewSystemFiling["choose"]): NewSystemFiling {
  return {
    field: ({ value, onChange }) => (
      <label>
        Project
        <select value={value ?? ""} onChange={(event) => onChange(event.currentTarget.value || null)}>
          <option value="">No project</option>
          <option value="project-1">Membranes</option>
        </select>
      </label>
    ),
    choose,
  };
}

describe("add molecular system: filing under a project", () => {
  signedInWithFetch(fetchMock);

  function serve() {
    const calls: Array<{ method: string; path: string; body: unknown }> = [];
    fetchMock.mockImplementation(async (input, init) => {
      const url = new URL(String(input), "http://localhost");
      const method = init?.method ?? "GET";
      calls.push({
        method,
        path: url.pathname.replace("/api/v2", ""),
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
      });
      if (method === "POST") return jsonResponse(201, { id: SYSTEM_ID });
      return jsonResponse(404, {});
    });
    return calls;
  }

  it("offers the project field on the Details step and hands the choice on with the system", async () => {
    const calls = serve();
    const choose = vi.fn();
    const created = vi.fn();
    renderWithProviders(
      <AddMolecularSystemPage onCreated={created} onLoadFailed={() => {}} filing={filingWith(choose)} />,
    );
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/Name/), "Aspirin");
    await user.click(screen.getByLabelText("From structure"));
    await user.selectOptions(screen.getByLabelText("Project"), "project-1");
    await user.click(screen.getByRole("button", { name: "Next" }));

    await waitFor(() => expect(created).toHaveBeenCalledWith(SYSTEM_ID));
    expect(choose).toHaveBeenCalledWith("project-1", "Aspirin");
    // The project is not part of the system's body: the app files the system once it exists.
    expect(calls).toEqual([
      { method: "POST", path: "/systems", body: { name: "Aspirin", description: "", origin: "smiles" } },
    ]);
  });

  it("chooses no project when the field is left empty, and hands nothing on while the form is invalid", async () => {
    serve();
    const choose = vi.fn();
    renderWithProviders(
      <AddMolecularSystemPage onCreated={() => {}} onLoadFailed={() => {}} filing={filingWith(choose)} />,
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Next" }));
    expect(await screen.findAllByText("Required field")).toHaveLength(2);
    expect(choose).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText(/Name/), "Water");
    await user.click(screen.getByLabelText("From file"));
    await user.click(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => expect(choose).toHaveBeenCalledWith(null, "Water"));
  });

  it("shows no project field when projects are off", () => {
    renderWithProviders(<AddMolecularSystemPage onCreated={() => {}} onLoadFailed={() => {}} />);
    expect(screen.queryByLabelText("Project")).toBeNull();
  });
});
