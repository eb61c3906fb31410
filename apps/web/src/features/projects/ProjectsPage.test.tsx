import { FLAGS } from "@polyforge/contracts/flags";
import type { Project } from "@polyforge/contracts/projects";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { builtSystem } from "../../test/fixtures";
import { gate } from "../../test/gate";
import { renderApp } from "../../test/renderApp";
import { jsonResponse as json, signedInWithFetch } from "../../test/signedInFetch";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();

function project(name: string, overrides: Partial<Project> = {}): Project {
  return {
    id: crypto.randomUUID(),
    name,
    description: null,
    system_ids: [],
    created_at: "2026-11-20T10:00:00Z",
    updated_at: "2026-11-21T10:00:00Z",
    ...overrides,
  };
}

/** A small in-memory /projects endpoint; with `holdCreate`, a POST is answered only once the returned
 * gate is opened. */
function serve(initial: Project[], { holdCreate = false } = {}) {
  let projects = [...initial];
  const create = gate();
  if (!holdCreate) create.open();
  fetchMock.mockImplementation(async (url, init) => {
    const path = String(url);
    const method = init?.method ?? "GET";
    if (method === "GET" && path.startsWith("/api/v2/projects?")) {
      return json(200, { data: projects, metadata: { page_num: 1, page_size: 100, num_records: projects.length } });
    }
    if (method === "POST" && path === "/api/v2/projects") {
      await create.passed;
      const body = JSON.parse(String(init?.body));
      const created = project(body.name, { description: body.description });
      projects = [created, ...projects];
      return json(201, created);
    }
    if (method === "PATCH" && path.startsWith("/api/v2/projects/")) {
      const id = path.split("/").at(-1);
      const body = JSON.parse(String(init?.body));
      projects = projects.map((p) => (p.id === id ? { ...p, ...body } : p));
      return json(
        200,
        projects.find((p) => p.id === id),
      );
    }
    if (method === "DELETE" && path.startsWith("/api/v2/projects/")) {
      const id = path.split("/").at(-1);
      projects = projects.filter((p) => p.id !== id);
      return new Response(null, { status: 204 });
    }
    return json(404, { errors: [{ error_code: "COMMON.ROUTE.NOT_FOUND" }] });
  });
  return create;
}

const calls = (method: string) =>
  fetchMock.mock.calls.filter(([url, init]) => (init?.method ?? "GET") === method && String(url).includes("/projects"));

