import { act, screen } from "@testing-library/react";
import { toast } from "sonner";
import { renderApp } from "../../test/renderApp";
import { jsonResponse, signedInWithFetch } from "../../test/signedInFetch";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();

/** The toast area's top as sonner is told it (its --offset-top). */
function toasterTop(): string {
  const toaster = document.querySelector<HTMLElement>("[data-sonner-toaster]");
  if (!toaster) throw new Error("no toast area");
  return toaster.style.getPropertyValue("--offset-top");
}

describe("the toast area", () => {
  signedInWithFetch(fetchMock);

  it("starts below the catalogue's filter and search, not over them, and below the header without them", async () => {
    fetchMock.mockImplementation(async () =>
      jsonResponse(200, { data: [], metadata: { page_num: 1, page_size: 10, num_records: 0 } }),
    );
    renderApp("/systems?type=system");
    const search = await screen.findByPlaceholderText("Search molecular systems by name...");
    const controls = search.closest<HTMLElement>("[data-toast-clearance]");
    expect(controls).not.toBeNull();

    act(() => void toast("Before layout"));
    await vi.waitFor(() => expect(toasterTop()).toBe("72px"));

    // jsdom lays nothing out: the row of controls ends 176 px down, as in Chromium at 1280 px.
    vi.spyOn(controls!, "getBoundingClientRect").mockReturnValue({ bottom: 176 } as DOMRect);
    act(() => void toast("Saved"));
    await vi.waitFor(() => expect(toasterTop()).toBe("188px"));
  });
});
