import { FLAGS } from "@polyforge/contracts/flags";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { identityFromClaims } from "../../lib/auth/identity";
import { renderApp, TEST_CLAIMS } from "../../test/renderApp";

describe("routes", () => {
  it("shows the dashboard at /", async () => {
    renderApp("/");
    expect(await screen.findByRole("heading", { name: "My dashboard" })).toBeInTheDocument();
    expect(screen.getByText("Summary of your building blocks, molecules and systems.")).toBeInTheDocument();
  });

  it("redirects /dashboard to /", async () => {
    const { router } = renderApp("/dashboard");
    expect(await screen.findByRole("heading", { name: "My dashboard" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/");
  });

  it("shows the 404 page with a link home on an unknown path, inside the layout", async () => {
    renderApp("/no/such/page");
    expect(await screen.findByRole("heading", { name: "404: Page not found" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Go to Home Page" })).toHaveAttribute("href", "/");
    expect(screen.getByRole("navigation", { name: "Main navigation" })).toBeInTheDocument();
  });

  it.each([
    ["/systems", "Molecular systems"],
    ["/polymer-builder", "Polymer builder"],
  ])("renders %s with its title", async (path, title) => {
    renderApp(path);
    expect(await screen.findByRole("heading", { name: title })).toBeInTheDocument();
  });
});

describe("feature-flagged routes", () => {
  it.each([
    ["/modeling-compute", FLAGS.MODELING_COMPUTE, "Projects", "Modeling Compute"],
    ["/add-molecular-system", FLAGS.ADD_MOLECULAR_SYSTEM, "Add molecular system", "Add Molecular System"],
  ] as const)("%s shows its page and sidebar entry when the flag is on", async (path, flag, title, entry) => {
    const { router } = renderApp(path, { flagsOn: [flag] });
    expect(await screen.findByRole("heading", { name: title })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(path);
    const nav = screen.getByRole("navigation", { name: "Main navigation" });
    expect(within(nav).getByRole("link", { name: entry })).toBeInTheDocument();
  });

  it.each([
    ["/modeling-compute", "Modeling Compute"],
    ["/add-molecular-system", "Add Molecular System"],
  ])("%s redirects home and its entry is hidden when the flag is off", async (path, entry) => {
    const { router } = renderApp(path);
    expect(await screen.findByRole("heading", { name: "My dashboard" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/");
    const nav = screen.getByRole("navigation", { name: "Main navigation" });
    expect(within(nav).queryByRole("link", { name: entry })).not.toBeInTheDocument();
  });
});

describe("search params", () => {
  it("falls back to molecule for an invalid systems type", async () => {
    const { router } = renderApp("/systems?type=bogus");
    await screen.findByRole("heading", { name: "Molecular systems" });
    expect(router.state.location.search).toEqual({ type: "molecule" });
  });

  it("keeps a valid systems type", async () => {
    const { router } = renderApp("/systems?type=mixed");
    await screen.findByRole("heading", { name: "Molecular systems" });
    expect(router.state.location.search).toEqual({ type: "mixed" });
  });

  it("keeps a uuid systemId", async () => {
    const systemId = "3f2b8c1e-9d4a-4e5b-8c7d-1a2b3c4d5e6f";
    const { router } = renderApp(`/add-molecular-system?systemId=${systemId}`, {
      flagsOn: [FLAGS.ADD_MOLECULAR_SYSTEM],
    });
    await screen.findByRole("heading", { name: "Add molecular system" });
    expect(router.state.location.search).toEqual({ systemId });
  });

  it("drops a systemId that is not a uuid", async () => {
    const { router } = renderApp("/add-molecular-system?systemId=not-a-uuid", {
      flagsOn: [FLAGS.ADD_MOLECULAR_SYSTEM],
    });
    await screen.findByRole("heading", { name: "Add molecular system" });
    expect(router.state.location.search).toEqual({});
  });
});

describe("layout", () => {
  it("lists the sidebar entries in order and marks the current one", async () => {
    renderApp("/systems", { flagsOn: [FLAGS.MODELING_COMPUTE, FLAGS.ADD_MOLECULAR_SYSTEM] });
    await screen.findByRole("heading", { name: "Molecular systems" });
    const nav = screen.getByRole("navigation", { name: "Main navigation" });
    const names = within(nav)
      .getAllByRole("link")
      .map((link) => link.textContent);
    expect(names).toEqual([
      "Home",
      "Modeling Compute",
      "Building Blocks",
      "Molecular Systems",
      "Polymer Builder",
      "Add Molecular System",
    ]);
    expect(within(nav).getByRole("link", { name: "Molecular Systems" })).toHaveAttribute("aria-current", "page");
    expect(within(nav).getByRole("link", { name: "Home" })).not.toHaveAttribute("aria-current");
  });

  it("opens the documentation in a new tab", async () => {
    renderApp("/");
    const docs = await screen.findByRole("link", { name: "Documentation" });
    expect(docs).toHaveAttribute("href", "https://docs.example.org");
    expect(docs).toHaveAttribute("target", "_blank");
  });

  it("shows the given name and initials, and a menu with Account and Log out", async () => {
    const { router } = renderApp("/");
    const menu = await screen.findByRole("button", { name: "User menu" });
    expect(within(menu).getByText("Ada")).toBeInTheDocument();
    expect(within(menu).getByText("AL")).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(menu);
    expect(await screen.findByRole("menuitem", { name: "Log out" })).toBeInTheDocument();
    await user.click(screen.getByRole("menuitem", { name: "Account" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/account"));
  });

  it("shows the impersonation banner with the user's email only during impersonation", async () => {
    const { unmount } = renderApp("/");
    await screen.findByRole("heading", { name: "My dashboard" });
    expect(screen.queryByText(/through remote support/)).not.toBeInTheDocument();
    unmount();
    renderApp("/", { identity: identityFromClaims({ ...TEST_CLAIMS, impersonator: { id: "staff-1" } }) });
    expect(await screen.findByText(/signed in as ada@example.org through remote support/)).toBeInTheDocument();
  });
});
