import {
  Alert,
  Button,
  Card,
  Group,
  Loader,
  PasswordInput,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { UserErrors } from "@polyforge/contracts/errors";
import { accountUpdateSchema, passwordChangeSchema, type UserAccount } from "@polyforge/contracts/users";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { errorTitle, ProductError } from "../../lib/api/productError";
import { renewTokens } from "../../lib/auth/session";
import { useIdentity } from "../../lib/auth/useIdentity";
import { type PasswordChange, useChangePassword } from "./api/changePassword";
import { useAccount } from "./api/getAccount";
import { type AccountUpdate, useUpdateAccount } from "./api/updateAccount";

/** /account (SPEC §2, §5): names, remote-support toggle and password; SSO users only toggle support.
 * Staff acting as the user (remote support) see neither the toggle's control nor the password. */
export function AccountPage() {
  const { t } = useTranslation();
  const identity = useIdentity();
  const account = useAccount(identity);
  const isSsoUser = identity.identityProvider !== null;
  const isImpersonated = identity.impersonated;

  return (
    <Stack gap="lg" maw={640}>
      <Title order={2}>{t("account.title")}</Title>
      {account.isPending ? (
        <Loader aria-label={t("loading")} />
      ) : account.isError ? (
        <Alert color="red" title={errorTitle()}>
          {account.error.message}
        </Alert>
      ) : (
        <>
          <AccountInfoForm account={account.data} isSsoUser={isSsoUser} isImpersonated={isImpersonated} />
          {isSsoUser || isImpersonated ? null : <PasswordForm />}
        </>
      )}
    </Stack>
  );
}

function AccountInfoForm({
  account,
  isSsoUser,
  isImpersonated,
}: {
  account: UserAccount;
  isSsoUser: boolean;
  isImpersonated: boolean;
}) {
  const { t } = useTranslation();
  const form = useForm<AccountUpdate>({
    mode: "controlled",
    initialValues: {
      first_name: account.first_name,
      last_name: account.last_name,
      allow_impersonation: account.allow_impersonation,
    },
    validate: zod4Resolver(accountUpdateSchema),
  });
  const save = useUpdateAccount({
    onSuccess: (_, values) => {
      toast.success(t("account.infoUpdated"));
      form.resetDirty(values);
      // New tokens carry the new names, so the header greets the user by them.
      void renewTokens();
    },
    onError: () => toast.error(t("account.infoUpdateFailed")),
  });

  return (
    <Card withBorder radius="md" padding="lg">
      <form onSubmit={form.onSubmit((values) => save.mutate(values))} noValidate>
        <Stack>
          <Title order={4}>{t("account.infoHeading")}</Title>
          <TextInput label={t("account.email")} value={account.email} readOnly disabled />
          <Group grow align="flex-start">
            <TextInput
              label={t("account.firstName")}
              withAsterisk={!isSsoUser}
              disabled={isSsoUser}
              {...form.getInputProps("first_name")}
            />
            <TextInput
              label={t("account.lastName")}
              withAsterisk={!isSsoUser}
              disabled={isSsoUser}
              {...form.getInputProps("last_name")}
            />
          </Group>
          {isSsoUser ? (
            <Text size="sm" c="dimmed">
              {t("account.ssoNamesNote")}
            </Text>
          ) : null}
          <Switch
            label={t("account.remoteSupport")}
            description={t(isImpersonated ? "account.remoteSupportOwnerOnly" : "account.remoteSupportDescription")}
            disabled={isImpersonated}
            {...form.getInputProps("allow_impersonation", { type: "checkbox" })}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>
              {t("actions.save")}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function PasswordForm() {
  const { t } = useTranslation();
  const form = useForm<PasswordChange>({
    mode: "controlled",
    initialValues: { current_password: "", new_password: "", confirm_new_password: "" },
    // A weak password breaks several rules; show them in SPEC §5's order, first one first.
    validate: zod4Resolver(passwordChangeSchema, { errorPriority: "first" }),
  });
  const save = useChangePassword({
    onSuccess: () => {
      toast.success(t("account.passwordChanged"));
      form.reset();
    },
    onError: (error) => {
      // A mistyped current password is the user's to fix, on its field; anything else is a failure.
      if (error instanceof ProductError && error.code === UserErrors.UPDATE_PASSWORD_WRONG_CURRENT_PASSWORD) {
        form.setFieldError("current_password", error.message);
        return;
      }
      toast.error(t("account.passwordChangeFailed"));
    },
  });

  return (
    <Card withBorder radius="md" padding="lg">
      <form onSubmit={form.onSubmit((values) => save.mutate(values))} noValidate>
        <Stack>
          <Title order={4}>{t("account.passwordHeading")}</Title>
          <PasswordInput
            label={t("account.currentPassword")}
            withAsterisk
            autoComplete="current-password"
            {...form.getInputProps("current_password")}
          />
          <PasswordInput
            label={t("account.newPassword")}
            withAsterisk
            autoComplete="new-password"
            {...form.getInputProps("new_password")}
          />
          <PasswordInput
            label={t("account.confirmNewPassword")}
            withAsterisk
            autoComplete="new-password"
            {...form.getInputProps("confirm_new_password")}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              {t("account.changePassword")}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
