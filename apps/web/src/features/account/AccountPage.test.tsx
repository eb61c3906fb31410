import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { identityFromClaims } from "../../lib/auth/identity";
import { TEST_CLAIMS } from "../../test/renderApp";
import { renderWithProviders } from "../../test/renderWithProviders";
import { jsonResponse as json, signedInWithFetch } from "../../test/signedInFetch";
import { AccountPage } from "./AccountPage";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();
const notFound = () => json(404, { errors: [{ error_code: "COMMON.ROUTE.NOT_FOUND" }] });

const storedAccount = {
  id: "user-1",
  email: "ada@example.org",
  first_name: "Ada",
  last_name: "Byron",
  organization: "other",
  allow_impersonation: true,
  identity_provider: null,
};

/** Answers GET /users/account with `account` and every PUT with `putStatus` (and `errorCode`). */
function serve(account: Response | (() => Response), putStatus = 200, errorCode = "USER.UPDATE_PASSWORD.FAILED") {
  fetchMock.mockImplementation(async (_url, init) => {
    if (init?.method === "GET") return typeof account === "function" ? account() : account.clone();
    return putStatus < 400 ? json(putStatus, {}) : json(putStatus, { errors: [{ error_code: errorCode }] });
  });
}

function putCall(path: string) {
  const call = fetchMock.mock.calls.find(([url, init]) => url === `/api/v2${path}` && init?.method === "PUT");
  return call ? JSON.parse(String(call[1]?.body)) : undefined;
}

describe("account page", () => {
  signedInWithFetch(fetchMock);

  it("shows the stored account and saves name and remote-support changes", async () => {
    serve(json(200, storedAccount));
    renderWithProviders(<AccountPage />);
    const user = userEvent.setup();
    expect(await screen.findByLabelText("Email")).toHaveValue("ada@example.org");
    expect(screen.getByLabelText(/Last name/)).toHaveValue("Byron");
    expect(screen.getByRole("switch", { name: /Enable remote support/ })).toBeChecked();
    await user.clear(screen.getByLabelText(/Last name/));
    await user.type(screen.getByLabelText(/Last name/), "Lovelace");
    await user.click(screen.getByRole("switch", { name: /Enable remote support/ }));
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Account info updated")).toBeInTheDocument();
    expect(putCall("/users/account")).toEqual({ first_name: "Ada", last_name: "Lovelace", allow_impersonation: false });
  });

  it("falls back to the token's claims when the server has no account endpoint, and validates names", async () => {
    serve(notFound);
    renderWithProviders(<AccountPage />);
    const user = userEvent.setup();
    expect(await screen.findByLabelText(/First name/)).toHaveValue("Ada");
    expect(screen.getByLabelText(/Last name/)).toHaveValue("Lovelace");
    await user.clear(screen.getByLabelText(/First name/));
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByText("You must enter a first name")).toBeInTheDocument();
    expect(putCall("/users/account")).toBeUndefined();
  });

  it("checks the new password and reports a failed change", async () => {
    serve(json(200, storedAccount), 400);
    renderWithProviders(<AccountPage />);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/^Current password/), "Old-pass1!");
    await user.type(screen.getByLabelText(/^New password/), "short");
    await user.type(screen.getByLabelText(/Confirm new password/), "other");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    expect(await screen.findByText("Password must be at least 8 characters long")).toBeInTheDocument();
    expect(screen.getByText("Passwords do not match")).toBeInTheDocument();
    expect(putCall("/users/password")).toBeUndefined();

    await user.clear(screen.getByLabelText(/^New password/));
    await user.type(screen.getByLabelText(/^New password/), "Str0ng!pass");
    await user.clear(screen.getByLabelText(/Confirm new password/));
    await user.type(screen.getByLabelText(/Confirm new password/), "Str0ng!pass");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    expect(await screen.findByText("There was an error updating your password")).toBeInTheDocument();
    expect(putCall("/users/password")).toEqual({
      current_password: "Old-pass1!",
      new_password: "Str0ng!pass",
      confirm_new_password: "Str0ng!pass",
    });
  });

  it("asks for the current password and shows a wrong one on its field", async () => {
    serve(json(200, storedAccount), 400, "USER.UPDATE_PASSWORD.WRONG_CURRENT_PASSWORD");
    renderWithProviders(<AccountPage />);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/^New password/), "Str0ng!pass");
    await user.type(screen.getByLabelText(/Confirm new password/), "Str0ng!pass");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    expect(await screen.findByText("Required field")).toBeInTheDocument();
    expect(putCall("/users/password")).toBeUndefined();

    await user.type(screen.getByLabelText(/^Current password/), "Wrong-pass1!");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    expect(await screen.findByText("Your current password is not correct")).toBeInTheDocument();
    expect(screen.queryByText("There was an error updating your password")).not.toBeInTheDocument();
  });

  it("shows staff acting as the user neither the password nor a remote-support switch they can change", async () => {
    serve(json(200, storedAccount));
    renderWithProviders(
      <AccountPage />,
      identityFromClaims({ ...TEST_CLAIMS, impersonator: { id: "staff-1", username: "support@polyforge.local" } }),
    );
    expect(await screen.findByLabelText(/First name/)).toBeEnabled();
    expect(screen.getByRole("switch", { name: /Enable remote support/ })).toBeDisabled();
    expect(screen.getByText(/Only you can change this setting/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Change password" })).not.toBeInTheDocument();
  });

  it("disables names and hides the password section for SSO users", async () => {
    serve(json(200, { ...storedAccount, identity_provider: "google" }));
    renderWithProviders(<AccountPage />, identityFromClaims({ ...TEST_CLAIMS, identity_provider: "google" }));
    expect(await screen.findByLabelText(/First name/)).toBeDisabled();
    expect(screen.getByLabelText(/Last name/)).toBeDisabled();
    expect(screen.getByRole("switch", { name: /Enable remote support/ })).toBeEnabled();
    expect(screen.queryByRole("button", { name: "Change password" })).not.toBeInTheDocument();
  });
});
