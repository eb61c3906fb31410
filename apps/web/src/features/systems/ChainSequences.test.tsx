import { screen, within } from "@testing-library/react";
import { renderWithProviders } from "../../test/renderWithProviders";
import { ChainSequences } from "./ChainSequences";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

/** report.json's `build.polymers` as the engine writes it (construct/report.py): one entry per distinct chain. */
const build = {
  polymers: [
    { polymer_id: "r", name: "PS-r-PMMA", copies: 1, sequence: ["STY", "ME0", "STY", "ME0"] },
    { polymer_id: "r", name: "PS-r-PMMA", copies: 2, sequence: ["ME0", "STY", "STY", "ME0"] },
    { polymer_id: "pe", name: "PE-4", copies: 3, sequence: ["ETH", "ETH", "ETH", "ETH"] },
  ],
};

describe("chain sequences", () => {
  it("lists every chain of a polymer drawn chain by chain, and not a polymer whose chains are alike", () => {
    renderWithProviders(<ChainSequences report={{ data: JSON.stringify({ build }) }} />);
    const card = screen.getByTestId("chain-sequences");
    expect(within(card).getByText("PS-r-PMMA: 3 chains")).toBeInTheDocument();
    expect(within(card).getByText("1: STY-ME0-STY-ME0")).toBeInTheDocument();
    expect(within(card).getByText("2: ME0-STY-STY-ME0")).toBeInTheDocument();
    expect(within(card).getByText("3: ME0-STY-STY-ME0")).toBeInTheDocument();
    expect(within(card).queryByText(/PE-4/)).toBeNull();
  });

  it("shows the first ten chains of many and says how many more", () => {
    const many = {
      polymers: Array.from({ length: 12 }, (_, index) => ({
        polymer_id: "r",
        name: "PS-r-PMMA",
        copies: 1,
        sequence: index % 2 ? ["STY", "ME0"] : ["ME0", "STY"],
      })),
    };
    renderWithProviders(<ChainSequences report={{ data: JSON.stringify({ build: many }) }} />);
    const card = screen.getByTestId("chain-sequences");
    expect(within(card).getByText("10: STY-ME0")).toBeInTheDocument();
    expect(within(card).queryByText(/^11:/)).toBeNull();
    expect(within(card).getByText("and 2 more chains")).toBeInTheDocument();
  });

  it("shows nothing when every chain is alike, while loading or for a broken report", () => {
    const alike = { polymers: [build.polymers[2]] };
    for (const data of [JSON.stringify({ build: alike }), undefined, "{not json", JSON.stringify({ build: 1 })]) {
      const { unmount } = renderWithProviders(<ChainSequences report={{ data }} />);
      expect(screen.queryByTestId("chain-sequences")).toBeNull();
      unmount();
    }
  });
});
