import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderWithProviders } from "../../test/renderWithProviders";
import { signedInWithFetch } from "../../test/signedInFetch";
import { FeedbackModal } from "./FeedbackModal";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();

function openModal() {
  const onClose = vi.fn();
  renderWithProviders(<FeedbackModal opened onClose={onClose} />);
  return { onClose, user: userEvent.setup() };
}

describe("feedback modal", () => {
  signedInWithFetch(fetchMock);

  it("asks for a description before sending anything", async () => {
    const { user } = openModal();
    expect(screen.getByRole("dialog", { name: "Send us your feedback" })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(await screen.findByText("Required field")).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("sends title and description, thanks the user and closes", async () => {
    fetchMock.mockResolvedValue(new Response(JSON.stringify({ id: "f1" }), { status: 201 }));
    const { user, onClose } = openModal();
    await user.type(screen.getByLabelText(/Describe your experience/), "The builder is great");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(await screen.findByText("Thank you! Your feedback has been submitted successfully.")).toBeInTheDocument();
    expect(onClose).toHaveBeenCalled();
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/v2/feedback");
    expect(init?.method).toBe("PUT");
    expect((init!.headers as Record<string, string>).Authorization).toBe("Bearer test-access-token");
    expect(JSON.parse(String(init?.body))).toEqual({ title: "User feedback", description: "The builder is great" });
  });

  it("shows the error toast and keeps what the user typed when sending fails", async () => {
    fetchMock.mockResolvedValue(
      new Response(JSON.stringify({ errors: [{ error_code: "COMMON.VALIDATION.INVALID" }] }), { status: 400 }),
    );
    const { user, onClose } = openModal();
    await user.type(screen.getByLabelText("Title"), "Bug");
    await user.type(screen.getByLabelText(/Describe your experience/), "It broke");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(
      await screen.findByText("There was an error submitting your feedback. Please try again."),
    ).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByLabelText("Title")).toHaveValue("Bug");
    expect(screen.getByLabelText(/Describe your experience/)).toHaveValue("It broke");
  });

  it("closes with the Close button", async () => {
    const { user, onClose } = openModal();
    await user.click(screen.getByRole("button", { name: "Close" }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });
});
