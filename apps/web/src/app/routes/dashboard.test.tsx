import { createMemoryHistory } from "@tanstack/react-router";
import { render, screen } from "@testing-library/react";
import { identityFromClaims } from "../../lib/auth/identity";
import { gate } from "../../test/gate";
import { growthbookWith, seedAppConfig, TEST_CLAIMS } from "../../test/renderApp";
import { trackRouter } from "../../test/routerRegistry";
import { jsonResponse as json, signedInWithFetch } from "../../test/signedInFetch";
import { App } from "../App";
import { createQueryClient } from "../providers/queryClient";
import { createAppRouter } from "../router";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();

const page = <T,>(data: T[]) => ({ data, metadata: { page_num: 1, page_size: 5, num_records: data.length } });

/** The three cards' lists, answered once the returned gate is opened (at once without `held`). */
function serve({ held = false } = {}) {
  const answers = gate();
  if (!held) answers.open();
  fetchMock.mockImplementation(async (url) => {
    const path = String(url);
    await answers.passed;
    if (path.startsWith("/api/v2/building_blocks?")) return json(200, page([]));
    if (path.startsWith("/api/v2/systems?")) return json(200, page([]));
    return json(404, { errors: [] });
  });
  return answers;
}

const calls = () => fetchMock.mock.calls.map(([url]) => String(url));

describe("dashboard requests (issue 27)", () => {
  signedInWithFetch(fetchMock);

  it("asks for the three cards' lists together when the route loads, before anything renders", async () => {
    const answers = serve({ held: true });
    const router = createAppRouter(
      { queryClient: createQueryClient(), flags: { isOn: () => false }, docsUrl: "/docs/" },
      createMemoryHistory({ initialEntries: ["/"] }),
    );
    trackRouter(router);
    const loading = router.load();
    // The three are in flight at once: none has answered yet (each waits for the gate).
    await vi.waitFor(() => expect(calls()).toHaveLength(3));
    answers.open();
    expect(calls().sort()).toEqual([
      "/api/v2/building_blocks?page_num=1&page_size=5&type=linear&type=dendrimer&show_archived=false",
      "/api/v2/systems?page_num=1&page_size=5&type=molecule",
      "/api/v2/systems?page_num=1&page_size=5&type=system",
    ]);
    await loading;
  });

  it("renders the cards from those answers without asking again", async () => {
    serve();
    const queryClient = createQueryClient();
    seedAppConfig(queryClient);
    const router = createAppRouter(
      { queryClient, flags: { isOn: () => false }, docsUrl: "/docs/" },
      createMemoryHistory({ initialEntries: ["/"] }),
    );
    trackRouter(router);
    await router.load();
    // The loader's three answers are in the cache before the page renders.
    await vi.waitFor(() => expect(queryClient.isFetching()).toBe(0));
    expect(calls()).toHaveLength(3);
    render(
      <App
        router={router}
        queryClient={queryClient}
        growthbook={growthbookWith([])}
        identity={identityFromClaims(TEST_CLAIMS)}
        mantineEnv="test"
      />,
    );
    expect(await screen.findByRole("heading", { name: "My dashboard" })).toBeInTheDocument();
    // Once every card watches its list, a refetch on mount would have started (a query observer
    // fetches as it subscribes): none has.
    const cards = queryClient.getQueryCache().findAll({ predicate: ({ queryKey }) => queryKey[0] !== "config.json" });
    await vi.waitFor(() => expect(cards.map((query) => query.getObserversCount() > 0)).toEqual([true, true, true]));
    expect(queryClient.isFetching()).toBe(0);
    expect(calls()).toHaveLength(3);
  });
});
