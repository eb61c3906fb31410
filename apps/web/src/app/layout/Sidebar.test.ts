import { isEntryActive, SIDEBAR_ENTRIES } from "./Sidebar";

function activeEntries(path: string): string[] {
  return SIDEBAR_ENTRIES.filter((entry) => isEntryActive(entry, path)).map((entry) => entry.to);
}

describe("sidebar active entry", () => {
  it.each([
    ["/", ["/"]],
    ["/building-blocks", ["/building-blocks"]],
    ["/building-blocks/create/linear", ["/building-blocks"]],
    ["/building-blocks/create/dendrimer", ["/building-blocks"]],
    ["/building-blocks/abc", ["/building-blocks"]],
    ["/systems/abc", ["/systems"]],
    ["/polymer-builder", ["/polymer-builder"]],
    ["/account", []],
    ["/building-blocks-old", []],
  ])("on %s marks %j", (path, expected) => {
    expect(activeEntries(path)).toEqual(expected);
  });
});
