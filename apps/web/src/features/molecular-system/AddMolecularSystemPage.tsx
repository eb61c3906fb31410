import { Stack, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { MolecularSystemFlow, type MolecularSystemFlowProps } from "./MolecularSystemFlow";

/** /add-molecular-system (flag add-molecular-system): the flow under its title. */
export function AddMolecularSystemPage(props: MolecularSystemFlowProps) {
  const { t } = useTranslation("molecularSystems");
  return (
    <Stack gap="lg">
      <Title order={2}>{t("title")}</Title>
      <MolecularSystemFlow {...props} />
    </Stack>
  );
}