describe("projects summary (modeling compute)", () => {
  signedInWithFetch(fetchMock);

  it("says 'No projects added', creates one from 'Create Project' once however often Create is clicked", async () => {
    const create = serve([], { holdCreate: true });
    renderApp("/modeling-compute", { flagsOn: [FLAGS.MODELING_COMPUTE] });
    // The first render loads the lazy page: allow a busy machine more than the default wait.
    expect(await screen.findByText("No projects added", {}, { timeout: 20_000 })).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Add project" }));
    const dialog = await screen.findByRole("dialog", { name: "Create Project" });

    // Required at submit, and the message goes as soon as the field is filled.
    await user.click(within(dialog).getByRole("button", { name: "Create" }));
    expect(await within(dialog).findByText("Required field")).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText(/Name/), "Melts");
    expect(within(dialog).queryByText("Required field")).not.toBeInTheDocument();
    await user.type(within(dialog).getByLabelText("Description"), "PE and PP");

    await user.dblClick(within(dialog).getByRole("button", { name: "Create" }));
    create.open(); // answered once both clicks have landed
    expect(await screen.findByText("Project created")).toBeInTheDocument();
    expect(calls("POST")).toHaveLength(1);
    expect(JSON.parse(String(calls("POST")[0]![1]!.body))).toEqual({ name: "Melts", description: "PE and PP" });
    const row = (await screen.findByText("Melts")).closest("tr")!;
    expect(within(row).getByText("PE and PP")).toBeInTheDocument();
    expect(within(row).getByText("0 systems")).toBeInTheDocument();
  });

  it("updates a project in 'Update Project' with Save, and deletes one after asking", async () => {
    const melts = project("Melts", { description: "old", system_ids: ["s-1", "s-2"] });
    serve([melts]);
    renderApp("/modeling-compute", { flagsOn: [FLAGS.MODELING_COMPUTE] });
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Edit Melts" }, { timeout: 20_000 }));
    const dialog = await screen.findByRole("dialog", { name: "Update Project" });
    const name = within(dialog).getByLabelText(/Name/);
    expect(name).toHaveValue("Melts");
    await user.clear(name);
    await user.type(name, "Polymer melts");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Project updated")).toBeInTheDocument();
    expect(await screen.findByText("Polymer melts")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Delete Polymer melts" }));
    const confirm = await screen.findByRole("dialog", { name: "Delete project" });
    expect(within(confirm).getByText(/Its 2 systems stay in your molecular systems/)).toBeInTheDocument();
    expect(calls("DELETE")).toHaveLength(0);
    await user.click(within(confirm).getByRole("button", { name: "Delete project" }));
    expect(await screen.findByText("Project deleted")).toBeInTheDocument();
    expect(await screen.findByText("No projects added")).toBeInTheDocument();
  });

  it("shows the server's reason at the field when the name is taken, keeping what was typed", async () => {
    serve([]);
    fetchMock.mockImplementationOnce(async () =>
      json(200, { data: [], metadata: { page_num: 1, page_size: 100, num_records: 0 } }),
    );
    renderApp("/modeling-compute", { flagsOn: [FLAGS.MODELING_COMPUTE] });
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Add project" }));
    const dialog = await screen.findByRole("dialog", { name: "Create Project" });
    fetchMock.mockImplementationOnce(async () =>
      json(409, { errors: [{ error_code: "PROJECT.VALIDATE.NAME_NOT_UNIQUE", args: { name: "Melts" } }] }),
    );
    await user.type(within(dialog).getByLabelText(/Name/), "Melts");
    await user.click(within(dialog).getByRole("button", { name: "Create" }));
    expect(await within(dialog).findByText("A project named 'Melts' already exists.")).toBeInTheDocument();
    expect(within(dialog).getByLabelText(/Name/)).toHaveValue("Melts");
  });

  it("says 'There was an error getting your projects' when the list cannot be read", async () => {
    fetchMock.mockImplementation(async () => json(400, { errors: [{ error_code: "PROJECT.GET.FAILED" }] }));
    renderApp("/modeling-compute", { flagsOn: [FLAGS.MODELING_COMPUTE] });
    await waitFor(() =>
      expect(screen.getAllByText("There was an error getting your projects").length).toBeGreaterThan(0),
    );
  });
});

describe("projects in the systems catalogue", () => {
  signedInWithFetch(fetchMock);

  it("filters the catalogue by project and files a system under a project from its row", async () => {
    const melts = project("Melts");
    const systemId = crypto.randomUUID();
    const melt = builtSystem({ id: systemId, name: "PE melt", sanitized_name: "pe_melt" });
    fetchMock.mockImplementation(async (url, init) => {
      const path = String(url);
      if (path.startsWith("/api/v2/projects?")) {
        return json(200, { data: [melts], metadata: { page_num: 1, page_size: 100, num_records: 1 } });
      }
      if (init?.method === "PUT") return json(200, { ...melts, system_ids: [systemId] });
      if (path.startsWith("/api/v2/systems?")) {
        return json(200, { data: [melt], metadata: { page_num: 1, page_size: 10, num_records: 1 } });
      }
      return json(404, { errors: [{ error_code: "COMMON.ROUTE.NOT_FOUND" }] });
    });
    renderApp(`/systems?type=system&project_id=${melts.id}`, { flagsOn: [FLAGS.MODELING_COMPUTE] });
    const row = (await screen.findByText("PE melt", {}, { timeout: 20_000 })).closest("tr")!;
    const systemCalls = fetchMock.mock.calls
      .map(([url]) => String(url))
      .filter((u) => u.startsWith("/api/v2/systems?"));
    expect(new URLSearchParams(systemCalls[0]!.split("?")[1]).get("project_id")).toBe(melts.id);

    const user = userEvent.setup();
    await user.click(within(row).getByRole("button", { name: "Add PE melt to a project" }));
    await user.click(await screen.findByRole("menuitem", { name: "Melts" }));
    expect(await screen.findByText("PE melt added to Melts")).toBeInTheDocument();
    const put = fetchMock.mock.calls.find(([, init]) => init?.method === "PUT");
    expect(String(put![0])).toBe(`/api/v2/projects/${melts.id}/systems/${systemId}`);
  });
});
