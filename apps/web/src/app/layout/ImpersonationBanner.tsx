import { Alert } from "@mantine/core";
import { IconUserShield } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { useIdentity } from "../../lib/auth/useIdentity";

/** Shown while staff act as a user (token with an `impersonator` claim), naming that user's email. */
export function ImpersonationBanner() {
  const { t } = useTranslation();
  const identity = useIdentity();
  if (!identity.impersonated) return null;
  return (
    <Alert color="orange" radius={0} py={6} icon={<IconUserShield size={18} />} role="status">
      {t("header.impersonating", { email: identity.email })}
    </Alert>
  );
}
