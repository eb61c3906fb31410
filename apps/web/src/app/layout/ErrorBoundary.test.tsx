import { MantineProvider } from "@mantine/core";
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
  useRouterState,
} from "@tanstack/react-router";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ErrorBoundary } from "./ErrorBoundary";
import { ErrorFallback, SUPPORT_EMAIL } from "./ErrorFallback";

function Layout() {
  // The path of the page actually rendered: state.location moves ahead while the next page loads.
  const path = useRouterState({
    select: (state) => (state.resolvedLocation ?? state.location).pathname,
  });
  return (
    <main>
      <ErrorBoundary resetKey={path} fallback={<ErrorFallback />}>
        <Outlet />
      </ErrorBoundary>
    </main>
  );
}

function Broken(): never {
  throw new Error("render failure");
}

function renderWithBrokenPage() {
  const root = createRootRoute({ component: Layout });
  const routeTree = root.addChildren([
    createRoute({ getParentRoute: () => root, path: "/", component: () => <h1>Home page</h1> }),
    createRoute({ getParentRoute: () => root, path: "/broken", component: Broken }),
  ]);
  const router = createRouter({ routeTree, history: createMemoryHistory({ initialEntries: ["/broken"] }) });
  render(
    <MantineProvider env="test">
      <RouterProvider router={router} />
    </MantineProvider>,
  );
  return router;
}

describe("error fallback", () => {
  beforeEach(() => vi.spyOn(console, "error").mockImplementation(() => {}));
  afterEach(() => vi.restoreAllMocks());

  it("shows the fallback with the support address when a page fails to render", async () => {
    renderWithBrokenPage();
    expect(await screen.findByRole("heading", { name: "Oops! Something went wrong..." })).toBeInTheDocument();
    expect(screen.getByText(new RegExp(SUPPORT_EMAIL))).toBeInTheDocument();
  });

  it("resets when the path changes", async () => {
    const router = renderWithBrokenPage();
    const home = await screen.findByRole("link", { name: "Go to Home Page" });
    await userEvent.click(home);
    expect(await screen.findByRole("heading", { name: "Home page" })).toBeInTheDocument();
    expect(screen.queryByText("Oops! Something went wrong...")).not.toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/");
  });
});
